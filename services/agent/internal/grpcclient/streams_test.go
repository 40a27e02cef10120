package grpcclient

import (
	"testing"
	"time"

	"github.com/barrage-dev/barrage/services/agent/internal/engine"
)

// TestStreamsShareConnections: with c connections and s streams the engine
// runs c×s callers over exactly c HTTP/2 connections, all c×s calls in flight
// at once, and every connection is closed when the run ends.
func TestStreamsShareConnections(t *testing.T) {
	t.Parallel()
	const delay = 40 * time.Millisecond
	tests := []struct {
		name             string
		conns, streams   int
		wantMaxInFlight  int
		wantAcceptedConn int64
	}{
		{"c2 s4", 2, 4, 8, 2},
		{"c3 s1", 3, 1, 3, 3},
		{"c1 s5", 1, 5, 5, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ts := startTestServer(t, serverOptions{})
			f, err := New(Options{Target: ts.addr, Mode: ModePing, PingDelay: delay, Streams: tt.streams})
			if err != nil {
				t.Fatal(err)
			}
			callers := tt.conns * tt.streams
			calls := int64(10 * callers)
			final, err := engine.Run(t.Context(), engine.Options{
				Factory: f, Connections: callers, Pacing: engine.Closed, Count: calls,
			})
			if err != nil {
				t.Fatal(err)
			}
			if final.Count != calls || final.Codes[CodeServing] != calls {
				t.Fatalf("count %d codes %v, want %d SERVING", final.Count, final.Codes, calls)
			}
			if got := ts.accepted.Load(); got != tt.wantAcceptedConn {
				t.Errorf("server accepted %d connections, want %d", got, tt.wantAcceptedConn)
			}
			ts.ping.mu.Lock()
			maxInFlight := ts.ping.maxInFlight
			ts.ping.mu.Unlock()
			if maxInFlight != tt.wantMaxInFlight {
				t.Errorf("at most %d pings in flight, want %d (connections × streams)", maxInFlight, tt.wantMaxInFlight)
			}
			if m := f.pool.open(); m != 0 {
				t.Errorf("%d connections still open after the run", m)
			}
		})
	}
}

// TestStreamsSequencesPerCaller: callers that share a connection keep their
// own ping sequence, so every reply matches its request.
func TestStreamsSequencesPerCaller(t *testing.T) {
	t.Parallel()
	ts := startTestServer(t, serverOptions{})
	f, err := New(Options{Target: ts.addr, Mode: ModePing, Streams: 3})
	if err != nil {
		t.Fatal(err)
	}
	clients := make([]*client, 3)
	for i := range clients {
		c, err := f.NewClient(t.Context(), i)
		if err != nil {
			t.Fatal(err)
		}
		clients[i] = c.(*client)
	}
	if clients[0].cc != clients[2].cc {
		t.Fatal("clients 0 and 2 of 3 streams have different connections")
	}
	for round := range 3 {
		for i, c := range clients {
			if res := c.Do(t.Context()); !res.OK || c.seq != int64(round+1) {
				t.Fatalf("round %d client %d: %s seq %d", round, i, f.CodeName(res.Code), c.seq)
			}
		}
	}
	// The connection stays open until its last client closes.
	for _, c := range clients[:2] {
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if res := clients[2].Do(t.Context()); !res.OK {
		t.Fatalf("last client after the others closed: %s", f.CodeName(res.Code))
	}
	if err := clients[2].Close(); err != nil {
		t.Fatal(err)
	}
	if res := clients[2].Do(t.Context()); res.OK {
		t.Fatal("a call succeeded after every client closed")
	}
	if got := ts.accepted.Load(); got != 1 {
		t.Errorf("server accepted %d connections, want 1", got)
	}
}

// open is the number of connections the pool holds.
func (p *connPool) open() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.conns)
}
