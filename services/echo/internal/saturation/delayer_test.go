package saturation

import (
	"context"
	"testing"
	"time"

	fault "github.com/barrage-dev/barrage/pkg/echofault"
)

func TestDelayerGrowsWithTheRequestsInFlight(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	d := NewDelayer(fault.Saturation{Base: 10 * ms, Per: 20 * ms}, 100*ms, nil)
	t0 := d.load.start.Add(time.Second)
	at := func(n int) time.Time { return t0.Add(time.Duration(n) * ms) }
	wait, first := d.Arrive(t0)
	if wait != 10*ms || !first.tracked {
		t.Fatalf("alone: wait %v, tracked %v; want 10ms and tracked", wait, first.tracked)
	}
	visits := []Visit{first}
	for range 3 {
		_, v := d.Arrive(t0)
		visits = append(visits, v)
	}
	// Four in flight for the whole window: 10ms + 20ms × 4.
	wait, probe := d.Arrive(at(200))
	if wait != 90*ms {
		t.Fatalf("four in flight: wait %v, want 90ms", wait)
	}
	for _, v := range visits {
		v.End(at(200))
	}
	probe.End(at(200))
	// The window [200ms, 400ms] saw none: the base alone.
	if wait, _ := d.Arrive(at(400)); wait != 10*ms {
		t.Fatalf("none in the window: wait %v, want 10ms", wait)
	}
	// Eight in flight for a window (that one and seven more): 170 ms,
	// clamped to the limit.
	for range 7 {
		d.Arrive(at(400))
	}
	if wait, _ := d.Arrive(at(600)); wait != 100*ms {
		t.Fatalf("eight in flight: wait %v, want the 100ms limit", wait)
	}
}

func TestNilDelayerDelaysNothing(t *testing.T) {
	t.Parallel()
	d := NewDelayer(fault.Saturation{}, time.Second, nil)
	if d != nil {
		t.Fatalf("a saturation that is off gave %+v", d)
	}
	wait, v := d.Arrive(time.Now())
	if wait != 0 || v.d != nil {
		t.Fatalf("wait %v, visit %+v", wait, v)
	}
	if v, ok := d.Hold(t.Context()); !ok || v.d != nil {
		t.Fatalf("hold: %+v %v", v, ok)
	}
	v.End(time.Now())
}

func TestHoldReportsTheDelayAndStopsOnCancel(t *testing.T) {
	t.Parallel()
	var seen []time.Duration
	d := NewDelayer(fault.Saturation{Base: time.Millisecond}, time.Hour, func(w time.Duration) { seen = append(seen, w) })
	v, ok := d.Hold(t.Context())
	v.End(time.Now())
	if !ok || len(seen) != 1 || seen[0] != time.Millisecond {
		t.Fatalf("hold: %v, delays seen %v; want true and [1ms]", ok, seen)
	}
	slow := NewDelayer(fault.Saturation{Base: time.Hour}, time.Hour, nil)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	v, ok = slow.Hold(ctx)
	if ok || !v.tracked || slow.load.n.Load() != 1 {
		t.Fatalf("canceled hold: %v, tracked %v, %d in flight; want false, tracked, 1", ok, v.tracked, slow.load.n.Load())
	}
	v.End(time.Now())
	if n := slow.load.n.Load(); n != 0 {
		t.Fatalf("%d in flight after End", n)
	}
}
