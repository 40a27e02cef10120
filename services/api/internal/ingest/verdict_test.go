package ingest

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// TestDecideJudges checks the thresholds a finished run is judged by:
// against its merged result, against a baseline, and without one.
func TestDecideJudges(t *testing.T) {
	t.Parallel()
	id, testID, baseID := uuid.New(), uuid.New(), uuid.New()
	t0 := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	in := &Ingester{cfg: Config{Now: func() time.Time { return t0.Add(time.Hour) }}}
	in.cfg.Normalize()
	// 4 requests in 2 s (2 qps), response 100..400 µs, one error.
	shards := []runs.ShardState{{Index: 0, Status: runs.ShardDone,
		Final: finalOf(t, id, 0, t0, 2*time.Second, []int64{100, 200, 300, 400}, []int64{90, 180, 270, 360})}}
	base := &runs.Baseline{
		Run: runs.Run{ID: baseID, TestID: testID, Spec: spec.Spec{QPS: 2}, Summary: &runs.Summary{QPS: 4}},
		Result: runs.Result{RunID: baseID, Count: 8, Response: encode(t, 200), Service: encode(t, 100), Lag: encode(t, 5),
			Duration: 2 * time.Second},
	}
	tests := []struct {
		name       string
		testID     uuid.UUID
		baseline   *runs.Baseline
		thresholds []string
		// request is an explicit baseline the run asked for; abortedBy
		// the abort threshold that stopped it; lost adds a lost shard.
		request   uuid.UUID
		abortedBy string
		partial   bool
		lost      bool
		verdict   string
		errs      []string // per outcome, "" for none
		pass      []bool
		baseID    uuid.UUID
	}{
		{name: "no thresholds", verdict: runs.VerdictPass},
		{name: "all pass", thresholds: []string{"p(99) <= 400us", "count == 4", "error_rate == 25%", "qps == 2", "status_2xx == 4"},
			verdict: runs.VerdictPass, pass: []bool{true, true, true, true, true}, errs: []string{"", "", "", "", ""}},
		{name: "one fails", thresholds: []string{"p(99) < 400us", "count == 4"},
			verdict: runs.VerdictFail, pass: []bool{false, true}, errs: []string{"", ""}},
		{name: "against the baseline", testID: testID, baseline: base,
			thresholds: []string{"p(99) < baseline * 2.5", "qps >= baseline * 0.5", "count > 0"},
			verdict:    runs.VerdictPass, pass: []bool{true, true, true}, errs: []string{"", "", ""}, baseID: baseID},
		{name: "regressed against the baseline", testID: testID, baseline: base, thresholds: []string{"p(99) < baseline * 1.1"},
			verdict: runs.VerdictFail, pass: []bool{false}, errs: []string{""}, baseID: baseID},
		{name: "baseline not used", testID: testID, baseline: base, thresholds: []string{"count > 0"},
			verdict: runs.VerdictPass, pass: []bool{true}, errs: []string{""}},
		{name: "no test", thresholds: []string{"p(99) < baseline"},
			verdict: runs.VerdictFail, pass: []bool{false}, errs: []string{"no baseline: the run has no test"}},
		{name: "no passing run", testID: testID, thresholds: []string{"qps >= baseline"},
			verdict: runs.VerdictFail, pass: []bool{false}, errs: []string{"no baseline: the test has no earlier passing run"}},
		{name: "explicit baseline, no test", request: baseID, baseline: base, thresholds: []string{"p(99) < baseline * 2.5"},
			verdict: runs.VerdictPass, pass: []bool{true}, errs: []string{""}, baseID: baseID},
		{name: "explicit baseline gone", request: baseID, thresholds: []string{"p(99) < baseline"},
			verdict: runs.VerdictFail, pass: []bool{false}, errs: []string{"no baseline: the requested baseline run is gone"}},
		{name: "aborted", thresholds: []string{"error_rate < 50% abort", "count == 4"}, abortedBy: "error_rate < 50% abort",
			verdict: runs.VerdictFail, pass: []bool{false, true}, errs: []string{"", ""}},
		{name: "lost a shard", lost: true, thresholds: []string{"count == 4"},
			verdict: runs.VerdictError, pass: []bool{true}, errs: []string{""}},
		{name: "lost a shard, allow_partial", lost: true, partial: true, thresholds: []string{"count == 4"},
			verdict: runs.VerdictPass, pass: []bool{true}, errs: []string{""}},
		{name: "stored before checks", thresholds: []string{"p99 < 1s"},
			verdict: runs.VerdictFail, pass: []bool{false}, errs: []string{"invalid expression at 1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			run := runs.Run{
				ID: id, TestID: tt.testID, Status: runs.Running, Spec: spec.Spec{QPS: 2}, Thresholds: tt.thresholds,
				BaselineRequest: tt.request, AbortedBy: tt.abortedBy, AllowPartial: tt.partial,
			}
			st := shards
			if tt.lost {
				st = append(slices.Clone(shards), runs.ShardState{Index: 1, Status: runs.ShardLost})
			}
			f, err := in.decide(runs.Settlement{Run: run, Shards: st, Baseline: tt.baseline})
			if err != nil {
				t.Fatal(err)
			}
			if f.Verdict != tt.verdict || f.BaselineRunID != tt.baseID || f.Thresholds == nil || len(f.Thresholds) != len(tt.thresholds) {
				t.Fatalf("verdict %q baseline %s outcomes %+v; want %q %s and %d outcomes",
					f.Verdict, f.BaselineRunID, f.Thresholds, tt.verdict, tt.baseID, len(tt.thresholds))
			}
			for i, o := range f.Thresholds {
				if o.Pass != tt.pass[i] || (tt.errs[i] == "") != (o.Error == "") || !strings.HasPrefix(o.Error, tt.errs[i]) {
					t.Errorf("outcome %d = %+v; want pass %v, error %q", i, o, tt.pass[i], tt.errs[i])
				}
			}
		})
	}
}
