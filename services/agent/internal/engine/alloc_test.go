package engine_test

import (
	"context"
	"testing"

	"github.com/barrage-dev/barrage/services/agent/internal/cannedhttp"
	"github.com/barrage-dev/barrage/services/agent/internal/engine"
	"github.com/barrage-dev/barrage/services/agent/internal/httpclient"
)

const okResponse = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nServer-Timing: app;dur=1.25\r\n\r\nok"

// BenchmarkEngineHTTP1 measures the whole request path (engine loop, recorder,
// histograms, HTTP/1.1 client) per request; allocs/op tends to 0 as b.N grows
// (the run's fixed setup is amortised).
func BenchmarkEngineHTTP1(b *testing.B) {
	f, err := httpclient.New(httpclient.Options{URL: "http://" + cannedhttp.Serve(b, okResponse) + "/"})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	final, err := engine.Run(context.Background(), engine.Options{Factory: f, Connections: 2, Pacing: engine.Closed, Count: int64(b.N)})
	if err != nil {
		b.Fatal(err)
	}
	if final.Count != int64(b.N) {
		b.Fatalf("count %d, want %d", final.Count, b.N)
	}
}

// TestEngineRequestPathAllocations bounds the allocations of a whole run: the
// fixed setup (clients, recorders, histograms, snapshots) must not grow with
// the number of requests, reading a latency header included.
func TestEngineRequestPathAllocations(t *testing.T) {
	f, err := httpclient.New(httpclient.Options{URL: "http://" + cannedhttp.Serve(t, okResponse) + "/", LatencyHeader: "server-timing"})
	if err != nil {
		t.Fatal(err)
	}
	run := func(n int64) float64 {
		return testing.AllocsPerRun(1, func() {
			final, err := engine.Run(context.Background(), engine.Options{Factory: f, Connections: 2, Pacing: engine.Closed, Count: n, ServerLatency: true})
			if err != nil {
				t.Fatal(err)
			}
			if final.Server.Count() != n {
				t.Fatalf("%d server samples, want %d", final.Server.Count(), n)
			}
		})
	}
	small, large := run(200), run(5000)
	if extra := large - small; extra > 100 {
		t.Fatalf("4800 more requests cost %.0f more allocations (%.0f vs %.0f); want ~0 per request", extra, large, small)
	}
}
