package store

import (
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// TestFinishRunPooledBaseline: a run that asks for its test's last N
// passing runs is settled with the newest of them as its baseline and the
// older ones pooled, newest first, each with its stored seconds (failing
// runs, other tests' and later runs are not picked); fewer when the test
// has fewer; what was pooled is stored with the run. (The settled runs
// fail, so that they are no baselines of the next.)
func TestFinishRunPooledBaseline(t *testing.T) {
	t.Parallel()
	f := mustFixture(t)
	ctx := ctxT(t)
	test, err := f.s.CreateTest(ctx, f.newTest(f.project.ID, "checkout"), f.actor)
	if err != nil {
		t.Fatal(err)
	}
	other, err := f.s.CreateTest(ctx, f.newTest(f.project.ID, "other"), f.actor)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	var passing []uuid.UUID // oldest first
	for i, verdict := range []string{runs.VerdictPass, runs.VerdictPass, runs.VerdictFail, runs.VerdictPass, runs.VerdictInconclusive, runs.VerdictPass} {
		r := f.mustTestRun(t, test.ID, now.Add(time.Duration(i-10)*time.Minute), nil)
		f.ended(t, r.ID, verdict, int64(100+i))
		f.storeSeconds(t, r.ID, 10+i)
		if verdict == runs.VerdictPass {
			passing = append(passing, r.ID)
		}
	}
	o := f.mustTestRun(t, other.ID, now.Add(-time.Minute), nil)
	f.ended(t, o.ID, runs.VerdictPass, 1)

	settle := func(t *testing.T, last int, at time.Time) (runs.Settlement, runs.Run) {
		t.Helper()
		n := f.newRun(f.project.ID, at)
		n.Run.TestID, n.Run.Thresholds, n.Run.BaselineLast = test.ID, []string{"p(99) < baseline @ 95%"}, last
		run := f.mustRun(t, n)
		f.storeSeconds(t, run.ID, 11)
		f.settle(t, run)
		var seen runs.Settlement
		pool := &runs.BaselinePool{Runs: []uuid.UUID{passing[3], passing[2]}, Note: "pooled 2 runs: a note"}
		if _, _, err := f.s.FinishRun(ctx, run.ID, func(s runs.Settlement) (runs.Finish, error) {
			seen = s
			return runs.Finish{Status: runs.Completed, At: at, Verdict: runs.VerdictFail, BaselineRunID: passing[3], BaselinePool: pool,
				Result: &runs.Result{Count: 11}}, nil
		}); err != nil {
			t.Fatal(err)
		}
		got, err := f.s.GetRun(ctx, run.ID)
		if err != nil || got.BaselineLast != last || !reflect.DeepEqual(got.BaselinePool, pool) {
			t.Fatalf("stored run: last %d pool %+v (%v); want %d and %+v", got.BaselineLast, got.BaselinePool, err, last, pool)
		}
		return seen, got
	}
	ids := func(s runs.Settlement) []uuid.UUID {
		out := []uuid.UUID{s.Baseline.Run.ID}
		for _, b := range s.Pooled {
			out = append(out, b.Run.ID)
		}
		return out
	}

	seen, _ := settle(t, 3, now)
	if got, want := ids(seen), []uuid.UUID{passing[3], passing[2], passing[1]}; !reflect.DeepEqual(got, want) {
		t.Errorf("last 3: baselines %v, want %v (newest passing first)", got, want)
	}
	for _, b := range append([]runs.Baseline{*seen.Baseline}, seen.Pooled...) {
		if len(b.Seconds) < 10 || b.Result.Count < 100 {
			t.Errorf("baseline %s came with %d seconds and count %d", b.Run.ID, len(b.Seconds), b.Result.Count)
		}
	}
	// The settled run stored passing[3] and passing[2] as its pool:
	// passing[2] is now a baseline in use.
	if use, err := f.s.RunBaselineOf(ctx, passing[2]); err != nil || use.ReferencedBy != 1 {
		t.Errorf("pooled run's baseline use %+v (%v), want referenced by 1", use, err)
	}
	seen, _ = settle(t, 20, now.Add(time.Second))
	if got := ids(seen); len(got) != 4 || got[3] != passing[0] {
		t.Errorf("last 20: baselines %v, want the test's 4 passing runs", got)
	}
	// A run created before the newest passing run pools only older ones.
	seen, _ = settle(t, 2, now.Add(-7*time.Minute+time.Second))
	if got, want := ids(seen), []uuid.UUID{passing[2], passing[1]}; !reflect.DeepEqual(got, want) {
		t.Errorf("an earlier run: baselines %v, want %v", got, want)
	}
}
