package searches

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/pkg/threshold"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// driver runs one search: a step's run, its verdict, the next rate, until
// the strategy is done, the search is canceled or a step cannot run.
type driver struct {
	svc      *Service
	p        *auth.Principal
	search   Search
	real     spec.Spec // the base spec with its secrets, to start each run
	terms    []threshold.Expr
	strategy *strategy
}

// errEnded is returned while waiting when the search is no longer running
// (canceled, maybe by another API process).
var errEnded = errors.New("the search ended")

// startRun starts the run of step i at qps.
func (d *driver) startRun(ctx context.Context, i int, qps float64) (Step, runs.Run, error) {
	sp := stepSpec(d.real, qps, d.search.Warmup+d.search.Step)
	name := d.search.Name
	if name == "" {
		name = "search " + d.search.ID.String()[:8]
	}
	r, _, err := d.svc.opts.Runs.Create(ctx, d.p, runs.Input{
		Project: d.search.ProjectID.String(), Spec: &sp, Source: runs.SourceAPI,
		Name:   fmt.Sprintf("%s: step %d at %s qps", name, i+1, formatQPS(qps)),
		Labels: map[string]string{"search": d.search.ID.String(), "search_step": strconv.Itoa(i)},
	})
	if err != nil {
		return Step{}, runs.Run{}, err //nolint:wrapcheck // the run's own problem, shown as the search's
	}
	return Step{Index: i, QPS: qps, RunID: r.ID, Status: StepRunning, StartedAt: d.svc.now().UTC()}, r, nil
}

// run drives the search from its first step, already started.
func (d *driver) run(ctx context.Context, st Step) {
	log := d.svc.opts.Log.With(slog.String("search", d.search.ID.String()))
	for {
		st = d.finishStep(ctx, st)
		if ctx.Err() != nil {
			return // canceled (the search is ended already) or the API is stopping
		}
		if err := d.svc.opts.Store.SaveStep(ctx, d.search.ID, st); err != nil {
			log.Error("save search step", slog.Any("error", err))
		}
		if st.Status == StepError {
			d.end(ctx, Failed, "", fmt.Sprintf("step %d at %s qps: %s", st.Index+1, formatQPS(st.QPS), st.Detail))
			return
		}
		d.search.Steps = append(d.search.Steps, st)
		next, done, out := d.strategy.record(st.QPS, st.Status == StepPassed)
		if done {
			d.end(ctx, Completed, out, d.message(out))
			return
		}
		var err error
		if st, _, err = d.startRun(ctx, st.Index+1, next); err != nil {
			d.end(ctx, Failed, "", fmt.Sprintf("start step %d at %s qps: %v", len(d.search.Steps)+1, formatQPS(next), err))
			return
		}
		if err := d.svc.opts.Store.SaveStep(ctx, d.search.ID, st); err != nil {
			log.Error("save search step", slog.Any("error", err))
		}
	}
}

// finishStep waits for the step's run to end and judges it.
func (d *driver) finishStep(ctx context.Context, st Step) Step {
	defer func() { st.FinishedAt = d.svc.now().UTC() }()
	r, err := d.wait(ctx, st.RunID)
	switch {
	case ctx.Err() != nil || errors.Is(err, errEnded):
		d.svc.stopRun(d.p, st.RunID)
		st.Status, st.Detail = StepError, "the search was canceled"
		return st
	case err != nil:
		st.Status, st.Detail = StepError, err.Error()
		return st
	case r.Status != runs.Completed:
		st.Status, st.Detail = StepError, fmt.Sprintf("its run %s %s: %s", r.ID, r.Status, r.Error)
		return st
	case r.Degraded:
		st.Status, st.Detail = StepError, fmt.Sprintf("its run %s lost a shard, so its figures lack part of the load", r.ID)
		return st
	}
	ivs, err := d.svc.opts.Intervals.Intervals(ctx, d.p, st.RunID, 0, 1000)
	if err != nil {
		st.Status, st.Detail = StepError, fmt.Sprintf("read the intervals of run %s: %v", r.ID, err)
		return st
	}
	w := window{from: int(d.search.Warmup / time.Second), n: int(d.search.Step / time.Second)}
	obs, err := merge(ivs, w)
	if err != nil {
		st.Status, st.Detail = StepError, fmt.Sprintf("merge the intervals of run %s: %v", r.ID, err)
		return st
	}
	judge(&st, obs, d.terms)
	return st
}

// checkEvery is how often a waiting driver checks that its search still
// runs and touches it (FailStale ends searches left untouched).
const checkEvery = 5 * time.Second

// wait polls the run until it ends; errEnded when the search stopped
// running meanwhile.
func (d *driver) wait(ctx context.Context, id uuid.UUID) (runs.Run, error) {
	limit := d.svc.now().Add(d.search.Warmup + d.search.Step + 2*time.Minute)
	tick := time.NewTicker(d.svc.opts.Poll)
	defer tick.Stop()
	lastCheck := d.svc.now()
	for {
		r, err := d.svc.opts.Runs.Get(ctx, d.p, id)
		if err != nil {
			return runs.Run{}, fmt.Errorf("read run %s: %w", id, err)
		}
		if r.Status.Terminal() {
			return r, nil
		}
		if now := d.svc.now(); now.Sub(lastCheck) >= checkEvery {
			lastCheck = now
			if err := d.stillRunning(ctx); err != nil {
				return r, err
			}
		}
		if d.svc.now().After(limit) {
			return r, fmt.Errorf("its run %s did not end within 2 minutes of its length", id)
		}
		select {
		case <-ctx.Done():
			return r, ctx.Err() //nolint:wrapcheck // the caller checks ctx itself
		case <-tick.C:
		}
	}
}

// stillRunning touches the search, or returns errEnded when it is no
// longer running.
func (d *driver) stillRunning(ctx context.Context) error {
	sr, err := d.svc.opts.Store.GetSearch(ctx, d.search.ID)
	if err != nil {
		return fmt.Errorf("read search: %w", err)
	}
	if sr.Status != Running {
		return errEnded
	}
	if err := d.svc.opts.Store.TouchSearch(ctx, d.search.ID); err != nil {
		return fmt.Errorf("touch search: %w", err)
	}
	return nil
}

// end writes the end of the search.
func (d *driver) end(ctx context.Context, status Status, out Outcome, message string) {
	sr := d.search
	sr.Status, sr.Outcome, sr.Message, sr.FinishedAt = status, out, message, d.svc.now().UTC()
	if d.strategy.pass > 0 {
		v := d.strategy.pass
		sr.BestQPS = &v
	}
	if !isInf(d.strategy.fail) {
		v := d.strategy.fail
		sr.FirstFailQPS = &v
	}
	if _, err := d.svc.opts.Store.EndSearch(ctx, sr); err != nil {
		d.svc.opts.Log.Error("end search", slog.String("search", sr.ID.String()), slog.Any("error", err))
	}
}

// message says what a completed search found.
func (d *driver) message(out Outcome) string {
	s := d.strategy
	switch out {
	case NotMet:
		why := ""
		if n := len(d.search.Steps); n > 0 {
			why = ": " + d.search.Steps[n-1].Detail
		}
		return fmt.Sprintf("not met at min qps %s%s", formatQPS(s.min), why)
	case AboveMax:
		return fmt.Sprintf("met at max qps %s; the capacity is above the bounds", formatQPS(s.max))
	default:
		return fmt.Sprintf("meets the objective up to %s qps; fails at %s qps", formatQPS(s.pass), formatQPS(s.fail))
	}
}

func formatQPS(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func isInf(v float64) bool { return v > 1e300 }
