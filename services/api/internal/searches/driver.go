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
	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// driver runs one search: a step's run, its verdict, the next rate, until
// the strategy is done, the search is canceled or a step cannot run. It
// drives while its process holds the search's lease, and stops, leaving
// the search and its step's run as they are, when the lease is lost or
// the process stops; whoever claims the search next resumes it (resume.go).
type driver struct {
	svc      *Service
	p        *auth.Principal
	search   Search
	real     spec.Spec // the base spec with its secrets, to start each run
	terms    []threshold.Expr
	strategy *strategy
}

// errEnded is returned while waiting when the search is no longer running
// (canceled, maybe by another API process); it is also the cause of a
// driver's context canceled by Cancel in its own process.
var errEnded = errors.New("the search ended")

// errLost is returned while waiting when another process holds the
// search's lease: this driver stops and writes nothing more.
var errLost = errors.New("another API process drives the search")

// stepKey is the Idempotency-Key of the run of step i of a search, so that
// a driver resumed after its process died between starting a step's run
// and saving the step gets that run back rather than a second one.
func stepKey(search uuid.UUID, i int) string { return fmt.Sprintf("search/%s/step/%d", search, i) }

// startRun starts the run of step i at qps.
func (d *driver) startRun(ctx context.Context, i int, qps float64) (Step, runs.Run, error) {
	sp := stepSpec(d.real, qps, d.search.Warmup+d.search.Step)
	name := d.search.Name
	if name == "" {
		name = "search " + d.search.ID.String()[:8]
	}
	r, _, err := d.svc.opts.Runs.Create(ctx, d.p, runs.Input{
		Project: d.search.ProjectID.String(), Spec: &sp, Source: runs.SourceAPI,
		Name:           fmt.Sprintf("%s: step %d at %s qps", name, i+1, formatQPS(qps)),
		Labels:         map[string]string{"search": d.search.ID.String(), "search_step": strconv.Itoa(i)},
		IdempotencyKey: stepKey(d.search.ID, i),
	})
	if err != nil {
		return Step{}, runs.Run{}, err //nolint:wrapcheck // the run's own problem, shown as the search's
	}
	return Step{Index: i, QPS: qps, RunID: r.ID, Status: StepRunning, StartedAt: d.svc.now().UTC()}, r, nil
}

// run drives the search from st, a step whose run is started.
func (d *driver) run(ctx context.Context, st Step) {
	for {
		var stop bool
		if st, stop = d.finishStep(ctx, st); stop {
			return
		}
		if !d.save(ctx, st) {
			return
		}
		var next float64
		if next, stop = d.judged(ctx, st); stop {
			return
		}
		i := st.Index + 1
		var err error
		if st, _, err = d.startRun(ctx, i, next); err != nil {
			if ctx.Err() == nil { // else the next claim starts it
				d.end(ctx, Failed, "", fmt.Sprintf("start step %d at %s qps: %v", i+1, formatQPS(next), err))
			}
			return
		}
		if !d.save(ctx, st) {
			return
		}
	}
}

// judged takes a finished step into the strategy (a run that erred ends
// the search) and returns the next rate, or stop when the search ended.
func (d *driver) judged(ctx context.Context, st Step) (next float64, stop bool) {
	if st.Status == StepError {
		d.end(ctx, Failed, "", fmt.Sprintf("step %d at %s qps: %s", st.Index+1, formatQPS(st.QPS), st.Detail))
		return 0, true
	}
	d.search.Steps = append(d.search.Steps, st)
	next, done, out := d.strategy.record(st.QPS, st.Status == StepPassed)
	if done {
		d.end(ctx, Completed, out, d.message(out))
		return 0, true
	}
	return next, false
}

// save stores a step once the driver checked it still holds the lease;
// false when it no longer drives the search (its lease lost, the search
// ended or the process stopping) or the step could not be stored: the
// search is then left to whoever resumes it.
func (d *driver) save(ctx context.Context, st Step) bool {
	log := d.svc.opts.Log.With(slog.String("search", d.search.ID.String()))
	if err := d.renew(ctx); err != nil {
		if errors.Is(err, errEnded) && st.Status == StepError {
			_ = d.svc.opts.Store.SaveStep(ctx, d.search.ID, st) // the canceled step, for the record
		}
		return false
	}
	if err := d.svc.opts.Store.SaveStep(ctx, d.search.ID, st); err != nil {
		log.Error("save search step", slog.Any("error", err))
		return false
	}
	return true
}

// finishStep waits for the step's run to end and judges it; stop when
// this driver is done with the search without a verdict: its context
// ended (Cancel here, which stops the run, or the process stopping, which
// leaves it running) or its lease is lost.
func (d *driver) finishStep(ctx context.Context, st Step) (Step, bool) {
	st, stop := d.judgeStep(ctx, st)
	st.FinishedAt = d.svc.now().UTC()
	return st, stop
}

// judgeStep is finishStep without the finish time.
func (d *driver) judgeStep(ctx context.Context, st Step) (Step, bool) {
	r, err := d.wait(ctx, st)
	switch {
	case ctx.Err() != nil:
		if errors.Is(context.Cause(ctx), errEnded) {
			d.svc.stopRun(d.p, st.RunID)
		}
		return st, true
	case errors.Is(err, errLost):
		return st, true
	case errors.Is(err, errEnded):
		d.svc.stopRun(d.p, st.RunID)
		st.Status, st.Detail = StepError, "the search was canceled"
		return st, false
	case err != nil:
		st.Status, st.Detail = StepError, err.Error()
		return st, false
	case r.Status != runs.Completed:
		st.Status, st.Detail = StepError, fmt.Sprintf("its run %s %s: %s", r.ID, r.Status, r.Error)
		return st, false
	case r.Degraded:
		st.Status, st.Detail = StepError, fmt.Sprintf("its run %s lost a shard, so its figures lack part of the load", r.ID)
		return st, false
	}
	ivs, err := d.svc.opts.Intervals.Intervals(ctx, d.p, st.RunID, 0, 1000)
	if err != nil && (ctx.Err() != nil || transient(err) && d.svc.now().Before(d.limit(st))) {
		// Postgres unreachable, say: leave the step to the next claim
		// (this process's own, a tick after it gives up the lease) until
		// the step's limit.
		d.svc.opts.Log.Warn("read a search step's seconds", slog.String("search", d.search.ID.String()), slog.Any("error", err))
		return st, true
	}
	if err != nil {
		st.Status, st.Detail = StepError, fmt.Sprintf("read the intervals of run %s: %v", r.ID, err)
		return st, false
	}
	w := window{from: int(d.search.Warmup / time.Second), n: int(d.search.Step / time.Second)}
	obs, err := merge(ivs, w)
	if err != nil {
		st.Status, st.Detail = StepError, fmt.Sprintf("merge the intervals of run %s: %v", r.ID, err)
		return st, false
	}
	judge(&st, obs, d.terms)
	return st, false
}

// limit is when a step's run must have ended: 2 minutes after its length.
func (d *driver) limit(st Step) time.Time {
	return st.StartedAt.Add(d.search.Warmup + d.search.Step + 2*time.Minute)
}

// transient reports whether err is not a rule's answer (not found,
// forbidden...) but a failure to reach the store, worth trying again.
func transient(err error) bool { return apperr.CodeOf(err) == "" }

// checkEvery is the longest a waiting driver goes without renewing its
// lease, which also checks that its search still runs.
const checkEvery = 5 * time.Second

// wait polls the step's run until it ends; errEnded when the search
// stopped running meanwhile, errLost when another process took it over.
func (d *driver) wait(ctx context.Context, st Step) (runs.Run, error) {
	id := st.RunID
	limit := d.limit(st)
	tick := time.NewTicker(d.svc.opts.Poll)
	defer tick.Stop()
	lastCheck := d.svc.now()
	for {
		r, err := d.svc.opts.Runs.Get(ctx, d.p, id)
		switch {
		case err != nil && !transient(err):
			return runs.Run{}, fmt.Errorf("read run %s: %w", id, err)
		case err != nil: // Postgres unreachable, say: poll on until the limit
			if ctx.Err() == nil {
				d.svc.opts.Log.Warn("read a search step's run", slog.String("run", id.String()), slog.Any("error", err))
			}
		case r.Status.Terminal():
			return r, nil
		}
		if now := d.svc.now(); now.Sub(lastCheck) >= d.svc.renewEvery() {
			lastCheck = now
			if err := d.renew(ctx); err != nil {
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

// renew extends this process's lease of the search; errEnded when the
// search is no longer running, errLost when another process holds it.
// A failed write (Postgres unreachable) is not a lost lease: the driver
// goes on, and stops at its next renewal if another took the search.
func (d *driver) renew(ctx context.Context) error {
	ok, err := d.svc.opts.Store.RenewSearch(ctx, d.search.ID, d.svc.id, d.svc.opts.Lease)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err() //nolint:wrapcheck // the caller checks ctx itself
		}
		d.svc.opts.Log.Warn("renew a search's lease", slog.String("search", d.search.ID.String()), slog.Any("error", err))
		return nil
	}
	if ok {
		return nil
	}
	sr, err := d.svc.opts.Store.GetSearch(ctx, d.search.ID)
	if err == nil && sr.Status != Running {
		return errEnded
	}
	return errLost
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
