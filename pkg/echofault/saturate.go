package echofault

import (
	"fmt"
	"strings"
	"time"
)

// Saturation is the saturate parameter: a service whose latency grows with
// its load. A request is delayed by Base + Per × L, where L is the average
// number of HTTP requests in flight on the server over the last 200 ms (a
// time average, which the server keeps), clamped to the server's maximum
// delay, on top of any delay parameter.
//
// The model makes the knee computable whatever the arrival pattern. Under
// a steady rate λ (requests per second) with enough connections that
// nothing queues at the client, Little's law gives L = λ·W for the time
// average, and W = Base + Per·L, so
//
//	W = Base / (1 − Per·λ)   for Per·λ < 1,
//
// which grows without bound as λ approaches 1/Per. The highest rate whose
// latency stays under a target T is λ* = (1 − Base/T) / Per; e.g. Base 20
// ms, Per 20 ms, T 80 ms gives λ* = 37.5 requests per second. From a
// change of rate the latency settles in a few windows at a utilization
// Per·λ of 0.75, more slowly closer to 1.
//
// The model feeds back: time the server's host adds to a request (a
// scheduling stall) keeps it in flight longer, which raises L and delays
// the requests after it, 1/(1 − Per·λ) times over. ByRate ("BASE:PER:rate")
// drops the feedback: the delay is Base / (1 − Per·λ) with λ the arrival
// rate over the last second, the latency the in-flight model settles at,
// whatever time the host adds. It is the model for a knee that must not
// move with the host's load.
type Saturation struct {
	Base, Per time.Duration
	ByRate    bool
}

// Enabled reports whether the parameter was given.
func (s Saturation) Enabled() bool { return s.Base > 0 || s.Per > 0 }

// Delay is the delay of a request when load requests are in flight on
// average, at most limit.
func (s Saturation) Delay(load float64, limit time.Duration) time.Duration {
	if !s.Enabled() {
		return 0
	}
	d := float64(s.Base) + max(load, 0)*float64(s.Per)
	if d >= float64(limit) { // also keeps the conversion from overflowing
		return limit
	}
	return time.Duration(d)
}

// DelayAtRate is the delay of a request when requests arrive at rate per
// second: Base / (1 − Per·rate), the limit from Per·rate ≥ 1.
func (s Saturation) DelayAtRate(rate float64, limit time.Duration) time.Duration {
	if !s.Enabled() {
		return 0
	}
	u := s.Per.Seconds() * max(rate, 0)
	if u >= 1 {
		return limit
	}
	if d := float64(s.Base) / (1 - u); d < float64(limit) {
		return time.Duration(d)
	}
	return limit
}

// ParseSaturate parses "BASE:PER", two durations such as "5ms:2ms", or
// "BASE:PER:rate" for the model driven by the arrival rate. Each duration
// is clamped to [0, limit].
func ParseSaturate(s string, limit time.Duration) (Saturation, error) {
	b, p, ok := strings.Cut(s, ":")
	p, mode, byMode := strings.Cut(p, ":")
	base, err1 := time.ParseDuration(b)
	per, err2 := time.ParseDuration(p)
	if !ok || err1 != nil || err2 != nil || base < 0 || per < 0 || (byMode && mode != "rate") {
		return Saturation{}, fmt.Errorf("saturate %q: want BASE:PER durations such as 5ms:2ms, or BASE:PER:rate: %w", s, ErrSyntax)
	}
	return Saturation{Base: min(base, limit), Per: min(per, limit), ByRate: byMode}, nil
}
