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
	// waitPollEvery is how often a waiting request reads its run's status
	// when it has no hub to tell it: on a server without live streams, or
	// after its subscriber fell behind and was dropped.
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

// waitRun waits up to wait for r to reach a terminal status. It reads the
// run whenever the hub says a shard sent its final snapshot or the run
// ended: every writer of a run's status publishes it (package live), so
// with a hub it never polls. It subscribes before it reads, so that no end
// falls between the two. Without a hub, or once its subscriber fell behind
// and was dropped, it reads every waitPollEvery instead. It returns the run
// as it last read it and whether it ended. The wait also ends, without
// error, when the client leaves or the server shuts down (the hub closes).
func (s *server) waitRun(ctx context.Context, r runs.Run, wait time.Duration) (runs.Run, bool, error) {
	if r.Status.Terminal() {
		return r, true, nil
	}
	holdOpen(ctx, wait, s.writeTimeout)
	var ws waitSignals
	if s.svc.Live != nil {
		sub := s.svc.Live.Subscribe(r.ID)
		defer sub.Close()
		ws.sub, ws.events, ws.done = sub, sub.C(), sub.Done()
	} else {
		ws.startPolling()
	}
	defer ws.stop()
	w, r, err := s.svc.Measures.Watch(ctx, principal(ctx), r.ID)
	if err != nil || r.Status.Terminal() {
		return r, err == nil, err
	}
	expire := time.NewTimer(wait)
	defer expire.Stop()
	for {
		select {
		case <-ctx.Done():
			return r, false, nil
		case <-expire.C:
			return r, false, nil
		case <-ws.done:
			if !ws.sub.Dropped() { // the server is shutting down
				return r, false, nil
			}
			ws.events, ws.done = nil, nil // fell behind: read now, then poll
			ws.startPolling()
		case e := <-ws.events:
			if !e.Final { // an interval or a status on the way: the run goes on
				continue
			}
		case <-ws.polls:
		}
		now, err := w.Run(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return r, false, nil
			}
			return r, false, err
		}
		if r = now; r.Status.Terminal() {
			return r, true, nil
		}
	}
}

// waitSignals are what wakes a waiting request: the hub's events for its
// run, or, without them, a poll. A nil channel never fires.
type waitSignals struct {
	sub    *live.Subscription
	events <-chan live.Event
	done   <-chan struct{}
	poll   *time.Ticker
	polls  <-chan time.Time
}

// startPolling makes the wait read its run every waitPollEvery.
func (ws *waitSignals) startPolling() {
	ws.poll = time.NewTicker(waitPollEvery)
	ws.polls = ws.poll.C
}

// stop releases the poll, if there is one.
func (ws *waitSignals) stop() {
	if ws.poll != nil {
		ws.poll.Stop()
	}
}
