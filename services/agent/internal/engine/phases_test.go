package engine

import (
	"testing"
	"time"

	"github.com/barrage-dev/barrage/services/agent/internal/request"
)

// TestPhaseHistsRecord: connection phases go in only for a request that
// opened its connection; waiting runs from the later of the send and the
// connection's readiness to the first byte, receiving from there to done;
// a request without a first byte has neither; merging adds counts.
func TestPhaseHistsRecord(t *testing.T) {
	t.Parallel()
	t0 := time.Now()
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	var ph PhaseHists
	// Opened its connection: 2 ms connect, 3 ms TLS, ready at 5 ms.
	opened := request.Phases{Ready: at(5), FirstByte: at(25)}
	opened.Open(request.PhaseConnect, 2*time.Millisecond)
	opened.Open(request.PhaseTLS, 3*time.Millisecond)
	ph.record(&opened, at(0), at(26))
	// Kept alive: sent at 30 ms, on a connection ready long before.
	ph.record(&request.Phases{Ready: at(1), FirstByte: at(40)}, at(30), at(44))
	// No response at all.
	ph.record(&request.Phases{}, at(50), at(60))
	for _, c := range []struct {
		p     request.Phase
		count int64
		min   time.Duration
		max   time.Duration
	}{
		{request.PhaseConnect, 1, 2 * time.Millisecond, 2 * time.Millisecond},
		{request.PhaseTLS, 1, 3 * time.Millisecond, 3 * time.Millisecond},
		{request.PhaseWaiting, 2, 10 * time.Millisecond, 20 * time.Millisecond},
		{request.PhaseReceiving, 2, time.Millisecond, 4 * time.Millisecond},
	} {
		h := ph.Recorded(c.p)
		if h == nil || h.Count() != c.count || !within(h.Min(), c.min) || !within(h.Max(), c.max) {
			t.Errorf("%s: %v; want %d values %v..%v", c.p, h, c.count, c.min, c.max)
		}
	}
	if ph.Recorded(request.PhaseDNS) != nil {
		t.Error("a DNS phase without any lookup")
	}
	var sum PhaseHists
	if err := sum.add(&ph); err != nil {
		t.Fatal(err)
	}
	if err := sum.add(&ph); err != nil {
		t.Fatal(err)
	}
	if n := sum.Recorded(request.PhaseWaiting).Count(); n != 4 {
		t.Errorf("merged waiting count %d, want 4", n)
	}
	ph.reset()
	if ph.Recorded(request.PhaseConnect) != nil {
		t.Error("reset left the connect phase")
	}
}

// within reports whether got is want within the histograms' 0.1 %.
func within(got, want time.Duration) bool {
	d := got - want
	return d >= -want/1000 && d <= want/1000
}

// BenchmarkRecordPhases is the recorder's cost per request with and
// without phases: "none" is a protocol without them (what every request
// cost before), "keep-alive" adds waiting and receiving, "opened" the
// connect and TLS phases of a request that opened its connection.
func BenchmarkRecordPhases(b *testing.B) {
	t0 := time.Now()
	opened := request.Phases{Ready: t0.Add(time.Millisecond), FirstByte: t0.Add(3 * time.Millisecond)}
	opened.Open(request.PhaseConnect, 200*time.Microsecond)
	opened.Open(request.PhaseTLS, 800*time.Microsecond)
	for _, bc := range []struct {
		name string
		ph   request.Phases
	}{
		{"none", request.Phases{}},
		{"keep-alive", request.Phases{Ready: t0.Add(-time.Second), FirstByte: t0.Add(2 * time.Millisecond)}},
		{"opened", opened},
	} {
		b.Run(bc.name, func(b *testing.B) {
			r := newRecorder(false, 0, t0, nil)
			res := request.Result{Code: 200, OK: true, Sent: 80, Received: 120, Phases: bc.ph}
			sent, done := t0.Add(time.Millisecond), t0.Add(3500*time.Microsecond)
			r.record(res, -1, t0, sent, done, nil) // the histograms are made once
			b.ReportAllocs()
			for b.Loop() {
				r.record(res, -1, t0, sent, done, nil)
			}
		})
	}
}
