package ingest

import (
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// TestDecidePooledBaseline checks a run that asked for the last N passing
// runs of its test: the runs found are pooled (three 6-second runs make
// one baseline long enough to judge), fewer than asked and runs at another
// rate are said in the pool's note, and none comparable is inconclusive.
func TestDecidePooledBaseline(t *testing.T) {
	t.Parallel()
	id, testID := uuid.New(), uuid.New()
	t0 := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	in := &Ingester{cfg: Config{Now: func() time.Time { return t0.Add(time.Hour) }}}
	in.cfg.Normalize()
	shards := []runs.ShardState{{Index: 0, Status: runs.ShardDone,
		Final: finalOf(t, id, 0, t0, 12*time.Second, []int64{1000, 1100, 1200, 1300}, []int64{900, 1000, 1100, 1200})}}
	http := spec.Spec{URL: "http://127.0.0.1:8080/", QPS: 20}
	fast := spec.Spec{URL: http.URL, QPS: 40}
	ids := []uuid.UUID{uuid.New(), uuid.New(), uuid.New()}
	baseline := func(i int, sp spec.Spec) runs.Baseline {
		return runs.Baseline{
			Run: runs.Run{ID: ids[i], TestID: testID, Status: runs.Completed, Spec: sp, Summary: &runs.Summary{QPS: 20}},
			Result: runs.Result{RunID: ids[i], Count: 120, Response: encode(t, 1000, 1380), Service: encode(t, 900),
				Duration: 6 * time.Second},
			Seconds: secondsOf(t, ids[i], 6, 1000, 20),
		}
	}
	same, slow := secondsOf(t, id, 12, 1000, 20), secondsOf(t, id, 12, 2000, 40)
	tests := []struct {
		name    string
		last    int
		specs   []spec.Spec // of the baselines found, newest first
		seconds []runs.Interval
		verdict string
		pooled  []uuid.UUID
		note    string // of the pool
		outcome string // a note of the outcome
	}{
		{"three of three", 3, []spec.Spec{http, http, http}, same, runs.VerdictPass, ids, "", ""},
		{"three of five asked", 5, []spec.Spec{http, http, http}, same, runs.VerdictPass, ids,
			"pooled 3 runs: the test has 3 earlier passing runs of the 5 asked for", ""},
		{"twice as slow", 3, []spec.Spec{http, http, http}, slow, runs.VerdictFail, ids, "", ""},
		{"one at another rate left out", 3, []spec.Spec{http, fast, http}, same, runs.VerdictPass, []uuid.UUID{ids[0], ids[2]},
			"pooled 2 runs: 1 of them left out, run " + ids[1].String() + ": the baseline run asked for 40 qps, this run 20 qps", ""},
		{"none comparable", 3, []spec.Spec{fast, fast, fast}, same, runs.VerdictInconclusive, []uuid.UUID{},
			"pooled 0 runs: 3 of them left out", "none of the last 3 passing runs can be compared with this run"},
		{"one left of two is too short", 2, []spec.Spec{http, fast}, same, runs.VerdictInconclusive, ids[:1],
			"pooled 1 run: 1 of them left out", "the baseline has 6 measured seconds"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			found := make([]runs.Baseline, len(tt.specs))
			for i, sp := range tt.specs {
				found[i] = baseline(i, sp)
			}
			run := runs.Run{ID: id, TestID: testID, Status: runs.Running, Spec: http, BaselineLast: tt.last,
				Thresholds: []string{"p(90) < baseline * 1.10 @ 95%", "count > 0"}}
			f, err := in.decide(runs.Settlement{Run: run, Shards: shards, Baseline: &found[0], Pooled: found[1:], Seconds: tt.seconds})
			if err != nil {
				t.Fatal(err)
			}
			if f.Verdict != tt.verdict || len(f.Thresholds) != 2 || f.BaselineRunID != ids[0] && len(tt.pooled) > 0 {
				t.Fatalf("verdict %q outcomes %+v baseline %s; want %q", f.Verdict, f.Thresholds, f.BaselineRunID, tt.verdict)
			}
			p := f.BaselinePool
			if p == nil || len(p.Runs) != len(tt.pooled) || !strings.HasPrefix(p.Note, tt.note) || (tt.note == "") != (p.Note == "") {
				t.Fatalf("pool %+v; want runs %v and a note starting %q", p, tt.pooled, tt.note)
			}
			for i, want := range tt.pooled {
				if p.Runs[i] != want {
					t.Errorf("pooled run %d is %s, want %s", i, p.Runs[i], want)
				}
			}
			if o := f.Thresholds[0]; o.Error != "" || !strings.Contains(o.Note, tt.outcome) {
				t.Errorf("outcome %+v; want note %q", o, tt.outcome)
			}
			if o := f.Thresholds[0]; tt.verdict != runs.VerdictInconclusive && (o.Estimate == nil || o.Estimate.Seconds != 12) {
				t.Errorf("estimate %+v, want one over 12 seconds (the run's; the pool has more)", o.Estimate)
			}
		})
	}
}
