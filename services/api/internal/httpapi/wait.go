package httpapi

import (
	"context"
	"time"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/live"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// Settings of POST /runs?wait=.
const (
	// maxWait bounds ?wait=: longer waits poll again.
	maxWait = 15 * time.Minute
	// waitPollEvery is how often a waiting request reads its run's status;
	// the hub's final events make it read sooner.
	waitPollEvery = 500 * time.Millisecond
)

// parseWait reads ?wait=, a Go duration from 0 to maxWait; absent is 0.
func parseWait(v *string) (time.Duration, error) {
	if v == nil {
		return 0, nil
	}
	d, err := time.ParseDuration(*v)
	if err != nil {
		return 0, apperr.Invalidf("wait", "must be a duration such as 60s or 5m, not %q", *v)
	}
	if d < 0 || d > maxWait {
		return 0, apperr.Invalidf("wait", "must be between 0s and %s", maxWait)
	}
	return d, nil
}

// waitRun waits up to wait for r to reach a terminal status, reading its
// status every waitPollEvery and whenever the hub says a shard sent its
// final snapshot. It returns the run as it last read it and whether it
// ended. The wait also ends, without error, when the client leaves or the
// server shuts down (the hub closes).
func (s *server) waitRun(ctx context.Context, r runs.Run, wait time.Duration) (runs.Run, bool, error) {
	if r.Status.Terminal() {
		return r, true, nil
	}
	w, r, err := s.svc.Measures.Watch(ctx, principal(ctx), r.ID)
	if err != nil {
		return r, false, err
	}
	if r.Status.Terminal() {
		return r, true, nil
	}
	// Without a hub, the nil channels never fire and polling alone
	// notices the end.
	var (
		sub       *live.Subscription
		hubEvents <-chan live.Event
		hubDone   <-chan struct{}
	)
	if s.svc.Live != nil {
		sub = s.svc.Live.Subscribe(r.ID)
		defer sub.Close()
		hubEvents, hubDone = sub.C(), sub.Done()
	}
	expire := time.NewTimer(wait)
	defer expire.Stop()
	poll := time.NewTicker(waitPollEvery)
	defer poll.Stop()
	for {
		select {
		case <-ctx.Done():
			return r, false, nil
		case <-hubDone:
			if !sub.Dropped() { // the server is shutting down
				return r, false, nil
			}
			hubEvents, hubDone = nil, nil // fell behind: poll alone
			continue
		case <-expire.C:
			return r, false, nil
		case e := <-hubEvents:
			if !e.Final { // an interval: the run goes on
				continue
			}
		case <-poll.C:
		}
		now, err := w.Run(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return r, false, nil
			}
			return r, false, err
		}
		r = now
		if r.Status.Terminal() {
			return r, true, nil
		}
	}
}
