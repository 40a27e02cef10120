//go:build accuracy

package accuracy_test

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/services/agent/internal/engine"
	"github.com/barrage-dev/barrage/services/agent/internal/plan"
	"github.com/barrage-dev/barrage/services/agent/internal/report"
	"github.com/barrage-dev/barrage/services/agent/internal/request"
)

// load runs a spec through the same wiring as `barrage-agent load`.
func load(t *testing.T, s spec.Spec, sink engine.Sink) *engine.Snapshot {
	t.Helper()
	return loadDialing(t, s, nil, sink)
}

// loadDialing is load with every connection dialed by dial (nil: directly).
func loadDialing(t *testing.T, s spec.Spec, dial request.DialFunc, sink engine.Sink) *engine.Snapshot {
	t.Helper()
	s.Normalize()
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	f, err := plan.NewFactory(s, []byte(s.Payload), dial, nil)
	if err != nil {
		t.Fatal(err)
	}
	opts := plan.EngineOptions(s, f)
	opts.Sink = sink
	final, err := engine.Run(runCtx(t), opts)
	if err != nil {
		t.Fatal(err)
	}
	return final
}

// TestDelayPercentiles: every answer is held 20 ms, so each service-time
// percentile is 20 ms plus the machine's noise, which only ever adds. One
// run is judged, with bounds measured on this 2-vCPU VM: idle, p50 20.3 ms,
// p90 20.4–20.9 ms, p99 21–25 ms; with the load average at 11 (four other
// builds and test suites running), 12 runs gave p50 20.30–20.37 ms, p90
// 20.4–22.6 ms and p99 21–39 ms (scheduler wake-ups: 3 of 300 requests).
// So p50 gets 1.5 ms, p90 5 ms and p99 30 ms of room; a delay measured
// twice (40 ms) or not at all fails every bound.
func TestDelayPercentiles(t *testing.T) {
	a := startEcho(t)
	final := load(t, spec.Spec{URL: httpURL(a, "delay=20ms"), QPS: 100, Connections: 4, Duration: spec.Duration(3 * time.Second)}, nil)
	if final.Count < 297 || final.Codes[200] != final.Count {
		t.Fatalf("count %d codes %v, want 300 all 200", final.Count, final.Codes)
	}
	for _, b := range []struct {
		p     float64
		upper time.Duration
	}{{50, 21500 * time.Microsecond}, {90, 25 * time.Millisecond}, {99, 50 * time.Millisecond}} {
		if got := final.Service.Percentile(b.p); got < 20*time.Millisecond || got > b.upper {
			t.Errorf("service p%g = %v, want within [20ms, %v]", b.p, got, b.upper)
		}
	}
}

// stallNth is a target that answers at once, except its nth request
// (counted from 1), which it holds for stall: a stall that is certain,
// where an echo's delay=1s:2 is random.
func stallNth(t *testing.T, n int64, stall time.Duration) string {
	t.Helper()
	var seen atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if seen.Add(1) == n {
			time.Sleep(stall)
		}
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestCoordinatedOmission: 50 qps on one connection for 4 s, and request
// 50 (sent about 1 s in) held for 1 s. The 49 requests meant for that second
// queue behind it and go out back to back when it ends, so the backlog's
// response times fall evenly from about 0.98 s to 0.02 s, and so do their
// lags; their service times stay those of a quick loopback answer.
//
// The bounds: a loopback answer takes 0.3 ms here at p50, a few ms when the
// other core is busy; the stall's 1 s and the schedule's 20 ms steps dwarf
// both, so each figure gets 100 ms of room (the backlog's rank figures
// move by 20 ms per request).
func TestCoordinatedOmission(t *testing.T) {
	url := stallNth(t, 50, time.Second)
	final := load(t, spec.Spec{URL: url, QPS: 50, Connections: 1, Duration: spec.Duration(4 * time.Second)}, nil)
	within := func(name string, got, lo, hi time.Duration) {
		t.Helper()
		if got < lo || got > hi {
			t.Errorf("%s = %v, want within [%v, %v]", name, got, lo, hi)
		}
	}
	t.Logf("count %d; service max %v p99 %v; response max %v p99 %v p90 %v p50 %v; lag max %v p90 %v", final.Count,
		final.Service.Max(), final.Service.Percentile(99), final.Response.Max(), final.Response.Percentile(99),
		final.Response.Percentile(90), final.Response.Percentile(50), final.Lag.Max(), final.Lag.Percentile(90))
	// Every request of the schedule was sent: the backlog drained in a few ms.
	if final.Count < 199 || final.Count > 201 || final.Codes[200] != final.Count {
		t.Fatalf("count %d codes %v, want 200 all 200", final.Count, final.Codes)
	}
	// The stalled request alone took a second to answer.
	within("service max", final.Service.Max(), time.Second, 1100*time.Millisecond)
	within("service p99", final.Service.Percentile(99), 0, 100*time.Millisecond)
	// 50 of 200 responses (25 %) were slow: the stalled one and its
	// backlog. The 2nd slowest (p99) waited about 0.98 s; the 20th (p90)
	// about 0.62 s (1 s − 19 × 20 ms).
	within("response max", final.Response.Max(), time.Second, 1100*time.Millisecond)
	within("response p99", final.Response.Percentile(99), 880*time.Millisecond, 1080*time.Millisecond)
	within("response p90", final.Response.Percentile(90), 520*time.Millisecond, 720*time.Millisecond)
	within("response p50", final.Response.Percentile(50), 0, 100*time.Millisecond)
	// The first of the backlog was meant to go 20 ms after the stalled one
	// and went when it ended: a lag of about 0.98 s.
	within("lag max", final.Lag.Max(), 880*time.Millisecond, 1080*time.Millisecond)
	within("lag p90", final.Lag.Percentile(90), 500*time.Millisecond, 700*time.Millisecond)
}

func TestPacing(t *testing.T) {
	a := startEcho(t)
	progress := &report.Progress{Response: true}
	final := load(t, spec.Spec{URL: httpURL(a, ""), QPS: 1000, Connections: 4, Duration: spec.Duration(5 * time.Second)}, progress)
	if final.Count < 4950 || final.Count > 5050 {
		t.Errorf("count %d, want 5000 ± 1%%", final.Count)
	}
	intervals := progress.Intervals()
	if len(intervals) < 5 {
		t.Fatalf("%d intervals, want 5 full seconds", len(intervals))
	}
	for i, iv := range intervals[:5] {
		if iv.Count < 950 || iv.Count > 1050 {
			t.Errorf("second %d: %d requests, want 1000 ± 5%%", i+1, iv.Count)
		}
	}
}
