package worker

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/barrage-dev/barrage/pkg/wire"
)

// outliveLastRun makes an agent with credentials, whose id is the same at
// every start, wait out the heartbeat of its previous process when that
// one died without deleting it: barrage-api counts an agent's shards lost
// when its heartbeat is missing, and a restarted agent beating under the
// same id at once would hide the loss of the shards the dead process ran.
// It waits for the old heartbeat to expire, then two more heartbeat
// periods so that the API's sweep (every second by default) sees it gone.
// Without credentials the id is new at every start and nothing is waited.
// It returns an error only when ctx ends first, and waits AgentTTL and a
// second at most for the old heartbeat.
func (w *Worker) outliveLastRun(ctx context.Context) error {
	if w.creds == nil {
		return nil
	}
	found := false
	// A heartbeat lives AgentTTL at most; past that, a Get that keeps
	// failing (NATS trouble) must not keep the agent from starting.
	deadline := time.Now().Add(wire.AgentTTL + time.Second)
	for time.Now().Before(deadline) {
		gctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		_, err := w.agents.Get(gctx, w.id)
		cancel()
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			break
		}
		if err != nil && ctx.Err() != nil {
			return ctx.Err()
		}
		if !found && err == nil {
			found = true
			w.log.Warn("the previous process of this agent left a heartbeat; waiting for it to expire so its shards are counted lost",
				slog.Duration("at_most", wire.AgentTTL))
		}
		if err := sleepCtx(ctx, wire.HeartbeatEvery/4); err != nil {
			return err
		}
	}
	if !found {
		return nil
	}
	return sleepCtx(ctx, 2*wire.HeartbeatEvery)
}

// sleepCtx sleeps for d or until ctx is done, whichever is first.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
