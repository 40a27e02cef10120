package saturation

import (
	"math"
	"testing"
	"time"
)

func TestLoadTrackerAveragesOverTheWindow(t *testing.T) {
	t.Parallel()
	l := NewTracker()
	t0 := l.start.Add(time.Second)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	if got := l.Average(t0); got != 0 || !l.on.Load() {
		t.Fatalf("first call: %v, tracking %v; want 0 and on", got, l.on.Load())
	}
	if untracked := (&Tracker{start: l.start}).Arrive(t0); untracked {
		t.Fatal("a tracker that is off tracked an arrival")
	}
	if got := l.Average(t0); got != 0 {
		t.Fatalf("nothing in flight: %v", got)
	}
	a, b := l.Arrive(t0), l.Arrive(t0)
	l.Depart(at(100), b)
	// A in flight 200 ms, B 100 ms, over 200 ms: 1.5 on average.
	if got := l.Average(at(200)); math.Abs(got-1.5) > 1e-9 {
		t.Fatalf("average at 200 ms = %v, want 1.5", got)
	}
	// The window moved past B: only A, for the whole of it.
	if got := l.Average(at(400)); math.Abs(got-1) > 1e-9 {
		t.Fatalf("average at 400 ms = %v, want 1", got)
	}
	l.Depart(at(500), a)
	c := l.Arrive(at(550))
	l.Depart(at(600), c)
	// Over [400, 700]: A 100 ms, C 50 ms → 150 / 300.
	if got := l.Average(at(700)); math.Abs(got-0.5) > 1e-9 {
		t.Fatalf("average at 700 ms = %v, want 0.5", got)
	}
	if len(l.samples) > 10 {
		t.Errorf("%d samples kept", len(l.samples))
	}
}
