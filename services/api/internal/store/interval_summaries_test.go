package store

import (
	"testing"
	"time"

	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// TestRunIntervalSummaries: a second stored with its percentiles (after
// migration 00030) is read without its histograms, one stored without
// them with its histograms; RunIntervals reads both whole.
func TestRunIntervalSummaries(t *testing.T) {
	t.Parallel()
	f := mustFixture(t)
	ctx := ctxT(t)
	run := f.mustRun(t, f.newRun(f.project.ID, time.Now().UTC()))
	exec := func(q string, args ...any) {
		t.Helper()
		if err := f.s.conn(ctx).Exec(q, args...).Error; err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec(`INSERT INTO run_intervals (run_id, second, count, hdr, service_hdr, lag_hdr, p50_us, p90_us, p99_us, max_us,
		service_p50_us, service_p90_us, service_p99_us, service_max_us, lag_p50_us, lag_p90_us, lag_p99_us, lag_max_us,
		iterations_started, iterations_completed, iterations_failed, snapshots, ret_codes)
		VALUES (?, 0, 10, 'r', 's', 'l', 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 20, 5, 15, 2, '{"200": 10}')`, run.ID)
	exec(`INSERT INTO run_intervals (run_id, second, count, hdr, service_hdr, lag_hdr) VALUES (?, 1, 20, 'R', 'S', 'L')`, run.ID)
	sum, err := f.s.RunIntervalSummaries(ctx, run.ID, 0, 10)
	if err != nil || len(sum) != 2 {
		t.Fatalf("summaries: %d, %v", len(sum), err)
	}
	if a := sum[0]; a.Response != nil || a.Service != nil || a.Lag != nil || a.P99US != 3 || a.Count != 10 || a.Snapshots != 2 ||
		a.Iterations != (runs.Iterations{Started: 20, Completed: 5, Failed: 15}) || a.RetCodes["200"] != 10 ||
		a.ServiceQ == nil || *a.ServiceQ != (runs.Quantiles{P50US: 5, P90US: 6, P99US: 7, MaxUS: 8}) ||
		a.LagQ == nil || *a.LagQ != (runs.Quantiles{P50US: 9, P90US: 10, P99US: 11, MaxUS: 12}) {
		t.Errorf("second 0: %+v", a)
	}
	if b := sum[1]; string(b.Response)+string(b.Service)+string(b.Lag) != "RSL" || b.ServiceQ != nil || b.LagQ != nil || b.Count != 20 {
		t.Errorf("second 1: %+v", b)
	}
	whole, err := f.s.RunIntervals(ctx, run.ID, 0, 10)
	if err != nil || len(whole) != 2 || string(whole[0].Response)+string(whole[0].Service)+string(whole[0].Lag) != "rsl" {
		t.Errorf("RunIntervals: %+v, %v", whole, err)
	}
}
