package runs

import (
	"testing"
	"time"

	"github.com/barrage-dev/barrage/pkg/hist"
)

func TestLatencyOf(t *testing.T) {
	t.Parallel()
	if l, err := LatencyOf(nil); err != nil || l != (Latency{}) {
		t.Errorf("LatencyOf(nil) = %+v, %v", l, err)
	}
	if _, err := LatencyOf([]byte("not a histogram")); err == nil {
		t.Error("LatencyOf accepted garbage")
	}
	h := hist.New()
	for v := int64(1); v <= 1000; v++ {
		h.RecordMicros(v)
	}
	enc, err := h.Encode()
	if err != nil {
		t.Fatal(err)
	}
	l, err := LatencyOf(enc)
	if err != nil {
		t.Fatal(err)
	}
	want := Latency{Count: 1000, MinUS: 1, AvgUS: l.AvgUS, StdDevUS: l.StdDevUS, P50US: 500, P75US: 750, P90US: 900, P99US: 990, P999US: 999, MaxUS: 1000}
	if l != want || l.AvgUS < 500 || l.AvgUS > 501 || l.StdDevUS < 288 || l.StdDevUS > 289 {
		t.Errorf("LatencyOf = %+v, want %+v", l, want)
	}
}

func TestResultQPS(t *testing.T) {
	t.Parallel()
	if q := (Result{Count: 300, Duration: 3 * time.Second}).QPS(); q != 100 {
		t.Errorf("QPS = %v", q)
	}
	if q := (Result{Count: 300}).QPS(); q != 0 {
		t.Errorf("QPS without a duration = %v", q)
	}
}
