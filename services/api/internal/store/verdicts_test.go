package store

import (
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/pkg/threshold"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// mustTestRun creates a run of test (uuid.Nil for none) created at at,
// with thresholds.
func (f fixture) mustTestRun(tb testing.TB, test uuid.UUID, at time.Time, thresholds []string) runs.Run {
	tb.Helper()
	n := f.newRun(f.project.ID, at)
	n.Run.TestID, n.Run.Thresholds = test, thresholds
	return f.mustRun(tb, n)
}

// ended marks a run completed with verdict and a result counting count.
func (f fixture) ended(tb testing.TB, id uuid.UUID, verdict string, count int64) {
	tb.Helper()
	db := f.s.conn(ctxT(tb))
	if err := db.Exec(`UPDATE runs SET status = 'completed', verdict = ? WHERE id = ?`, verdict, id).Error; err != nil {
		tb.Fatal(err)
	}
	if err := db.Exec(`INSERT INTO run_results (run_id, count) VALUES (?, ?)`, id, count).Error; err != nil {
		tb.Fatal(err)
	}
}

// settle plans run on one shard and stores its final snapshot.
func (f fixture) settle(tb testing.TB, run runs.Run) {
	tb.Helper()
	now := time.Now().UTC()
	p := runs.Plan{RunID: run.ID, StartAt: now, Deadline: now.Add(time.Minute),
		Shards: []runs.Shard{{Index: 0, AgentID: testAgent(0), AgentName: "agent-0", QPS: 10, Connections: 1}}}
	if _, err := f.s.PlanRun(ctxT(tb), p); err != nil {
		tb.Fatal(err)
	}
	f.final(tb, run.ID, 0, 10, "final")
}

// TestFinishRunJudges: FinishRun hands decide the run's baseline (the
// newest earlier passing run of its test) and stores the verdict, the
// outcomes and the baseline with the run.
func TestFinishRunJudges(t *testing.T) {
	t.Parallel()
	f := mustFixture(t)
	ctx := ctxT(t)
	test, err := f.s.CreateTest(ctx, f.newTest(f.project.ID, "checkout"), f.actor)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	older := f.mustTestRun(t, test.ID, now.Add(-3*time.Hour), nil)
	f.ended(t, older.ID, runs.VerdictPass, 1)
	want := f.mustTestRun(t, test.ID, now.Add(-2*time.Hour), nil)
	f.ended(t, want.ID, runs.VerdictPass, 42)
	failed := f.mustTestRun(t, test.ID, now.Add(-time.Hour), nil)
	f.ended(t, failed.ID, runs.VerdictFail, 3)
	other := f.mustTestRun(t, uuid.Nil, now.Add(-time.Minute), nil)
	f.ended(t, other.ID, runs.VerdictPass, 5)

	run := f.mustTestRun(t, test.ID, now, []string{"p(99) < baseline", "count > 0"})
	later := f.mustTestRun(t, test.ID, now.Add(time.Minute), []string{"count > 0"})
	f.ended(t, later.ID, runs.VerdictPass, 7)
	f.settle(t, run)
	outcomes := []threshold.Outcome{
		{Expression: "p(99) < baseline", Metric: "response.p(99)", Unit: threshold.Micros, Observed: 1500, Limit: 1200},
		{Expression: "count > 0", Metric: "count", Unit: threshold.Number, Observed: 10, Pass: true},
	}
	var seen *runs.Baseline
	got, done, err := f.s.FinishRun(ctx, run.ID, func(s runs.Settlement) (runs.Finish, error) {
		seen = s.Baseline
		return runs.Finish{Status: runs.Completed, At: now, Verdict: runs.VerdictFail, Thresholds: outcomes,
			BaselineRunID: want.ID, Result: &runs.Result{Count: 10}}, nil
	})
	if err != nil || !done {
		t.Fatalf("FinishRun: done=%v err=%v", done, err)
	}
	if seen == nil || seen.Run.ID != want.ID || seen.Result.Count != 42 || seen.Result.RunID != want.ID {
		t.Errorf("decide saw baseline %+v, want run %s with its result", seen, want.ID)
	}
	again, err := f.s.GetRun(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []runs.Run{got, again} {
		if r.Verdict != runs.VerdictFail || r.BaselineRunID != want.ID || !reflect.DeepEqual(r.ThresholdResults, outcomes) {
			t.Errorf("run = verdict %q baseline %s outcomes %+v; want fail, %s, %+v", r.Verdict, r.BaselineRunID, r.ThresholdResults, want.ID, outcomes)
		}
	}

	// A run without a test, or without thresholds, gets no baseline; an
	// unjudged run has no outcomes.
	plain := f.mustTestRun(t, uuid.Nil, now, []string{"count > 0"})
	f.settle(t, plain)
	seen = &runs.Baseline{}
	if _, _, err := f.s.FinishRun(ctx, plain.ID, func(s runs.Settlement) (runs.Finish, error) {
		seen = s.Baseline
		return runs.Finish{Status: runs.Canceled, At: now}, nil
	}); err != nil {
		t.Fatal(err)
	}
	if seen != nil {
		t.Errorf("a run without a test was given baseline %+v", seen)
	}
	if r, err := f.s.GetRun(ctx, plain.ID); err != nil || r.Verdict != "" || r.ThresholdResults != nil || r.BaselineRunID != uuid.Nil {
		t.Errorf("canceled run = %+v, %v; want no verdict, outcomes or baseline", r, err)
	}
}

// TestMoveRunToFailedSetsVerdictError: a run that fails before it has a
// result (no agent could take it) is judged error.
func TestMoveRunToFailedSetsVerdictError(t *testing.T) {
	t.Parallel()
	f := mustFixture(t)
	run := f.mustRun(t, f.newRun(f.project.ID, time.Now().UTC()))
	got, err := f.s.MoveRun(ctxT(t), runs.Move{RunID: run.ID, To: runs.Failed, Error: "no agent", Actor: f.actor})
	if err != nil || got.Verdict != runs.VerdictError {
		t.Errorf("MoveRun to failed = verdict %q, %v; want error", got.Verdict, err)
	}
}
