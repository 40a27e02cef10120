//go:build accuracy

package accuracy_test

import (
	"testing"
	"time"

	"github.com/barrage-dev/barrage/pkg/spec"
)

// TestServerLatencyHeader: with the echo's -server-time-header and a 20 ms
// injected delay, the agent's server histogram (-latency-header) holds one
// sample per response, p50 ≈ 20 ms and at most the service time's p50, over
// HTTP/1.1 and h2c; a header the target does not send gives no samples.
func TestServerLatencyHeader(t *testing.T) {
	a := startEcho(t, "-server-time-header", "X-Server-Time")
	for _, url := range []string{httpURL(a, "delay=20ms"), "h2c://" + a.http + "/?delay=20ms"} {
		final := load(t, spec.Spec{URL: url, QPS: 50, Connections: 2, Duration: spec.Duration(2 * time.Second),
			LatencyHeader: "x-server-time"}, nil)
		if final.Count < 95 || final.Codes[200] != final.Count {
			t.Fatalf("%s: count %d codes %v, want ~100 all 200", url, final.Count, final.Codes)
		}
		if final.Server == nil || final.Server.Count() != final.Count {
			t.Fatalf("%s: server histogram %v, want %d samples", url, final.Server, final.Count)
		}
		server, service := final.Server.Percentile(50), final.Service.Percentile(50)
		if server < 19500*time.Microsecond || server > 23*time.Millisecond {
			t.Errorf("%s: server p50 %v, want within [19.5ms, 23ms]", url, server)
		}
		t.Logf("%s: %d requests, server p50 %v, service p50 %v", url, final.Count, server, service)
		if server > service {
			t.Errorf("%s: server p50 %v above the service p50 %v", url, server, service)
		}
	}
	final := load(t, spec.Spec{URL: httpURL(a, ""), QPS: 50, Connections: 1, Count: 20, LatencyHeader: "X-Not-Sent"}, nil)
	if final.Count != 20 || final.Server == nil || final.Server.Count() != 0 {
		t.Fatalf("missing header: count %d, server histogram %v; want 20 requests and no server samples", final.Count, final.Server)
	}
}
