package ingest

import (
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// secondsOf returns n stored seconds of run id, each with 20 responses
// from base to base+19*step µs (the service latency the same).
func secondsOf(t *testing.T, id uuid.UUID, n int, base, step int64) []runs.Interval {
	t.Helper()
	out := make([]runs.Interval, n)
	for i := range out {
		vals := make([]int64, 20)
		for j := range vals {
			vals[j] = base + int64(j)*step + int64(i%3) // a little second-to-second variation
		}
		enc := encode(t, vals...)
		out[i] = runs.Interval{RunID: id, Second: i, Count: 20, Response: enc, Service: enc, Lag: encode(t, 5)}
	}
	return out
}

// TestDecideConfidence checks confidence forms through the finisher: the
// run's and the baseline's stored seconds are compared, and a baseline
// that cannot be compared gives an inconclusive verdict with a reason.
func TestDecideConfidence(t *testing.T) {
	t.Parallel()
	id, testID, baseID := uuid.New(), uuid.New(), uuid.New()
	t0 := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	in := &Ingester{cfg: Config{Now: func() time.Time { return t0.Add(time.Hour) }}}
	in.cfg.Normalize()
	shards := []runs.ShardState{{Index: 0, Status: runs.ShardDone,
		Final: finalOf(t, id, 0, t0, 12*time.Second, []int64{1000, 1100, 1200, 1300}, []int64{900, 1000, 1100, 1200})}}
	http := spec.Spec{URL: "http://127.0.0.1:8080/", QPS: 20}
	baseline := func(sp spec.Spec, degraded bool, seconds []runs.Interval) *runs.Baseline {
		return &runs.Baseline{
			Run: runs.Run{ID: baseID, TestID: testID, Status: runs.Completed, Spec: sp, Degraded: degraded,
				Summary: &runs.Summary{QPS: 20}},
			Result:  runs.Result{RunID: baseID, Count: 240, Response: encode(t, 1000, 1500), Service: encode(t, 900), Duration: 12 * time.Second},
			Seconds: seconds,
		}
	}
	same, slow := secondsOf(t, id, 12, 1000, 20), secondsOf(t, id, 12, 2000, 40)
	baseSecs := secondsOf(t, baseID, 12, 1000, 20)
	const expr = "p(90) < baseline * 1.10 @ 95%"
	tests := []struct {
		name    string
		base    *runs.Baseline
		seconds []runs.Interval
		verdict string
		note    string
	}{
		{"same as the baseline", baseline(http, false, baseSecs), same, runs.VerdictPass, ""},
		{"twice as slow", baseline(http, false, baseSecs), slow, runs.VerdictFail, ""},
		{"too short", baseline(http, false, baseSecs), same[:6], runs.VerdictInconclusive, "the run has 6 measured seconds"},
		{"baseline at another rate", baseline(spec.Spec{URL: http.URL, QPS: 40}, false, baseSecs), same, runs.VerdictInconclusive, "40 qps"},
		{"baseline over another protocol", baseline(spec.Spec{URL: "tcp://127.0.0.1:9000", QPS: 20}, false, baseSecs), same,
			runs.VerdictInconclusive, "used tcp"},
		{"degraded baseline", baseline(http, true, baseSecs), same, runs.VerdictInconclusive, "degraded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			run := runs.Run{ID: id, TestID: testID, Status: runs.Running, Spec: http, Thresholds: []string{expr, "count > 0"}}
			f, err := in.decide(runs.Settlement{Run: run, Shards: shards, Baseline: tt.base, Seconds: tt.seconds})
			if err != nil {
				t.Fatal(err)
			}
			if f.Verdict != tt.verdict || len(f.Thresholds) != 2 || f.BaselineRunID != baseID {
				t.Fatalf("verdict %q outcomes %+v baseline %s; want %q", f.Verdict, f.Thresholds, f.BaselineRunID, tt.verdict)
			}
			o := f.Thresholds[0]
			if o.Error != "" || !strings.Contains(o.Note, tt.note) || o.Inconclusive != (tt.verdict == runs.VerdictInconclusive) {
				t.Errorf("outcome %+v; want note %q", o, tt.note)
			}
			if tt.note == "" && (o.Estimate == nil || o.Estimate.Seconds != 12) {
				t.Errorf("estimate %+v, want one over 12 seconds", o.Estimate)
			}
		})
	}
}
