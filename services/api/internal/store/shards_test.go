package store

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// mustPlanned creates a run and plans it with n shards, each on its own
// agent, starting at startAt and ending at deadline.
func (f fixture) mustPlanned(tb testing.TB, n int, startAt, deadline time.Time) (runs.Run, []uuid.UUID) {
	tb.Helper()
	run := f.mustRun(tb, f.newRun(f.project.ID, time.Now().UTC()))
	p := runs.Plan{RunID: run.ID, StartAt: startAt, Deadline: deadline}
	agents := make([]uuid.UUID, n)
	for i := range n {
		agents[i] = testAgent(i)
		p.Shards = append(p.Shards, runs.Shard{Index: i, AgentID: agents[i], AgentName: fmt.Sprintf("agent-%d", i), QPS: 10, Connections: 1})
	}
	planned, err := f.s.PlanRun(ctxT(tb), p)
	if err != nil {
		tb.Fatalf("plan run: %v", err)
	}
	return planned, agents
}

// mergeFunc returns the second cur with the batch's new snapshots fresh
// (indexes in the batch) added, as package ingest merges a second.
type mergeFunc func(cur runs.Interval, fresh []int) (runs.Interval, error)

// recordIntervals stores a batch of interval snapshots as package ingest
// does: it begins the batch, merges each locked second with merge and
// commits.
func (f fixture) recordIntervals(ctx context.Context, recs []runs.SnapshotRecord, merge mergeFunc) ([]runs.Recorded, error) {
	b, err := f.s.BeginIntervals(ctx, recs)
	if err != nil {
		return nil, err
	}
	defer b.Rollback()
	seconds := b.Seconds()
	merged := make([]runs.Interval, len(seconds))
	for i := range seconds {
		if merged[i], err = merge(seconds[i].Stored, seconds[i].Fresh); err != nil {
			return nil, err
		}
	}
	if err := b.Commit(merged); err != nil {
		return nil, err
	}
	return b.Recorded(), nil
}

// record stores one snapshot as package ingest does: a final with
// RecordFinal, an interval as a batch of one merged by merge.
func (f fixture) record(ctx context.Context, rec runs.SnapshotRecord, merge mergeFunc) (runs.Recorded, error) {
	if rec.Final {
		return f.s.RecordFinal(ctx, rec)
	}
	out, err := f.recordIntervals(ctx, []runs.SnapshotRecord{rec}, merge)
	if err != nil {
		return runs.Recorded{}, err
	}
	return out[0], nil
}

// countMerge merges one snapshot, rec: it adds rec's count and errors and
// appends a byte to the response histogram, so that tests see each merge.
func countMerge(rec runs.SnapshotRecord, calls *int) mergeFunc {
	return func(cur runs.Interval, _ []int) (runs.Interval, error) {
		*calls++
		cur.Count += rec.Count
		cur.Errors += rec.Errors
		cur.Response = append(cur.Response, byte('a'+rec.Shard))
		cur.RetCodes = map[string]int64{"200": cur.Count - cur.Errors, "503": cur.Errors}
		cur.Snapshots++
		cur.P99US = float64(cur.Count)
		return cur, nil
	}
}

// shardState returns a shard as the finisher would see it.
func (f fixture) shardState(tb testing.TB, runID uuid.UUID, shard int) runs.ShardState {
	tb.Helper()
	states, err := f.s.ShardStates(ctxT(tb), runID)
	if err != nil {
		tb.Fatal(err)
	}
	return states[shard]
}

func TestRecordSnapshot(t *testing.T) {
	t.Parallel()
	f := mustFixture(t)
	ctx := ctxT(t)
	start := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	run, _ := f.mustPlanned(t, 2, start, start.Add(time.Minute))
	at := start.Add
	steps := []struct {
		name string
		rec  runs.SnapshotRecord
		want runs.Recorded
		// merges is how many times the merge function runs.
		merges int
		// shard0 is shard 0's status, count and last seq afterwards.
		status  runs.ShardStatus
		count   int64
		lastSeq int64
	}{
		{"first interval", runs.SnapshotRecord{Agent: testAgent(0), Shard: 0, Seq: 1, IntervalStart: at(2500 * time.Millisecond), Count: 10, Errors: 1},
			runs.Recorded{Second: 2}, 1, runs.ShardRunning, 10, 1},
		{"redelivered", runs.SnapshotRecord{Agent: testAgent(0), Shard: 0, Seq: 1, IntervalStart: at(2500 * time.Millisecond), Count: 10, Errors: 1},
			runs.Recorded{Duplicate: true}, 0, runs.ShardRunning, 10, 1},
		{"early clock", runs.SnapshotRecord{Agent: testAgent(0), Shard: 0, Seq: 3, IntervalStart: at(-40 * time.Millisecond), Count: 5},
			runs.Recorded{Second: 0}, 1, runs.ShardRunning, 15, 3},
		{"out of order", runs.SnapshotRecord{Agent: testAgent(0), Shard: 0, Seq: 2, IntervalStart: at(2999 * time.Millisecond), Count: 7, Errors: 2},
			runs.Recorded{Second: 2}, 1, runs.ShardRunning, 22, 3},
		{"final", runs.SnapshotRecord{Agent: testAgent(0), Shard: 0, Seq: 4, Final: true, IntervalStart: at(0), Count: 30, Errors: 3, Encoded: []byte("final-0")},
			runs.Recorded{}, 0, runs.ShardDone, 30, 4},
		{"interval after final", runs.SnapshotRecord{Agent: testAgent(0), Shard: 0, Seq: 5, IntervalStart: at(3 * time.Second), Count: 4},
			runs.Recorded{Second: 3}, 1, runs.ShardDone, 30, 5},
		{"second final", runs.SnapshotRecord{Agent: testAgent(0), Shard: 0, Seq: 6, Final: true, Count: 99, Encoded: []byte("again")},
			runs.Recorded{Ignored: true}, 0, runs.ShardDone, 30, 6},
		{"last shard's final", runs.SnapshotRecord{Agent: testAgent(1), Shard: 1, Seq: 1, Final: true, Count: 0, Encoded: []byte("final-1")},
			runs.Recorded{Settled: true}, 0, runs.ShardDone, 30, 6},
	}
	for _, st := range steps {
		st.rec.RunID = run.ID
		calls := 0
		got, err := f.record(ctx, st.rec, countMerge(st.rec, &calls))
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if got != st.want || calls != st.merges {
			t.Errorf("%s: recorded %+v with %d merges, want %+v with %d", st.name, got, calls, st.want, st.merges)
		}
		sh := f.shardState(t, run.ID, 0)
		if sh.Status != st.status || sh.Count != st.count || sh.LastSeq != st.lastSeq {
			t.Errorf("%s: shard 0 is %s count %d last seq %d, want %s %d %d", st.name, sh.Status, sh.Count, sh.LastSeq, st.status, st.count, st.lastSeq)
		}
	}
	if sh := f.shardState(t, run.ID, 0); string(sh.Final) != "final-0" || sh.Errors != 3 {
		t.Errorf("shard 0 final = %q errors %d, want the first final's", sh.Final, sh.Errors)
	}
	if n := f.count(t, "SELECT count(*) FROM run_snapshots WHERE run_id = ?", run.ID); n != 7 {
		t.Errorf("run_snapshots rows = %d, want 7 (one per distinct seq)", n)
	}
	ivs, err := f.s.RunIntervals(ctx, run.ID, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	type iv struct {
		second         int
		count, errs    int64
		hdr            string
		snapshots      int
		ok200, errs503 int64
	}
	want := []iv{{0, 5, 0, "a", 1, 5, 0}, {2, 17, 3, "aa", 2, 14, 3}, {3, 4, 0, "a", 1, 4, 0}}
	var got []iv
	for _, x := range ivs {
		got = append(got, iv{x.Second, x.Count, x.Errors, string(x.Response), x.Snapshots, x.RetCodes["200"], x.RetCodes["503"]})
	}
	if !slices.Equal(got, want) {
		t.Errorf("intervals = %+v, want %+v", got, want)
	}
	if from2, err := f.s.RunIntervals(ctx, run.ID, 1, 1); err != nil || len(from2) != 1 || from2[0].Second != 2 {
		t.Errorf("RunIntervals(from 1, limit 1) = %+v, %v; want second 2 only", from2, err)
	}
}

func TestRecordSnapshotUnknown(t *testing.T) {
	t.Parallel()
	f := mustFixture(t)
	ctx := ctxT(t)
	start := time.Now().UTC()
	run, _ := f.mustPlanned(t, 1, start, start.Add(time.Minute))
	for _, rec := range []runs.SnapshotRecord{
		{Agent: testAgent(0), RunID: uuid.New(), Shard: 0, Seq: 1, IntervalStart: start},
		{Agent: testAgent(1), RunID: run.ID, Shard: 1, Seq: 1, IntervalStart: start},
		{Agent: testAgent(1), RunID: run.ID, Shard: 0, Seq: 1, IntervalStart: start}, // another agent's shard
		{Agent: testAgent(1), RunID: run.ID, Shard: 0, Seq: 2, Final: true, Encoded: []byte("forged")},
	} {
		calls := 0
		_, err := f.record(ctx, rec, countMerge(rec, &calls))
		if !apperr.Is(err, apperr.NotFound) || calls != 0 {
			t.Errorf("run %s shard %d: err = %v after %d merges, want NotFound", rec.RunID, rec.Shard, err, calls)
		}
	}
	if n := f.count(t, "SELECT count(*) FROM run_snapshots"); n != 0 {
		t.Errorf("run_snapshots rows = %d, want 0", n)
	}
}

func TestRecordSnapshotAfterRunEnded(t *testing.T) {
	t.Parallel()
	f := mustFixture(t)
	ctx := ctxT(t)
	start := time.Now().UTC()
	run, _ := f.mustPlanned(t, 1, start, start.Add(time.Minute))
	if _, err := f.s.MoveRun(ctx, runs.Move{RunID: run.ID, To: runs.Failed, Error: "test"}); err != nil {
		t.Fatal(err)
	}
	interval := runs.SnapshotRecord{Agent: testAgent(0), RunID: run.ID, Seq: 1, IntervalStart: start.Add(1500 * time.Millisecond), Count: 3}
	final := runs.SnapshotRecord{Agent: testAgent(0), RunID: run.ID, Seq: 2, Final: true, Count: 3, Encoded: []byte("late")}
	calls := 0
	if got, err := f.record(ctx, interval, countMerge(interval, &calls)); err != nil || got != (runs.Recorded{Second: 1}) || calls != 1 {
		t.Errorf("interval after the end: %+v, %v, %d merges; want merged into second 1", got, err, calls)
	}
	if got, err := f.record(ctx, final, countMerge(final, &calls)); err != nil || got != (runs.Recorded{Ignored: true}) {
		t.Errorf("final after the end: %+v, %v; want ignored", got, err)
	}
	sh := f.shardState(t, run.ID, 0)
	if sh.Status != runs.ShardAssigned || sh.Count != 0 || sh.Final != nil || sh.LastSeq != 2 {
		t.Errorf("shard after the end = %+v, want assigned, count 0, no final, last seq 2", sh)
	}
}

// TestRecordLostShardSnapshotAfterRunEnded: an agent cut off from NATS
// comes back after its shard was lost and the run ended, and sends the
// interval snapshots it held back: they change neither the run's seconds
// nor the shard (the result holds what the shard had sent, docs/reliability.md
// §5), so the seconds still add up to the result.
func TestRecordLostShardSnapshotAfterRunEnded(t *testing.T) {
	t.Parallel()
	f := mustFixture(t)
	ctx := ctxT(t)
	start := time.Now().UTC().Add(-time.Minute)
	run, _ := f.mustPlanned(t, 1, start, start.Add(30*time.Second))
	// As the sweeper leaves it once the agent's heartbeat is gone.
	if err := f.s.conn(ctx).Exec(`UPDATE run_shards SET status = 'lost' WHERE run_id = ?`, run.ID).Error; err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.MoveRun(ctx, runs.Move{RunID: run.ID, To: runs.Failed, Error: "test"}); err != nil {
		t.Fatal(err)
	}
	interval := runs.SnapshotRecord{Agent: testAgent(0), RunID: run.ID, Seq: 5, IntervalStart: start.Add(4500 * time.Millisecond), Count: 100}
	calls := 0
	if got, err := f.record(ctx, interval, countMerge(interval, &calls)); err != nil || got != (runs.Recorded{Ignored: true}) || calls != 0 {
		t.Errorf("a lost shard's interval after the end: %+v, %v, %d merges; want ignored, none merged", got, err, calls)
	}
	if n := f.count(t, "SELECT count(*) FROM run_intervals WHERE run_id = ?", run.ID); n != 0 {
		t.Errorf("%d seconds stored, want none", n)
	}
	if sh := f.shardState(t, run.ID, 0); sh.Status != runs.ShardLost || sh.Count != 0 {
		t.Errorf("shard = %+v, want lost with count 0", sh)
	}
}

// TestRecordLostShardBackWhileRunRuns: an agent cut off from NATS long
// enough for its shard to be lost comes back while the run still runs
// (docs/reliability.md §5). The interval snapshot it held back is merged
// into its second and its count, and makes the shard running again, so the
// run waits for its final; the final makes it done with the agent's totals,
// and the run settles with no shard lost. A redelivery changes nothing.
func TestRecordLostShardBackWhileRunRuns(t *testing.T) {
	t.Parallel()
	f := mustFixture(t)
	ctx := ctxT(t)
	start := time.Now().UTC().Add(-10 * time.Second)
	run, _ := f.mustPlanned(t, 2, start, start.Add(time.Minute))
	if got, err := f.s.RecordFinal(ctx, runs.SnapshotRecord{Agent: testAgent(0), RunID: run.ID, Shard: 0, Seq: 1, Final: true, Count: 10, Encoded: []byte("f0")}); err != nil || got.Settled {
		t.Fatalf("shard 0's final: %+v, %v; want stored, the run not settled", got, err)
	}
	// As the sweeper leaves it once the agent's heartbeat is gone.
	if err := f.s.conn(ctx).Exec(`UPDATE run_shards SET status = 'lost' WHERE run_id = ? AND shard = 1`, run.ID).Error; err != nil {
		t.Fatal(err)
	}
	interval := runs.SnapshotRecord{Agent: testAgent(1), RunID: run.ID, Shard: 1, Seq: 1, IntervalStart: start.Add(1500 * time.Millisecond), Count: 7}
	calls := 0
	if got, err := f.record(ctx, interval, countMerge(interval, &calls)); err != nil || got != (runs.Recorded{Second: 1}) || calls != 1 {
		t.Errorf("the lost shard's held-back interval: %+v, %v, %d merges; want merged into second 1", got, err, calls)
	}
	if sh := f.shardState(t, run.ID, 1); sh.Status != runs.ShardRunning || sh.Count != 7 {
		t.Errorf("shard 1 after its interval = %+v, want running with count 7", sh)
	}
	final := runs.SnapshotRecord{Agent: testAgent(1), RunID: run.ID, Shard: 1, Seq: 2, Final: true, Count: 7, Encoded: []byte("f1")}
	if got, err := f.s.RecordFinal(ctx, final); err != nil || got != (runs.Recorded{Settled: true}) {
		t.Errorf("the returned shard's final: %+v, %v; want stored, the run settled", got, err)
	}
	if got, err := f.s.RecordFinal(ctx, final); err != nil || got != (runs.Recorded{Duplicate: true}) {
		t.Errorf("the final again: %+v, %v; want a duplicate", got, err)
	}
	sh := f.shardState(t, run.ID, 1)
	if sh.Status != runs.ShardDone || sh.Count != 7 || string(sh.Final) != "f1" || sh.LastSeq != 2 {
		t.Errorf("shard 1 after its final = %+v, want done, count 7, its final, last seq 2", sh)
	}
	if n := f.count(t, "SELECT coalesce(sum(count), 0) FROM run_intervals WHERE run_id = ?", run.ID); n != 7 {
		t.Errorf("the seconds count %d, want the interval's 7", n)
	}
}

func TestSweepShards(t *testing.T) {
	t.Parallel()
	f := mustFixture(t)
	ctx := ctxT(t)
	now := time.Now().UTC().Truncate(time.Millisecond)
	started, agents := f.mustPlanned(t, 3, now.Add(-5*time.Second), now.Add(time.Minute))
	future, futureAgents := f.mustPlanned(t, 1, now.Add(time.Minute), now.Add(2*time.Minute))
	late, lateAgents := f.mustPlanned(t, 2, now.Add(-time.Minute), now.Add(-11*time.Second))
	// Shard 0 of the late run has its final: only shard 1 is lost.
	fin := runs.SnapshotRecord{Agent: testAgent(0), RunID: late.ID, Shard: 0, Seq: 1, Final: true, Count: 1, Encoded: []byte("f")}
	if _, err := f.s.RecordFinal(ctx, fin); err != nil {
		t.Fatal(err)
	}
	alive := []uuid.UUID{agents[0], agents[2], futureAgents[0], lateAgents[0], lateAgents[1]}
	sw := runs.Sweep{Now: now, Grace: 10 * time.Second, Live: alive, Limit: 10}

	got, err := f.s.SweepShards(ctx, sw)
	if err != nil {
		t.Fatal(err)
	}
	want := runs.Swept{Lost: []runs.LostShard{{RunID: late.ID, Shard: 1, Deadline: true}}, Settled: []uuid.UUID{late.ID}}
	if !sweptEqual(got, want) {
		t.Errorf("sweep without the heartbeat check = %+v, want %+v", got, want)
	}

	sw.CheckAgents, sw.Live = true, []uuid.UUID{agents[0]}
	got, err = f.s.SweepShards(ctx, sw)
	if err != nil {
		t.Fatal(err)
	}
	want = runs.Swept{
		Lost:    []runs.LostShard{{RunID: started.ID, Shard: 1}, {RunID: started.ID, Shard: 2}},
		Settled: []uuid.UUID{late.ID},
	}
	if !sweptEqual(got, want) {
		t.Errorf("sweep with agent 0 alive = %+v, want %+v (the run that has not started keeps its shard)", got, want)
	}
	if sh := f.shardState(t, future.ID, 0); sh.Status != runs.ShardAssigned {
		t.Errorf("shard of a run not started yet is %s, want assigned", sh.Status)
	}
	if sh := f.shardState(t, late.ID, 0); sh.Status != runs.ShardDone {
		t.Errorf("shard with a final is %s, want done", sh.Status)
	}

	sw.Live, sw.Limit = nil, 1
	got, err = f.s.SweepShards(ctx, sw)
	if err != nil {
		t.Fatal(err)
	}
	want = runs.Swept{Lost: []runs.LostShard{{RunID: started.ID, Shard: 0}}, Settled: []uuid.UUID{late.ID}}
	if !sweptEqual(got, want) {
		t.Errorf("sweep with no agent alive and limit 1 = %+v, want %+v", got, want)
	}
}

// sweptEqual compares sweeps as sets.
func sweptEqual(a, b runs.Swept) bool {
	byID := func(x, y uuid.UUID) int { return slices.Compare(x[:], y[:]) }
	byShard := func(x, y runs.LostShard) int {
		if c := byID(x.RunID, y.RunID); c != 0 {
			return c
		}
		return x.Shard - y.Shard
	}
	la, lb := slices.Clone(a.Lost), slices.Clone(b.Lost)
	slices.SortFunc(la, byShard)
	slices.SortFunc(lb, byShard)
	sa, sb := slices.Clone(a.Settled), slices.Clone(b.Settled)
	slices.SortFunc(sa, byID)
	slices.SortFunc(sb, byID)
	return slices.Equal(la, lb) && slices.Equal(sa, sb)
}

// TestSweepShardsSparesQueuedShards keeps a shard whose snapshots wait in
// the stream: past its deadline and grace, and with its agent gone, it is
// lost only once the backlog grace has passed too.
func TestSweepShardsSparesQueuedShards(t *testing.T) {
	t.Parallel()
	f := mustFixture(t)
	ctx := ctxT(t)
	now := time.Now().UTC().Truncate(time.Millisecond)
	late, _ := f.mustPlanned(t, 2, now.Add(-time.Minute), now.Add(-20*time.Second))
	sw := runs.Sweep{
		Now: now, Grace: 10 * time.Second, CheckAgents: true, Live: nil,
		Queued: []string{late.ID.String() + "/1", uuid.NewString() + "/0"}, Backlog: time.Minute, Limit: 10,
	}
	got, err := f.s.SweepShards(ctx, sw)
	if err != nil {
		t.Fatal(err)
	}
	want := runs.Swept{Lost: []runs.LostShard{{RunID: late.ID, Shard: 0, Deadline: true}}}
	if !sweptEqual(got, want) {
		t.Errorf("sweep with shard 1 queued = %+v, want only shard 0 lost", got)
	}
	if sh := f.shardState(t, late.ID, 1); sh.Status == runs.ShardLost {
		t.Error("queued shard was marked lost")
	}
	sw.Now = now.Add(time.Minute)
	got, err = f.s.SweepShards(ctx, sw)
	if err != nil {
		t.Fatal(err)
	}
	want = runs.Swept{Lost: []runs.LostShard{{RunID: late.ID, Shard: 1, Deadline: true}}, Settled: []uuid.UUID{late.ID}}
	if !sweptEqual(got, want) {
		t.Errorf("sweep after the backlog grace = %+v, want %+v", got, want)
	}
}

func TestShardProgress(t *testing.T) {
	t.Parallel()
	f := mustFixture(t)
	ctx := ctxT(t)
	start := time.Now().UTC()
	run, agents := f.mustPlanned(t, 3, start, start.Add(time.Minute))
	for _, rec := range []runs.SnapshotRecord{
		{Agent: testAgent(0), RunID: run.ID, Shard: 0, Seq: 1, IntervalStart: start, Count: 7, Errors: 1},
		{Agent: testAgent(0), RunID: run.ID, Shard: 0, Seq: 2, IntervalStart: start.Add(time.Second), Count: 5},
		{Agent: testAgent(1), RunID: run.ID, Shard: 1, Seq: 3, Final: true, Count: 20, Errors: 2, Encoded: []byte("final-1")},
	} {
		calls := 0
		if _, err := f.record(ctx, rec, countMerge(rec, &calls)); err != nil {
			t.Fatal(err)
		}
	}
	// An agent removed from the registry leaves its shard without an id.
	if err := f.s.conn(ctx).Exec("DELETE FROM agents WHERE id = ?", agents[2]).Error; err != nil {
		t.Fatal(err)
	}
	got, err := f.s.ShardProgress(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	type shard struct {
		index        int
		agent        uuid.UUID
		name         string
		status       runs.ShardStatus
		lastSeq      int64
		final        bool
		count, errs  int64
		qps          float64
		conns        int
		updatedIsSet bool
	}
	want := []shard{
		{0, agents[0], "agent-0", runs.ShardRunning, 2, false, 12, 1, 10, 1, true},
		{1, agents[1], "agent-1", runs.ShardDone, 3, true, 20, 2, 10, 1, true},
		{2, uuid.Nil, "agent-2", runs.ShardAssigned, 0, false, 0, 0, 10, 1, true},
	}
	var have []shard
	for _, sh := range got {
		have = append(have, shard{sh.Index, sh.AgentID, sh.AgentName, sh.Status, sh.LastSeq, sh.FinalReceived,
			sh.Count, sh.Errors, sh.QPS, sh.Connections, time.Since(sh.UpdatedAt).Abs() < time.Minute})
	}
	if !slices.Equal(have, want) {
		t.Errorf("ShardProgress = %+v, want %+v", have, want)
	}
	if none, err := f.s.ShardProgress(ctx, uuid.New()); err != nil || len(none) != 0 {
		t.Errorf("ShardProgress of an unknown run = %+v, %v; want none", none, err)
	}
}

// testAgent is the agent mustPlanned gives shard i: the same in every
// run, so that records can name it.
func testAgent(i int) uuid.UUID {
	return uuid.NewSHA1(uuid.NameSpaceOID, []byte(fmt.Sprintf("barrage-test-agent-%d", i)))
}
