package resultsync

import (
	"context"
	"log/slog"
	"time"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
)

// claimBatch is the most due sources one tick claims.
const claimBatch = 10

// Loop syncs due sources every tick until ctx ends. Each server runs one;
// a source is claimed by one of them (ClaimDue moves its next run on in
// the claiming statement) and its sync refuses to start while another
// runs.
func (s *Syncer) Loop(ctx context.Context, tick time.Duration) {
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			s.RunDue(ctx)
		}
	}
}

// RunDue claims the sources that are due and syncs them one by one.
func (s *Syncer) RunDue(ctx context.Context) {
	due, err := s.store.ClaimDue(ctx, s.now().UTC(), claimBatch)
	if err != nil {
		s.opts.Log.ErrorContext(ctx, "claim due sync sources", slog.Any("err", err))
		return
	}
	for i := range due {
		src := due[i]
		if _, err := s.Sync(ctx, src, TriggerSchedule); err != nil && !apperr.Is(err, apperr.Conflict) {
			s.opts.Log.ErrorContext(ctx, "scheduled sync", slog.String("source", src.ID.String()), slog.Any("err", err))
		}
	}
}
