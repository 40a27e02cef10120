package saturation

import (
	"context"
	"time"

	"github.com/barrage-dev/barrage/pkg/delay"
	fault "github.com/barrage-dev/barrage/pkg/echofault"
)

// Delayer delays every request of one listener by one saturation of the
// requests in flight on that listener: Base + Per × their time average
// over the last Window (or, ByRate, Base / (1 − Per·λ) at the listener's
// arrival rate λ), at most the limit. A request is in flight from its
// arrival to its End, its delay included, so the latency of a steady rate
// λ is Base / (1 − Per·λ) whatever the protocol. A nil Delayer delays
// nothing, so that a listener without saturation pays nothing.
type Delayer struct {
	sat     fault.Saturation
	limit   time.Duration
	load    *Tracker
	observe func(time.Duration)
}

// NewDelayer returns the Delayer of s with delays at most limit, or nil
// when s is not enabled. observe, when not nil, is told each delay (the
// injected-delay metric).
func NewDelayer(s fault.Saturation, limit time.Duration, observe func(time.Duration)) *Delayer {
	if !s.Enabled() {
		return nil
	}
	l := NewTracker()
	l.Average(time.Now()) // track from the start
	return &Delayer{sat: s, limit: limit, load: l, observe: observe}
}

// Visit is one request in flight; End it when its reply is sent.
type Visit struct {
	d       *Delayer
	tracked bool
}

// Arrive records the arrival of a request at now and returns how long it
// waits.
func (d *Delayer) Arrive(now time.Time) (time.Duration, Visit) {
	if d == nil {
		return 0, Visit{}
	}
	wait := d.load.Delay(d.sat, now, d.limit)
	return wait, Visit{d: d, tracked: d.load.Arrive(now)}
}

// Hold is Arrive now, then the wait; false when ctx ended first (the
// Visit must still End).
func (d *Delayer) Hold(ctx context.Context) (Visit, bool) {
	wait, v := d.Arrive(time.Now())
	if wait <= 0 {
		return v, true
	}
	if d.observe != nil {
		d.observe(wait)
	}
	return v, delay.Sleep(ctx, wait)
}

// End records the departure of the request at now.
func (v Visit) End(now time.Time) {
	if v.d != nil {
		v.d.load.Depart(now, v.tracked)
	}
}
