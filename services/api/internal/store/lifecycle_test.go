package store

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/retention"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// runTables are the tables with rows keyed by a run, each with the query
// that counts one run's rows.
var runTables = []string{
	"run_shards", "run_intervals", "run_snapshots", "run_written_urls", "run_results", "run_timelines",
	"run_imports", "idempotency_keys",
}

// mustFinishedRun creates a run created at at, with intervals seconds of
// per-second rows (and as many snapshots per shard), two shards with
// final snapshots, written URLs, a result, a timeline, an import row and
// an idempotency key, and ends it completed with verdict.
func (f fixture) mustFinishedRun(tb testing.TB, project uuid.UUID, at time.Time, intervals int, mut func(*runs.Run)) runs.Run {
	tb.Helper()
	n := f.newRun(project, at)
	if mut != nil {
		mut(&n.Run)
	}
	r := f.mustRun(tb, n)
	db := f.s.conn(ctxT(tb))
	exec := func(q string, args ...any) {
		tb.Helper()
		if err := db.Exec(q, args...).Error; err != nil {
			tb.Fatalf("%s: %v", q, err)
		}
	}
	exec(`UPDATE runs SET status = 'completed', verdict = 'pass', ended_at = created_at WHERE id = ?`, r.ID)
	exec(`INSERT INTO run_shards (run_id, shard, final_snapshot) SELECT ?, s, '\x0102'::bytea FROM generate_series(0, 1) s`, r.ID)
	exec(`INSERT INTO run_intervals (run_id, second, hdr) SELECT ?, s, '\x00'::bytea FROM generate_series(0, ?) s`, r.ID, intervals-1)
	exec(`INSERT INTO run_snapshots (run_id, shard, seq, second, count, errors, qps, service_p50_us, service_p99_us,
		response_p99_us, lag_p99_us, cpu_used, cpu_cores)
		SELECT ?, sh, s, s - 1, 10 + sh, 0, 10 + sh, 900, 1500, 1600, 40, 0.5, 2 FROM generate_series(0, 1) sh, generate_series(1, ?) s`, r.ID, intervals)
	exec(`INSERT INTO run_written_urls (run_id, shard, seq, idx, url) SELECT ?, 0, 1, i, 'http://t/' || i FROM generate_series(0, 2) i`, r.ID)
	exec(`INSERT INTO run_results (run_id, count) VALUES (?, 100)`, r.ID)
	exec(`INSERT INTO run_timelines (run_id, seen, size, samples) VALUES (?, 1, 1, '\x00'::bytea)`, r.ID)
	exec(`INSERT INTO run_imports (run_id, format, latency) VALUES (?, 'fortio', '{}')`, r.ID)
	exec(`INSERT INTO idempotency_keys (project_id, key, request_hash, run_id) VALUES (?, ?, '\x00'::bytea, ?)`, project, "k-"+r.ID.String(), r.ID)
	return r
}

// rowsOf counts each run table's rows of run id.
func (f fixture) rowsOf(tb testing.TB, id uuid.UUID) map[string]int64 {
	tb.Helper()
	out := make(map[string]int64, len(runTables)+1)
	for _, table := range runTables {
		out[table] = f.count(tb, "SELECT count(*) FROM "+table+" WHERE run_id = ?", id)
	}
	out["runs"] = f.count(tb, "SELECT count(*) FROM runs WHERE id = ?", id)
	return out
}

func TestDeleteRunRemovesExactlyItsRows(t *testing.T) {
	t.Parallel()
	f := mustFixture(t)
	ctx := ctxT(t)
	now := time.Now().UTC()
	gone := f.mustFinishedRun(t, f.project.ID, now.Add(-time.Hour), 30, nil)
	other := f.mustFinishedRun(t, f.project.ID, now.Add(-30*time.Minute), 20, func(r *runs.Run) { r.BaselineRequest = gone.ID })
	if err := f.s.conn(ctx).Exec(`UPDATE runs SET baseline_run_id = ? WHERE id = ?`, gone.ID, other.ID).Error; err != nil {
		t.Fatal(err)
	}
	before := f.rowsOf(t, gone.ID)
	otherBefore := f.rowsOf(t, other.ID)
	for table, n := range before {
		if n == 0 {
			t.Fatalf("fixture has no %s rows for the run to delete", table)
		}
	}

	use, err := f.s.RunBaselineOf(ctx, gone.ID)
	if err != nil || use.ReferencedBy != 1 || use.NewestPass {
		t.Fatalf("baseline use of the older run = %+v, %v; want referenced by 1, not the newest pass", use, err)
	}
	if err := f.s.DeleteRun(ctx, runs.Deletion{RunID: gone.ID, Actor: f.actor}); err != nil {
		t.Fatalf("delete run: %v", err)
	}
	for table, n := range f.rowsOf(t, gone.ID) {
		if n != 0 {
			t.Errorf("%s still has %d rows of the deleted run (had %d)", table, n, before[table])
		}
	}
	for table, n := range f.rowsOf(t, other.ID) {
		if n != otherBefore[table] {
			t.Errorf("%s has %d rows of the other run, had %d", table, n, otherBefore[table])
		}
	}
	kept, err := f.s.GetRun(ctx, other.ID)
	if err != nil || kept.BaselineRunID != uuid.Nil || kept.BaselineRequest != uuid.Nil {
		t.Errorf("the run that compared with the deleted one: baseline %s, request %s, err %v; want both cleared",
			kept.BaselineRunID, kept.BaselineRequest, err)
	}
	if n := f.count(t, `SELECT count(*) FROM audit_log WHERE action = 'run.delete' AND target_id = ? AND user_id = ?
		AND (details->>'intervals')::int = 30 AND (details->>'snapshots')::int = 60`, gone.ID.String(), f.admin); n != 1 {
		t.Errorf("run.delete audit entries with the counts = %d, want 1", n)
	}
	wantCode(t, f.s.DeleteRun(ctx, runs.Deletion{RunID: gone.ID, Actor: f.actor}), apperr.NotFound)
}

func TestDeleteRunRefusesActiveAndPinnedRuns(t *testing.T) {
	t.Parallel()
	f := mustFixture(t)
	ctx := ctxT(t)
	queued := f.mustRun(t, f.newRun(f.project.ID, time.Now().UTC()))
	if d := wantCode(t, f.s.DeleteRun(ctx, runs.Deletion{RunID: queued.ID, Actor: f.actor}), apperr.Conflict); d == "" {
		t.Error("no detail on the conflict of a queued run")
	}
	pinned := f.mustFinishedRun(t, f.project.ID, time.Now().UTC(), 3, nil)
	r, err := f.s.SetRunPinned(ctx, pinned.ID, true, f.actor)
	if err != nil || !r.Pinned {
		t.Fatalf("pin: pinned=%v err=%v", r.Pinned, err)
	}
	wantCode(t, f.s.DeleteRun(ctx, runs.Deletion{RunID: pinned.ID, Actor: f.actor}), apperr.Conflict)
	if err := f.s.DeleteRun(ctx, runs.Deletion{RunID: pinned.ID, Force: true, Actor: f.actor}); err != nil {
		t.Fatalf("forced delete of a pinned run: %v", err)
	}
	if n := f.count(t, "SELECT count(*) FROM runs WHERE id IN (?, ?)", queued.ID, pinned.ID); n != 1 {
		t.Errorf("runs left = %d, want the queued one only", n)
	}
	if n := f.count(t, "SELECT count(*) FROM audit_log WHERE action = 'run.pin' AND target_id = ?", pinned.ID.String()); n != 1 {
		t.Errorf("run.pin audit entries = %d, want 1", n)
	}
}

// leader always leads.
type leader struct{}

func (leader) Lead(context.Context) (bool, error) { return true, nil }

func TestRetentionDropsOldDataKeepsPinnedAndBaselines(t *testing.T) {
	t.Parallel()
	f := mustFixture(t)
	ctx := ctxT(t)
	now := time.Now().UTC()
	day := 24 * time.Hour
	proj := f.mustProject(t, "retained")
	seven, thirty := 7, 30
	proj.Retention.IntervalDays, proj.Retention.RunDays = &seven, &thirty
	if _, err := f.s.UpdateProject(ctx, proj, f.actor); err != nil {
		t.Fatal(err)
	}
	test := f.mustTest(t, proj.ID)
	onTest := func(r *runs.Run) { r.TestID = test }

	// 40 days old: dropped whole, except the pinned one, the newest
	// passing run of the test, and the baseline of a 2-day-old run.
	oldRuns := make([]runs.Run, 6)
	for i := range oldRuns {
		oldRuns[i] = f.mustFinishedRun(t, proj.ID, now.Add(-40*day+time.Duration(i)*time.Minute), 400, nil)
	}
	pinnedOld := f.mustFinishedRun(t, proj.ID, now.Add(-41*day), 10, nil)
	if _, err := f.s.SetRunPinned(ctx, pinnedOld.ID, true, f.actor); err != nil {
		t.Fatal(err)
	}
	baselineOld := f.mustFinishedRun(t, proj.ID, now.Add(-42*day), 10, nil)
	newestPass := f.mustFinishedRun(t, proj.ID, now.Add(-43*day), 10, onTest)
	olderPass := f.mustFinishedRun(t, proj.ID, now.Add(-44*day), 10, onTest)
	// 10 days old: per-second rows dropped, result kept.
	midRun := f.mustFinishedRun(t, proj.ID, now.Add(-10*day), 50, nil)
	recent := f.mustFinishedRun(t, proj.ID, now.Add(-2*day), 50, func(r *runs.Run) { r.BaselineRequest = baselineOld.ID })
	// Another project without retention keeps everything.
	foreign := f.mustFinishedRun(t, f.project.ID, now.Add(-100*day), 20, nil)
	foreignBefore := f.rowsOf(t, foreign.ID)

	job := retention.New(retention.Options{Store: f.s, Leader: leader{}, Log: slog.New(slog.DiscardHandler), Batch: 500, RunBatch: 4, Pause: time.Millisecond})
	c, err := job.Pass(ctx)
	if err != nil {
		t.Fatalf("pass: %v", err)
	}
	// Dropped whole: six runs of 400 intervals, 800 snapshots and 3 URLs,
	// and olderPass's 10+20+3. Intervals and snapshots dropped: midRun's
	// 50+100, and the kept old baselines' 10+20 each.
	const wantRows = 6*1203 + 33 + 150 + 2*30
	if c.Runs != 7 || c.IntervalRuns != 3 || c.Rows != wantRows {
		t.Errorf("pass dropped %d runs, the intervals of %d and %d rows, want 7, 3 and %d", c.Runs, c.IntervalRuns, c.Rows, wantRows)
	}
	if c.Batches < 10 {
		t.Errorf("pass ran %d batches, want many (each of at most 500 rows)", c.Batches)
	}
	for _, r := range append(oldRuns, olderPass) {
		if n := f.count(t, "SELECT count(*) FROM runs WHERE id = ?", r.ID); n != 0 {
			t.Errorf("old run %s kept", r.ID)
		}
	}
	for name, r := range map[string]runs.Run{"pinned": pinnedOld, "baseline": baselineOld, "newest pass": newestPass} {
		if rows := f.rowsOf(t, r.ID); rows["runs"] != 1 || rows["run_results"] != 1 {
			t.Errorf("%s run dropped: %v", name, rows)
		}
	}
	if rows := f.rowsOf(t, pinnedOld.ID); rows["run_intervals"] != 10 || rows["run_snapshots"] != 20 {
		t.Errorf("pinned run lost its intervals: %v", rows)
	}
	// The per-shard series (00027) goes with the snapshots and stays with them.
	for _, c := range []struct {
		name string
		id   uuid.UUID
		want int
	}{{"pinned", pinnedOld.ID, 20}, {"10-day-old", midRun.ID, 0}, {"recent", recent.ID, 100}} {
		rows, next, err := f.s.RunShardSeconds(ctx, c.id, 0, 1000)
		if err != nil || len(rows) != c.want || next != -1 {
			t.Errorf("%s run's shard seconds: %d rows, next %d (err %v), want %d", c.name, len(rows), next, err, c.want)
		}
	}
	mid := f.rowsOf(t, midRun.ID)
	if mid["run_intervals"] != 0 || mid["run_snapshots"] != 0 || mid["run_results"] != 1 || mid["runs"] != 1 || mid["run_written_urls"] != 3 {
		t.Errorf("10-day-old run rows = %v; want no intervals or snapshots, its result and written URLs kept", mid)
	}
	if n := f.count(t, "SELECT count(*) FROM run_shards WHERE run_id = ? AND final_snapshot IS NOT NULL", midRun.ID); n != 0 {
		t.Errorf("10-day-old run keeps %d final snapshots", n)
	}
	got, err := f.s.GetRun(ctx, midRun.ID)
	if err != nil || got.IntervalsDroppedAt.IsZero() {
		t.Errorf("10-day-old run: intervals_dropped_at zero (err %v)", err)
	}
	if rows := f.rowsOf(t, recent.ID); rows["run_intervals"] != 50 {
		t.Errorf("recent run rows = %v", rows)
	}
	for table, n := range f.rowsOf(t, foreign.ID) {
		if n != foreignBefore[table] {
			t.Errorf("project without retention: %s has %d rows, had %d", table, n, foreignBefore[table])
		}
	}
	if n := f.count(t, `SELECT count(*) FROM audit_log WHERE action = 'retention.apply' AND project_id = ?
		AND (details->>'runs')::int = 7`, proj.ID); n != 1 {
		t.Errorf("retention.apply audit entries = %d, want 1", n)
	}
	// A second pass finds nothing.
	if c, err := job.Pass(ctx); err != nil || c != (retention.Counts{}) {
		t.Errorf("second pass = %+v, %v; want nothing", c, err)
	}
}

// mustTest inserts a stored test in project and returns its id.
func (f fixture) mustTest(tb testing.TB, project uuid.UUID) uuid.UUID {
	tb.Helper()
	id := uuid.New()
	err := f.s.conn(ctxT(tb)).Exec(`INSERT INTO tests (id, project_id, name, spec) VALUES (?, ?, ?, '{}')`, id, project, "t-"+id.String()[:8]).Error
	if err != nil {
		tb.Fatalf("insert test: %v", err)
	}
	return id
}

func TestRetentionPrunesPublishedOutbox(t *testing.T) {
	t.Parallel()
	f := mustFixture(t)
	ctx := ctxT(t)
	now := time.Now().UTC()
	day := 24 * time.Hour
	add := func(topic string, created time.Time, published *time.Time) {
		t.Helper()
		err := f.s.conn(ctx).Exec(`INSERT INTO outbox (topic, key, payload, created_at, published_at) VALUES (?, 'k', '{}', ?, ?)`,
			topic, created, published).Error
		if err != nil {
			t.Fatal(err)
		}
	}
	old, recent := now.Add(-10*day), now.Add(-day)
	for range 5 {
		add("prune.old", old, &old) // published 10 days ago: pruned
	}
	add("prune.recent", recent, &recent)        // published a day ago: kept
	add("prune.pending", now.Add(-30*day), nil) // never published: kept whatever its age
	before := f.count(t, "SELECT count(*) FROM outbox")

	job := retention.New(retention.Options{Store: f.s, Leader: leader{}, Log: slog.New(slog.DiscardHandler), Batch: 2, Pause: time.Millisecond})
	c, err := job.Pass(ctx)
	if err != nil {
		t.Fatalf("pass: %v", err)
	}
	if c.OutboxRows != 5 || c.Batches != 3 {
		t.Errorf("pass pruned %d outbox rows in %d batches, want 5 in 3 (of at most 2)", c.OutboxRows, c.Batches)
	}
	if n := f.count(t, "SELECT count(*) FROM outbox WHERE topic LIKE 'prune.%'"); n != 2 {
		t.Errorf("%d test messages left, want the recent and the pending one", n)
	}
	if n := f.count(t, "SELECT count(*) FROM outbox"); n != before-5 {
		t.Errorf("outbox holds %d rows, want %d", n, before-5)
	}
	if c, err := job.Pass(ctx); err != nil || c != (retention.Counts{}) {
		t.Errorf("second pass = %+v, %v; want nothing", c, err)
	}
}

// TestRunShardSecondsPages reads the per-shard series of a run in pages of
// seconds: each page holds whole seconds, by second then shard, with the
// shards' agent names, and points at the next stored second.
func TestRunShardSecondsPages(t *testing.T) {
	t.Parallel()
	f := mustFixture(t)
	ctx := ctxT(t)
	r := f.mustFinishedRun(t, f.project.ID, time.Now(), 5, nil)
	if err := f.s.conn(ctx).Exec(`UPDATE run_shards SET agent_name = 'agent-' || shard WHERE run_id = ?`, r.ID).Error; err != nil {
		t.Fatal(err)
	}
	rows, next, err := f.s.RunShardSeconds(ctx, r.ID, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	if next != 3 || len(rows) != 4 {
		t.Fatalf("seconds 1-2: %d rows, next %d; want 4 and 3", len(rows), next)
	}
	want := []struct {
		second, shard int
		count         int64
		agent         string
	}{{1, 0, 10, "agent-0"}, {1, 1, 11, "agent-1"}, {2, 0, 10, "agent-0"}, {2, 1, 11, "agent-1"}}
	for i, w := range want {
		g := rows[i]
		if g.Second != w.second || g.Shard != w.shard || g.Count != w.count || g.AgentName != w.agent || g.ServiceP99US != 1500 || g.CPUCores != 2 {
			t.Errorf("row %d = %+v, want second %d shard %d count %d agent %s", i, g, w.second, w.shard, w.count, w.agent)
		}
	}
	if rows, next, err := f.s.RunShardSeconds(ctx, r.ID, 3, 2); err != nil || len(rows) != 4 || next != -1 {
		t.Errorf("seconds 3-4: %d rows, next %d (err %v); want 4 and -1", len(rows), next, err)
	}
}
