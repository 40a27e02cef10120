package saturation

import (
	"math"
	"testing"
	"time"

	fault "github.com/barrage-dev/barrage/pkg/echofault"
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

func TestTrackerRateCountsArrivalsOverTheLastSecond(t *testing.T) {
	t.Parallel()
	l := NewTracker()
	t0 := l.start.Add(time.Second)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	if got := l.Rate(t0); got != 0 || !l.on.Load() {
		t.Fatalf("first call: %v, tracking %v; want 0 and on", got, l.on.Load())
	}
	// 40 a second for 2 s, each arrival reading the rate as it comes.
	var last float64
	for ms := 0; ms < 2000; ms += 25 {
		l.Arrive(at(ms))
		last = l.Rate(at(ms))
		if ms < 100 && last != 0 {
			t.Fatalf("rate %v at %d ms: want 0 before a tenth of the window", last, ms)
		}
	}
	if math.Abs(last-40) > 1.5 {
		t.Fatalf("steady 40/s read %v", last)
	}
	// A pause, then 20 a second: after the window only the new rate counts.
	for ms := 5000; ms < 7000; ms += 50 {
		l.Arrive(at(ms))
		last = l.Rate(at(ms))
	}
	if math.Abs(last-20) > 1 {
		t.Fatalf("after a pause, 20/s read %v", last)
	}
	if len(l.counts) > 22 {
		t.Errorf("%d samples kept", len(l.counts))
	}
}

func TestTrackerDelayByRateIgnoresTimeInFlight(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	l := NewTracker()
	t0 := l.start.Add(time.Second)
	byRate := fault.Saturation{Base: 20 * ms, Per: 20 * ms, ByRate: true}
	inFlight := fault.Saturation{Base: 20 * ms, Per: 20 * ms}
	l.Rate(t0)
	// 25 a second, and no request ever departs (a stalled host): the
	// in-flight model's delay climbs, the rate model's stays 20 / (1 − 0.5).
	var got time.Duration
	for i := range 50 {
		now := t0.Add(time.Duration(i) * 40 * ms)
		l.Arrive(now)
		got = l.Delay(byRate, now, time.Second)
	}
	if want := 40 * ms; got < want-2*ms || got > want+2*ms {
		t.Errorf("rate model at 25/s: %v, want %v", got, want)
	}
	if stalled := l.Delay(inFlight, t0.Add(2*time.Second), time.Second); stalled < 500*ms {
		t.Errorf("in-flight model with 50 stuck: %v, want it far above", stalled)
	}
}
