// Package pacer computes when requests are meant to be sent: the schedules of
// open-loop runs (constant or linearly ramping rate, optional jitter) and the
// per-connection schedules of Fortio-style runs. It does not sleep or send;
// the engine asks it for intended send times, as offsets from the run start, and
// measures lateness against them.
package pacer

import (
	"math"
	"time"
)

// Schedule gives the intended send time of each request of a run.
type Schedule interface {
	// At returns the intended offset from the run start of request i (0-based),
	// and false once i is past the end of the run. It is safe for concurrent use
	// and does not allocate.
	At(i int64) (time.Duration, bool)
}

// Limits end a schedule; zero values mean no limit.
type Limits struct {
	// Count is the number of requests.
	Count int64
	// End is the offset past which nothing is scheduled.
	End time.Duration
}

func (l Limits) within(i int64, at time.Duration) bool {
	return (l.Count <= 0 || i < l.Count) && (l.End <= 0 || at < l.End)
}

// Constant schedules requests at a fixed rate.
type Constant struct {
	interval float64 // nanoseconds
	offset   time.Duration
	jitter   bool
	empty    bool // schedules nothing
	limits   Limits
}

// NewConstant returns a schedule of qps requests per second (qps > 0), the first
// at offset. With jitter each send time moves by up to ±10 % of the interval,
// deterministically per request, so the average rate is unchanged.
func NewConstant(qps float64, offset time.Duration, jitter bool, limits Limits) *Constant {
	return &Constant{interval: 1e9 / qps, offset: offset, jitter: jitter, limits: limits}
}

// Interval returns the time between two requests.
func (c *Constant) Interval() time.Duration { return time.Duration(c.interval) }

// At implements Schedule.
func (c *Constant) At(i int64) (time.Duration, bool) {
	if c.empty {
		return 0, false
	}
	ns := float64(i) * c.interval
	if c.jitter {
		ns += (unit(uint64(i)) - 0.5) * 0.2 * c.interval
	}
	at := c.offset + time.Duration(math.Max(ns, 0))
	return at, c.limits.within(i, at)
}

// Ramp schedules requests at a rate rising (or falling) linearly from From to To
// requests per second over Over, then holding To.
type Ramp struct {
	from, to float64
	over     float64 // seconds
	rampN    float64 // requests sent during the ramp
	limits   Limits
}

// NewRamp returns a linear ramp schedule; from ≥ 0, to > 0, over > 0.
func NewRamp(from, to float64, over time.Duration, limits Limits) *Ramp {
	T := over.Seconds()
	return &Ramp{from: from, to: to, over: T, rampN: (from + to) / 2 * T, limits: limits}
}

// At implements Schedule: the intended time of request i is where the integral of
// the rate reaches i.
func (r *Ramp) At(i int64) (time.Duration, bool) {
	n := float64(i)
	var t float64
	switch {
	case n >= r.rampN:
		t = r.over + (n-r.rampN)/r.to
	case r.to == r.from:
		t = n / r.from
	default:
		// n = from*t + (to-from)*t²/(2T)  ⇒  t = (-from + sqrt(from² + 2kn)) / k, k = (to-from)/T
		k := (r.to - r.from) / r.over
		t = (-r.from + math.Sqrt(r.from*r.from+2*k*n)) / k
	}
	at := time.Duration(t * 1e9)
	return at, r.limits.within(i, at)
}

// RateAt returns the scheduled rate at offset t, for reports.
func (r *Ramp) RateAt(t time.Duration) float64 {
	s := t.Seconds()
	if s >= r.over {
		return r.to
	}
	return r.from + (r.to-r.from)*s/r.over
}

// unit maps n to a number in [0, 1) by the splitmix64 finaliser: a cheap,
// stateless, well-spread hash, so jitter needs no shared random source.
func unit(n uint64) float64 {
	n += 0x9e3779b97f4a7c15
	n = (n ^ (n >> 30)) * 0xbf58476d1ce4e5b9
	n = (n ^ (n >> 27)) * 0x94d049bb133111eb
	n ^= n >> 31
	return float64(n>>11) / (1 << 53)
}

// PerConnection returns connection conn's schedule in Fortio pacing: each of
// conns connections sends qps/conns requests per second; with uniform, their
// starts are spread over one interval instead of all at once. count, if set, is
// split among connections with the remainder going to the first ones.
func PerConnection(qps float64, conns, conn int, uniform, jitter bool, limits Limits) *Constant {
	perConn := qps / float64(conns)
	var offset time.Duration
	if uniform {
		offset = time.Duration(float64(conn) * 1e9 / qps)
	}
	if limits.Count > 0 {
		share := limits.Count / int64(conns)
		if int64(conn) < limits.Count%int64(conns) {
			share++
		}
		if share == 0 {
			return &Constant{empty: true}
		}
		limits.Count = share
	}
	return NewConstant(perConn, offset, jitter, limits)
}

// Burst groups the requests of a schedule in bursts (Nighthawk's burst
// size): every request of a burst is due when the burst's first one is, so
// a burst goes out at once, and the schedule's average rate is unchanged.
type Burst struct {
	s    Schedule
	size int64
}

// NewBurst returns s in bursts of size requests; s itself when size < 2.
func NewBurst(s Schedule, size int) Schedule {
	if size < 2 {
		return s
	}
	return &Burst{s: s, size: int64(size)}
}

// At implements Schedule: request i is due with request i - i%size. It ends
// where s does, so a burst cut by the end or count of s is sent in part.
func (b *Burst) At(i int64) (time.Duration, bool) {
	if _, ok := b.s.At(i); !ok {
		return 0, false
	}
	return b.s.At(i - i%b.size)
}
