package runs

import (
	"context"
	"fmt"
	"maps"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/testdefs"
)

// ScheduleKey is the Idempotency-Key of the run test's schedule starts for
// the tick at, so that a replayed tick returns the run it started.
func ScheduleKey(testID uuid.UUID, at time.Time) string {
	return "schedule:" + testID.String() + ":" + at.UTC().Format(time.RFC3339)
}

// CreateScheduled starts the run t's schedule fires at: source schedule,
// no creating user, the test's name, spec, thresholds and labels. Nobody
// asked for it, so no role is checked; the spec still has to fit the
// server's and the project's limits, and the project's concurrent runs
// their cap. created is false when the tick had already started its
// run (the Idempotency-Key is ScheduleKey(t.ID, at)).
func (s *Service) CreateScheduled(ctx context.Context, t testdefs.Test, at time.Time) (run Run, created bool, err error) {
	in := Input{TestID: t.ID, Source: SourceSchedule, IdempotencyKey: ScheduleKey(t.ID, at)}
	sp, err := t.RunSpec()
	if err != nil {
		return Run{}, false, err
	}
	o, err := s.projects.Overrides(ctx, t.ProjectID)
	if err != nil {
		return Run{}, false, err
	}
	if err := s.checkInput(&sp, Input{}, t.Thresholds, o); err != nil {
		return Run{}, false, err
	}
	if err := s.withURLsFromRun(ctx, nil, t.ProjectID, &sp, Input{}, t.Thresholds, o); err != nil {
		return Run{}, false, err
	}
	proj, err := s.projects.Lookup(ctx, t.ProjectID)
	if err != nil {
		return Run{}, false, err
	}
	targets, err := s.checkedTargets(ctx, proj, sp)
	if err != nil {
		return Run{}, false, err
	}
	labels := map[string]string{}
	maps.Copy(labels, t.Labels)
	maps.Copy(labels, sp.Labels)
	if len(labels) > spec.MaxLabels {
		return Run{}, false, apperr.Invalidf("labels", "the run would carry %d labels; at most %d", len(labels), spec.MaxLabels)
	}
	now := s.now().UTC()
	redacted := s.redactor.Spec(sp)
	r := Run{
		ID: newID(), ProjectID: t.ProjectID, TestID: t.ID, Name: t.Name, Status: Queued, Source: SourceSchedule,
		Spec: redacted, Thresholds: t.Thresholds, Labels: labels, Target: redacted.URL, QPSRequested: sp.PeakQPS(),
		BaselineLast: t.BaselineLast, CreatedAt: now, UpdatedAt: now,
	}
	payload, err := s.dispatchPayload(r, sp, targets, "", "")
	if err != nil {
		return Run{}, false, fmt.Errorf("create scheduled run of test %s: %w", t.ID, err)
	}
	n := NewRun{
		Run: r, Dispatch: payload, Idempotency: Idempotency{Key: in.IdempotencyKey, RequestHash: in.requestHash()},
		MaxActive: s.limits.Apply(o).MaxConcurrentRuns, Actor: auth.Actor{},
	}
	run, created, err = s.store.CreateRun(ctx, n)
	if err != nil {
		return Run{}, false, fmt.Errorf("create scheduled run of test %s: %w", t.ID, err)
	}
	return run, created, nil
}
