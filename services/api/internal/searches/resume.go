package searches

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/sealer"
)

// A search is a state machine stored in Postgres: its settings, its sealed
// base spec and its steps, each started (with its run), then passed,
// failed or erred. Resuming it rebuilds the strategy by replaying the
// finished steps (strategy.record is deterministic, so the replay reaches
// the state the dead driver had), then goes on from where the steps stop:
//   - the last step is running: wait for its run (still going or ended)
//     and judge it; no step runs twice;
//   - the last step erred, or the strategy is done: end the search as the
//     dead driver would have;
//   - otherwise: start the next step. Its run carries the Idempotency-Key
//     of the search and the step, so a run the dead driver started but did
//     not record is the one the step gets.
// The steps run as the search's creator, reloaded from the store: a
// creator who was removed from the project, demoted below runner, disabled
// or deleted makes the resumed search fail, saying so.

// resume drives the search id, whose lease this process just claimed.
func (s *Service) resume(id uuid.UUID) {
	ctx, cancel := context.WithTimeout(s.base, time.Minute)
	d, st, err := s.rebuild(ctx, id)
	cancel()
	if err != nil || d == nil {
		s.forget(id)
	}
	var fail *resumeError
	switch {
	case errors.As(err, &fail):
		s.opts.Log.Warn("a search cannot be resumed", slog.String("search", id.String()), slog.String("reason", fail.msg))
		ectx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		d.end(ectx, Failed, "", "cannot resume the search: "+fail.msg)
		return
	case err != nil:
		s.opts.Log.Error("resume search", slog.String("search", id.String()), slog.Any("error", err))
		s.release(id) // try again at a later claim
		return
	case d == nil: // ended while rebuilding
		return
	}
	s.drive(d, st)
}

// resumeError is a search that cannot go on; msg is its end message.
type resumeError struct{ msg string }

func (e *resumeError) Error() string { return e.msg }

func cannotResume(format string, args ...any) error {
	return &resumeError{msg: fmt.Sprintf(format, args...)}
}

// rebuild loads the search id and returns its driver and the step to
// drive from, started if need be. A nil driver without error is a search
// that ended meanwhile (or that the replay ended); a resumeError comes
// with the driver that ends the search.
func (s *Service) rebuild(ctx context.Context, id uuid.UUID) (*driver, Step, error) {
	sr, err := s.opts.Store.GetSearch(ctx, id)
	if err != nil {
		return nil, Step{}, fmt.Errorf("read search %s: %w", id, err)
	}
	if sr.Status != Running {
		return nil, Step{}, nil
	}
	steps := sr.Steps
	sr.Steps = nil
	d := &driver{svc: s, search: sr, strategy: newStrategy(sr.MinQPS, sr.MaxQPS, sr.Resolution)}
	if d.terms, err = ParseObjective(sr.Objective); err != nil {
		return d, Step{}, cannotResume("its objective %q no longer parses: %v", sr.Objective, err)
	}
	switch d.real, err = s.opts.Store.SearchSpec(ctx, id); {
	case apperr.Is(err, apperr.NotFound):
		return d, Step{}, cannotResume("it was started by an API version that did not keep its base spec to resume it")
	case errors.Is(err, sealer.ErrWrongKey) || errors.Is(err, sealer.ErrCorrupt):
		return d, Step{}, cannotResume("its base spec cannot be opened (is BARRAGE_SECRET_KEY the same on every API replica?): %v", err)
	case err != nil:
		return nil, Step{}, fmt.Errorf("read the base spec of search %s: %w", id, err) // tried again at a later claim
	}
	next := d.strategy.first()
	for i := range steps {
		st := steps[i]
		if st.Index != i || st.QPS != next {
			return d, Step{}, cannotResume("its step %d at %s qps is not the step %d at %s qps its strategy gives", st.Index+1, formatQPS(st.QPS), i+1, formatQPS(next))
		}
		if st.Status == StepRunning {
			if i != len(steps)-1 {
				return d, Step{}, cannotResume("its step %d runs while a later one exists", i+1)
			}
			if err := s.actAs(ctx, d); err != nil {
				return d, Step{}, err
			}
			return d, st, nil // wait for its run and judge it
		}
		var stop bool
		if next, stop = d.judged(ctx, st); stop {
			return nil, Step{}, nil // the dead driver's last step ended the search: ended now
		}
	}
	if err := s.actAs(ctx, d); err != nil {
		return d, Step{}, err
	}
	st, _, err := d.startRun(ctx, len(steps), next)
	if err != nil {
		return d, Step{}, cannotResume("start step %d at %s qps: %v", len(steps)+1, formatQPS(next), err)
	}
	if !d.save(ctx, st) {
		return nil, Step{}, nil
	}
	return d, st, nil
}

// actAs makes the search's creator, as they are now, the principal of
// its steps; they must still hold the runner role in its project.
func (s *Service) actAs(ctx context.Context, d *driver) error {
	sr := d.search
	if sr.CreatedBy == uuid.Nil {
		return cannotResume("its creator's account was deleted; a search's steps run as the user who started it")
	}
	p, err := s.opts.Store.UserPrincipal(ctx, sr.CreatedBy)
	switch {
	case apperr.Is(err, apperr.NotFound):
		return cannotResume("its creator's account was deleted; a search's steps run as the user who started it")
	case apperr.Is(err, apperr.Forbidden):
		return cannotResume("its creator's account is disabled; a search's steps run as the user who started it")
	case err != nil:
		return fmt.Errorf("load the creator of search %s: %w", sr.ID, err)
	}
	if !p.Can(sr.ProjectID, auth.Runner) {
		return cannotResume("its creator %s no longer holds the runner role in its project; a search's steps run as the user who started it", p.Email)
	}
	d.p = p
	return nil
}

// forget drops the placeholder ResumeDue registered for a search that is
// not driven after all.
func (s *Service) forget(id uuid.UUID) {
	s.mu.Lock()
	delete(s.cancels, id)
	s.mu.Unlock()
}
