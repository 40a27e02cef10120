package searches

import (
	"testing"
	"time"

	"github.com/barrage-dev/barrage/pkg/hist"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// second returns one interval of n requests that each took d.
func second(tb testing.TB, s int, n int64, d time.Duration, errs int64) runs.Interval {
	tb.Helper()
	h := hist.New()
	for range n {
		h.Record(d)
	}
	enc, err := h.Encode()
	if err != nil {
		tb.Fatal(err)
	}
	return runs.Interval{Second: s, Count: n, Errors: errs, Response: enc, Service: enc,
		RetCodes: map[string]int64{"200": n - errs, "503": errs}}
}

func TestMergeSkipsWarmupAndJudges(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	ivs := []runs.Interval{
		second(t, 0, 100, 900*ms, 0), // warm-up: slow, must not count
		second(t, 1, 100, 10*ms, 0),
		second(t, 2, 100, 20*ms, 1),
		second(t, 3, 100, 2*time.Second, 0), // after the window
	}
	obs, err := merge(ivs, window{from: 1, n: 2})
	if err != nil {
		t.Fatal(err)
	}
	if obs.Count != 200 || obs.Errors != 1 || obs.QPS != 100 || obs.Codes["503"] != 1 {
		t.Fatalf("count %d errors %d qps %v codes %v", obs.Count, obs.Errors, obs.QPS, obs.Codes)
	}
	terms, err := ParseObjective("p(99) < 25ms and error_rate < 1%")
	if err != nil {
		t.Fatal(err)
	}
	var st Step
	judge(&st, obs, terms)
	if st.Status != StepPassed || st.P99US < 19000 || st.P99US > 21000 || st.P50US > 10100 {
		t.Fatalf("%+v", st)
	}
	terms, _ = ParseObjective("p(99) < 15ms and error_rate < 0.1%")
	judge(&st, obs, terms)
	if st.Status != StepFailed || st.Detail == "" || st.Outcomes[0].Pass || st.Outcomes[1].Pass {
		t.Fatalf("%+v", st)
	}
	empty, _ := merge(nil, window{from: 1, n: 2})
	judge(&st, empty, terms)
	if st.Status != StepFailed || st.Count != 0 {
		t.Fatalf("empty step: %+v", st)
	}
}
