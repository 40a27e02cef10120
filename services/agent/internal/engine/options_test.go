package engine

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/services/agent/internal/request"
)

// concurrencyFactory makes clients that take 30 ms and record how many
// requests were in progress at once.
type concurrencyFactory struct {
	sleepFactory
	inFlight, peak atomic.Int64
}

func (f *concurrencyFactory) NewClient(context.Context, int) (request.Client, error) {
	return &concurrencyClient{f: f}, nil
}

type concurrencyClient struct{ f *concurrencyFactory }

func (c *concurrencyClient) Do(ctx context.Context) request.Result {
	n := c.f.inFlight.Add(1)
	defer c.f.inFlight.Add(-1)
	for {
		p := c.f.peak.Load()
		if n <= p || c.f.peak.CompareAndSwap(p, n) {
			break
		}
	}
	t := time.NewTimer(30 * time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
	return request.Result{Code: 200, OK: true}
}
func (c *concurrencyClient) Close() error { return nil }

func TestBurstSendsTogether(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		burst    int
		peakLow  int64
		peakHigh int64
	}{
		// 20 qps: a request every 50 ms, each taking 30 ms, so without bursts
		// they rarely overlap (2 at most on an idle machine; late timers of a
		// loaded one have bunched 3); in bursts of 5, every 250 ms, all 5 do.
		{"no burst", 0, 1, 4},
		{"burst of 5", 5, 5, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := &concurrencyFactory{}
			final := mustRun(t, context.Background(), Options{Factory: f, Connections: 5, Pacing: Open, QPS: 20, Count: 20, Burst: tt.burst})
			if final.Count != 20 {
				t.Fatalf("count %d, want 20", final.Count)
			}
			if p := f.peak.Load(); p < tt.peakLow || p > tt.peakHigh {
				t.Fatalf("peak concurrency %d, want %d to %d", p, tt.peakLow, tt.peakHigh)
			}
		})
	}
}

func TestBurstKeepsTheRate(t *testing.T) {
	t.Parallel()
	sink := &collectSink{}
	f := &sleepFactory{latency: func(int64) time.Duration { return time.Millisecond }}
	final := mustRun(t, context.Background(), Options{
		Factory: f, Connections: 10, Pacing: Open, QPS: 100, Burst: 10, Duration: 2 * time.Second, Sink: sink,
	})
	if final.Count < 190 || final.Count > 200 {
		t.Fatalf("count %d, want 200 (100 qps for 2 s) within 5%%", final.Count)
	}
	for i, s := range sink.snaps[:2] {
		if s.Count < 80 || s.Count > 120 {
			t.Errorf("second %d: %d requests, want 100 ± 20", i, s.Count)
		}
	}
}

// droppingClient loses its connection after every response, like HTTP/1.0,
// and takes 100 ms to connect again.
type droppingClient struct {
	sleepClient
	connected bool
	connects  *atomic.Int64
}

func (c *droppingClient) Connect(context.Context) error {
	if !c.connected {
		time.Sleep(100 * time.Millisecond)
		c.connects.Add(1)
		c.connected = true
	}
	return nil
}

func (c *droppingClient) Do(ctx context.Context) request.Result {
	_ = c.Connect(ctx) // as a real client dials when it has no connection
	c.connected = false
	return c.sleepClient.Do(ctx)
}

type droppingFactory struct {
	sleepFactory
	connects atomic.Int64
}

func (f *droppingFactory) NewClient(context.Context, int) (request.Client, error) {
	return &droppingClient{sleepClient: sleepClient{f: &f.sleepFactory}, connects: &f.connects}, nil
}

func TestPrefetchReconnectsOutsideTheMeasure(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		prefetch bool
		connects [2]int64
	}{
		// 2 connections, 6 requests: 2 connects before the start, then one
		// per later request: 4, in the requests without prefetch, and after
		// the responses with it (not after the last ones, though a
		// connection may reconnect for a request the other one then takes).
		{"without prefetch the reconnect is measured", false, [2]int64{6, 6}},
		{"with prefetch it is not", true, [2]int64{6, 7}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := &droppingFactory{}
			final := mustRun(t, context.Background(), Options{Factory: f, Connections: 2, Pacing: Closed, Count: 6, Prefetch: tt.prefetch})
			if final.Count != 6 {
				t.Fatalf("count %d, want 6", final.Count)
			}
			if got := f.connects.Load(); got < tt.connects[0] || got > tt.connects[1] {
				t.Fatalf("%d connects, want %d to %d", got, tt.connects[0], tt.connects[1])
			}
			worst := final.Service.Max()
			if tt.prefetch && worst >= 100*time.Millisecond {
				t.Fatalf("service max %v includes a 100 ms reconnect", worst)
			}
			if !tt.prefetch && worst < 100*time.Millisecond {
				t.Fatalf("service max %v: the reconnect in the request was not measured", worst)
			}
		})
	}
}
