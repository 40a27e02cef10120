// Package delay sleeps until deadlines, precisely or cheaply. Go's timers wake
// up to about a millisecond late on Linux (the netpoller waits in whole
// milliseconds), which adds ~0.8 ms to every delay=20ms reply of the echo
// server. The precise Sleeper waits on a timer until shortly before the
// deadline and sleeps the rest with nanosleep (tens of microseconds late),
// at the price of holding an OS thread and its P for that last stretch. The
// timer Sleeper never holds a P: the agent paces with it, because a P held in
// nanosleep delays the goroutines that read responses (by up to the runtime's
// 10 ms sysmon period), which costs more accuracy than the timer's lateness,
// and that lateness is measured anyway (the lag histogram).
package delay

import (
	"context"
	"time"
)

// coarseMargin is how long before the deadline the timer should fire; the
// remainder is slept precisely (blocking one OS thread for at most about this long).
const coarseMargin = 2 * time.Millisecond

// Sleep waits d, or until ctx is done (checked during the coarse part only);
// it reports whether it slept fully.
func Sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	return NewSleeper().Until(ctx, time.Now().Add(d))
}

// Sleeper waits for deadlines with one reusable timer, so a loop that sleeps
// before every request does not allocate. It is used by one goroutine at a time.
type Sleeper struct {
	timer   *time.Timer
	margin  time.Duration
	precise bool
}

// NewSleeper returns a precise Sleeper (timer, then nanosleep).
func NewSleeper() *Sleeper {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &Sleeper{timer: t, margin: coarseMargin, precise: true}
}

// NewTimerSleeper returns a Sleeper that only uses Go's timer: up to about a
// millisecond late, but it never blocks an OS thread (and its P) in a syscall.
func NewTimerSleeper() *Sleeper {
	s := NewSleeper()
	s.margin, s.precise = 0, false
	return s
}

// Until waits until deadline, or until ctx is done (checked during the coarse
// part only); it reports whether it slept fully. A past deadline returns at once.
func (s *Sleeper) Until(ctx context.Context, deadline time.Time) bool {
	if coarse := time.Until(deadline) - s.margin; coarse > 0 {
		s.timer.Reset(coarse) // Go ≥ 1.23: no stale tick can be pending after Stop or a receive
		select {
		case <-s.timer.C:
		case <-ctx.Done():
			s.timer.Stop()
			return false
		}
	}
	if rem := time.Until(deadline); rem > 0 && s.precise {
		preciseSleep(rem)
	}
	return ctx.Err() == nil
}
