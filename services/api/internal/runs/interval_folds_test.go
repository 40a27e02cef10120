package runs

import (
	"testing"
	"time"

	"github.com/barrage-dev/barrage/pkg/hist"
)

// encoded returns a histogram of the given latencies, encoded.
func encoded(t *testing.T, us ...int64) []byte {
	t.Helper()
	h := hist.New()
	for _, v := range us {
		h.RecordMicros(v)
	}
	b, err := h.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestFoldIntervals folds seconds 3, 4, 5 and 7 into windows of 3: 3-5
// and 6-8. Second 7 was stored before its percentiles were (migration
// 00030), so its service and lag figures come from its histograms.
func TestFoldIntervals(t *testing.T) {
	at := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	stored := func(second int, count int64, p99 float64, limited bool) Interval {
		return Interval{
			Second: second, Count: count, Errors: 1, RetCodes: map[string]int64{"200": count - 1, "503": 1},
			BytesReceived: 10 * count, Snapshots: 2, GeneratorLimited: limited, P50US: 100, P90US: 200, P99US: p99, MaxUS: 2 * p99,
			ServiceQ: &Quantiles{P50US: 90, P90US: 180, P99US: p99 - 10, MaxUS: 2*p99 - 10}, LagQ: &Quantiles{P99US: float64(second)},
			Iterations: Iterations{Started: count}, UpdatedAt: at.Add(time.Duration(second) * time.Second),
		}
	}
	old := Interval{Second: 7, Count: 3, RetCodes: map[string]int64{"200": 3}, P99US: 900, MaxUS: 950, Snapshots: 1,
		Service: encoded(t, 500, 600, 40_000), Lag: encoded(t, 5, 5, 70)}
	got, err := FoldIntervals([]Interval{stored(3, 10, 400, false), stored(4, 20, 700, true), stored(5, 30, 500, false), old}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("%d windows, want 2", len(got))
	}
	a, b := got[0], got[1]
	if a.Second != 3 || a.Seconds != 3 || a.Count != 60 || a.Errors != 3 || a.RetCodes["200"] != 57 || a.RetCodes["503"] != 3 ||
		a.BytesReceived != 600 || a.Snapshots != 6 || !a.GeneratorLimited || a.Iterations.Started != 60 {
		t.Errorf("window 3: %+v", a)
	}
	if a.P99US != 700 || a.MaxUS != 1400 || a.ServiceQ.P99US != 690 || a.ServiceQ.P50US != 90 || a.LagQ.P99US != 5 {
		t.Errorf("window 3: p99 %v max %v service p99 %v p50 %v lag p99 %v; want the largest second's 700, 1400, 690, 90, 5",
			a.P99US, a.MaxUS, a.ServiceQ.P99US, a.ServiceQ.P50US, a.LagQ.P99US)
	}
	if !a.UpdatedAt.Equal(at.Add(5 * time.Second)) {
		t.Errorf("window 3 updated at %v, want its latest second's", a.UpdatedAt)
	}
	// The histogram's figures are HDR-rounded: within 1 %.
	if b.Second != 6 || b.Seconds != 1 || b.Count != 3 || b.GeneratorLimited || b.P99US != 900 ||
		b.ServiceQ.MaxUS < 39_600 || b.ServiceQ.MaxUS > 40_400 || b.LagQ.MaxUS < 69 || b.LagQ.MaxUS > 71 {
		t.Errorf("window 6: %+v, service %+v, lag %+v", b, *b.ServiceQ, *b.LagQ)
	}
	if _, err := FoldIntervals([]Interval{{Second: 1, Service: []byte("not a histogram")}}, 2); err == nil {
		t.Error("a second with a broken histogram folded without an error")
	}
}
