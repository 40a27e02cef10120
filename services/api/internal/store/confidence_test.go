package store

import (
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/pkg/threshold"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// storeSeconds stores n one-request seconds of run id.
func (f fixture) storeSeconds(tb testing.TB, id uuid.UUID, n int) {
	tb.Helper()
	for i := range n {
		row := intervalRow{RunID: id, Second: i, Count: int64(i + 1), HDR: []byte{}, ServiceHDR: []byte{}, LagHDR: []byte{}, RetCodes: []byte("{}"), UpdatedAt: time.Now()}
		if err := f.s.conn(ctxT(tb)).Create(&row).Error; err != nil {
			tb.Fatal(err)
		}
	}
}

// TestFinishRunConfidence: a run with a confidence form is settled with
// its own and its baseline's stored seconds, and an inconclusive outcome
// keeps its note and estimate; an inconclusive run is no baseline.
func TestFinishRunConfidence(t *testing.T) {
	t.Parallel()
	f := mustFixture(t)
	ctx := ctxT(t)
	test, err := f.s.CreateTest(ctx, f.newTest(f.project.ID, "checkout"), f.actor)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	base := f.mustTestRun(t, test.ID, now.Add(-time.Hour), nil)
	f.ended(t, base.ID, runs.VerdictPass, 42)
	f.storeSeconds(t, base.ID, 12)
	run := f.mustTestRun(t, test.ID, now, []string{"p(99) < baseline * 1.1 @ 95%"})
	f.storeSeconds(t, run.ID, 11)
	f.settle(t, run)
	outcomes := []threshold.Outcome{{
		Expression: "p(99) < baseline * 1.1 @ 95%", Metric: "response.p(99)", Unit: threshold.Micros, Observed: 1500, Limit: 1320,
		Inconclusive: true, Note: "run about 3.2× longer to tell",
		Estimate: &threshold.Estimate{Confidence: 95, Ratio: 1.25, RatioLow: 0.98, RatioHigh: 1.5, MarginLow: -200, MarginHigh: 600, Longer: 3.2, Seconds: 11,
			Spread: 0.034, SpreadRuns: 4},
	}}
	var seen runs.Settlement
	if _, _, err := f.s.FinishRun(ctx, run.ID, func(s runs.Settlement) (runs.Finish, error) {
		seen = s
		return runs.Finish{Status: runs.Completed, At: now, Verdict: runs.VerdictInconclusive, Thresholds: outcomes,
			BaselineRunID: base.ID, Result: &runs.Result{Count: 11}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(seen.Seconds) != 11 || seen.Baseline == nil || len(seen.Baseline.Seconds) != 12 || seen.Baseline.Seconds[11].Count != 12 {
		t.Fatalf("decide saw %d seconds and baseline %+v; want 11 and a baseline with 12", len(seen.Seconds), seen.Baseline)
	}
	got, err := f.s.GetRun(ctx, run.ID)
	if err != nil || got.Verdict != runs.VerdictInconclusive || !reflect.DeepEqual(got.ThresholdResults, outcomes) {
		t.Fatalf("run = %q %+v (%v); want inconclusive with %+v", got.Verdict, got.ThresholdResults, err, outcomes)
	}

	// The next run compares with the passing run, not the inconclusive one.
	next := f.mustTestRun(t, test.ID, now.Add(time.Minute), []string{"p(99) < baseline"})
	f.settle(t, next)
	if _, _, err := f.s.FinishRun(ctx, next.ID, func(s runs.Settlement) (runs.Finish, error) {
		seen = s
		return runs.Finish{Status: runs.Canceled, At: now}, nil
	}); err != nil {
		t.Fatal(err)
	}
	if seen.Baseline == nil || seen.Baseline.Run.ID != base.ID || seen.Baseline.Seconds != nil || seen.Seconds != nil {
		t.Errorf("next run's baseline %+v with seconds %v; want run %s and no seconds for a plain form", seen.Baseline, seen.Seconds, base.ID)
	}
}
