// Package saturation is the echo server's load-dependent latency (the
// saturate model of pkg/echofault): a Tracker keeps the time average of the
// requests in flight on one listener and their arrival rate, and a Delayer
// delays each request of a listener by one fixed saturation of either. The
// HTTP echo reads its Tracker with each request's own saturate parameter;
// the gRPC, TCP and UDP echoes share the Delayer of -saturate. It is not a
// rate limiter: nothing is refused, requests only wait longer.
package saturation

import (
	"sync"
	"sync/atomic"
	"time"

	fault "github.com/barrage-dev/barrage/pkg/echofault"
)

// Window is the span the average of the requests in flight is taken over.
const Window = 200 * time.Millisecond

// RateWindow is the span the arrival rate (the rate model) is taken over:
// long enough that a step of a few dozen requests per second reads within
// a few percent, which a delay of Base / (1 − Per·λ) near the knee needs.
const RateWindow = time.Second

// Tracker keeps the time integral of the requests in flight, so that a
// saturating request can read their time average over the last Window.
// The integral to t is Σ departures + n·t − Σ arrivals (times since start,
// n in flight now): two sums and a count, kept with atomics so the
// requests that do not saturate pay four atomic adds (the fourth counts
// the arrivals for Rate). Tracking starts with the first call to Average
// or Rate; a request counts when it arrived while tracking was on.
type Tracker struct {
	start          time.Time
	on             atomic.Bool
	sumArr, sumDep atomic.Int64 // nanoseconds since start
	n              atomic.Int64 // tracked requests in flight
	arrivals       atomic.Int64 // tracked requests so far

	mu      sync.Mutex
	samples []loadSample // oldest first, one every Window/8 at most
	counts  []rateSample // oldest first, one every RateWindow/20 at most
}

// loadSample is the integral at an instant.
type loadSample struct{ at, integral float64 }

// rateSample is the count of arrivals at an instant.
type rateSample struct {
	at       float64
	arrivals int64
}

// NewTracker returns a Tracker that is off until the first Average or Rate.
func NewTracker() *Tracker { return &Tracker{start: time.Now()} }

// Arrive records an arrival at now and reports whether it is tracked.
func (l *Tracker) Arrive(now time.Time) bool {
	if !l.on.Load() {
		return false
	}
	l.sumArr.Add(int64(now.Sub(l.start)))
	l.n.Add(1)
	l.arrivals.Add(1)
	return true
}

// Depart records the departure of a tracked request.
func (l *Tracker) Depart(now time.Time, tracked bool) {
	if tracked {
		l.sumDep.Add(int64(now.Sub(l.start)))
		l.n.Add(-1)
	}
}

// integral returns the integral of the requests in flight from the start
// to now, in request·nanoseconds.
func (l *Tracker) integral(now time.Time) float64 {
	t := float64(now.Sub(l.start))
	return float64(l.sumDep.Load()) + float64(l.n.Load())*t - float64(l.sumArr.Load())
}

// Average returns the time average of the requests in flight over the
// last Window (over what there is, right after tracking started), and
// turns tracking on.
func (l *Tracker) Average(now time.Time) float64 {
	if !l.on.Load() {
		l.on.Store(true)
		return 0
	}
	cur := loadSample{at: float64(now.Sub(l.start)), integral: l.integral(now)}
	l.mu.Lock()
	defer l.mu.Unlock()
	if k := len(l.samples); k == 0 || cur.at-l.samples[k-1].at >= float64(Window/8) {
		l.samples = append(l.samples, cur)
	}
	// Keep one sample at least a window old, and drop the older ones.
	drop := 0
	for drop+1 < len(l.samples) && cur.at-l.samples[drop+1].at >= float64(Window) {
		drop++
	}
	l.samples = l.samples[drop:]
	base := l.samples[0]
	if cur.at <= base.at {
		return float64(max(l.n.Load(), 0))
	}
	return max((cur.integral-base.integral)/(cur.at-base.at), 0)
}

// Rate returns the tracked arrivals per second over the last RateWindow,
// and turns tracking on. After a pause it counts from the first sample
// inside the window, so a new load reads its own rate within a tenth of
// the window; 0 until then.
func (l *Tracker) Rate(now time.Time) float64 {
	if !l.on.Load() {
		l.on.Store(true)
		return 0
	}
	cur := rateSample{at: float64(now.Sub(l.start)), arrivals: l.arrivals.Load()}
	l.mu.Lock()
	defer l.mu.Unlock()
	if k := len(l.counts); k == 0 || cur.at-l.counts[k-1].at >= float64(RateWindow/20) {
		l.counts = append(l.counts, cur)
	}
	drop := 0
	for drop+1 < len(l.counts) && cur.at-l.counts[drop].at > float64(RateWindow) {
		drop++
	}
	l.counts = l.counts[drop:]
	base := l.counts[0]
	if span := cur.at - base.at; span >= float64(RateWindow/10) {
		return float64(cur.arrivals-base.arrivals) / (span / float64(time.Second))
	}
	return 0
}

// Delay is the delay s gives a request arriving at now: from the average
// in flight, or from the arrival rate when s is ByRate; at most limit.
func (l *Tracker) Delay(s fault.Saturation, now time.Time, limit time.Duration) time.Duration {
	if s.ByRate {
		return s.DelayAtRate(l.Rate(now), limit)
	}
	return s.Delay(l.Average(now), limit)
}
