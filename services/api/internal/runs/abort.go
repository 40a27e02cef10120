package runs

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/pkg/threshold"
	"github.com/barrage-dev/barrage/services/api/internal/apperr"
)

// Totals are what a running run has counted so far, over its stored
// seconds.
type Totals struct {
	Count  int64
	Errors int64
	Codes  map[string]int64
}

// AbortStore is the storage the abort check needs.
type AbortStore interface {
	// AbortCandidates returns up to limit running runs that have an abort
	// threshold or abort_if_rate_not_held.
	AbortCandidates(ctx context.Context, limit int) ([]Run, error)
	// RunIntervals returns up to limit seconds of a run from second from
	// on, in order.
	RunIntervals(ctx context.Context, runID uuid.UUID, from, limit int) ([]Interval, error)
	// RunTotals sums a run's stored seconds.
	RunTotals(ctx context.Context, id uuid.UUID) (Totals, error)
	// MoveRun changes a run's status (see Store).
	MoveRun(ctx context.Context, m Move) (Run, error)
}

// Aborter stops running runs whose abort thresholds are crossed: each
// check sums what a run counted so far and, once an abort threshold has
// seen its number of requests and fails, stops the run as a user's stop
// would, recording the threshold. Several API servers may run one: a run
// is stopped once (the move from running to stopping happens once).
type Aborter struct {
	store AbortStore
	live  Notifier
	log   *slog.Logger
	now   func() time.Time
}

// maxAbortChecks is the most runs one check looks at.
const maxAbortChecks = 500

// NewAborter returns an Aborter over st that tells live (when not nil) of
// the runs it stops.
func NewAborter(st AbortStore, live Notifier, log *slog.Logger) *Aborter {
	return &Aborter{store: st, live: live, log: log, now: time.Now}
}

// Loop checks every tick until ctx ends.
func (a *Aborter) Loop(ctx context.Context, tick time.Duration) {
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := a.Check(ctx); err != nil && ctx.Err() == nil {
				a.log.ErrorContext(ctx, "abort check", slog.Any("err", err))
			}
		}
	}
}

// Check looks at every running run with an abort threshold once and
// returns the first error.
func (a *Aborter) Check(ctx context.Context) error {
	list, err := a.store.AbortCandidates(ctx, maxAbortChecks)
	if err != nil {
		return fmt.Errorf("find runs to check: %w", err)
	}
	for i := range list {
		if err := a.checkRun(ctx, &list[i]); err != nil {
			return err
		}
	}
	return nil
}

// checkRun stops r when one of its abort thresholds is crossed, or when
// it asked to hold its rate and did not.
func (a *Aborter) checkRun(ctx context.Context, r *Run) error {
	if r.Spec.AbortIfRateNotHeld {
		why, err := a.rateNotHeld(ctx, r)
		if err != nil {
			return err
		}
		if why != "" {
			return a.move(ctx, r, why, RateNotHeld)
		}
	}
	if len(r.Thresholds) == 0 {
		return nil
	}
	tot, err := a.store.RunTotals(ctx, r.ID)
	if err != nil {
		return fmt.Errorf("totals of run %s: %w", r.ID, err)
	}
	obs := threshold.Observed{Count: tot.Count, Errors: tot.Errors, Codes: tot.Codes}
	for _, text := range r.Thresholds {
		e, err := threshold.Parse(text)
		if err != nil || !e.Abort || tot.Count < e.AbortAfter {
			continue
		}
		o := e.Eval(obs, nil)
		if o.Pass || o.Error != "" {
			continue
		}
		return a.stop(ctx, r, e, o, tot.Count)
	}
	return nil
}

// stop moves r to stopping because e failed with outcome o.
func (a *Aborter) stop(ctx context.Context, r *Run, e threshold.Expr, o threshold.Outcome, count int64) error {
	why := fmt.Sprintf("aborted: %s was crossed after %d requests (observed %s)", e.String(), count, threshold.FormatValue(o.Observed, o.Unit))
	return a.move(ctx, r, why, e.String())
}

// move stops r as a user's stop would, recording why and what stopped it.
func (a *Aborter) move(ctx context.Context, r *Run, why, by string) error {
	ctl, err := json.Marshal(ControlMessage{RunID: r.ID, Action: "stop"})
	if err != nil {
		return fmt.Errorf("stop run %s: %w", r.ID, err)
	}
	moved, err := a.store.MoveRun(ctx, Move{RunID: r.ID, To: Stopping, At: a.now().UTC(), Control: ctl, Error: why, AbortedBy: by})
	if apperr.Is(err, apperr.Conflict) { // stopped or ended meanwhile
		return nil
	}
	if err != nil {
		return fmt.Errorf("stop run %s: %w", r.ID, err)
	}
	notify(a.live, moved)
	a.log.InfoContext(ctx, "run aborted", slog.String("run", r.ID.String()), slog.String("by", by), slog.String("why", why))
	return nil
}
