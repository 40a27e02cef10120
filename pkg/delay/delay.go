// Package delay sleeps precisely: for the echo server's injected delays and
// the agent's send schedule. Go's timers wake up to about a millisecond late on
// Linux (the netpoller waits in whole milliseconds), which would add a
// systematic ~0.8 ms to every delay=20ms reply and to every paced send; here a
// timer waits until shortly before the deadline and nanosleep sleeps the rest,
// which is accurate to tens of microseconds.
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
type Sleeper struct{ timer *time.Timer }

// NewSleeper returns a Sleeper.
func NewSleeper() *Sleeper {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &Sleeper{timer: t}
}

// Until waits until deadline, or until ctx is done (checked during the coarse
// part only); it reports whether it slept fully. A past deadline returns at once.
func (s *Sleeper) Until(ctx context.Context, deadline time.Time) bool {
	if coarse := time.Until(deadline) - coarseMargin; coarse > 0 {
		s.timer.Reset(coarse) // Go ≥ 1.23: no stale tick can be pending after Stop or a receive
		select {
		case <-s.timer.C:
		case <-ctx.Done():
			s.timer.Stop()
			return false
		}
	}
	if rem := time.Until(deadline); rem > 0 {
		preciseSleep(rem)
	}
	return ctx.Err() == nil
}
