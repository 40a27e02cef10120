package testdefs

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/pkg/threshold"
	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/paging"
	"github.com/barrage-dev/barrage/services/api/internal/policy"
	"github.com/barrage-dev/barrage/services/api/internal/projects"
)

// Field limits of a test.
const (
	maxNameLength        = 200
	maxDescriptionLength = 2000
	// MaxThresholds is the most thresholds a test or run may carry.
	MaxThresholds = 50
	// MaxThresholdLength is the longest threshold expression, in bytes.
	MaxThresholdLength = threshold.MaxLength
	// MaxBaselineLast is the most passing runs a test's runs may pool as
	// their baseline (migration 00026's check, as 00025's for runs).
	MaxBaselineLast = 20
)

// Service applies the rules of stored tests.
type Service struct {
	store    Store
	projects *projects.Service
	limits   policy.Limits
	now      func() time.Time
}

// NewService returns a Service over store that checks specs against limits.
func NewService(store Store, projectSvc *projects.Service, limits policy.Limits) *Service {
	return &Service{store: store, projects: projectSvc, limits: limits, now: time.Now}
}

// Input is what a caller sets on a test.
type Input struct {
	// Project is the project id or slug (create only).
	Project     string
	Name        string
	Description string
	Spec        spec.Spec
	Thresholds  []string
	Labels      map[string]string
	// Schedule is a cron expression (see ParseSchedule); "" for none.
	Schedule string
	// Timezone is the IANA zone of Schedule; "" for UTC.
	Timezone string
	// BaselineLast is Test.BaselineLast; 0 for none.
	BaselineLast int
}

// check validates in and normalizes its spec, which must fit the server's
// limits and those o of the test's project sets.
func (s *Service) check(in *Input, o policy.Overrides) error {
	e := &apperr.Error{Code: apperr.Invalid, Detail: "the test has invalid fields"}
	add := func(field, format string, args ...any) {
		e.Fields = append(e.Fields, apperr.FieldError{Field: field, Message: fmt.Sprintf(format, args...)})
	}
	if strings.TrimSpace(in.Name) == "" || utf8.RuneCountInString(in.Name) > maxNameLength {
		add("name", "must be 1 to %d characters, not blank", maxNameLength)
	}
	if utf8.RuneCountInString(in.Description) > maxDescriptionLength {
		add("description", "must be at most %d characters", maxDescriptionLength)
	}
	CheckThresholds(in.Spec, in.Thresholds, add)
	CheckLabels(in.Labels, add)
	if in.BaselineLast < 0 || in.BaselineLast > MaxBaselineLast {
		add("baseline_last", "%d: pool from 1 to %d runs", in.BaselineLast, MaxBaselineLast)
	}
	in.Schedule = strings.TrimSpace(in.Schedule)
	if in.Timezone == "" {
		in.Timezone = DefaultTimezone
	}
	if _, err := LoadZone(in.Timezone); err != nil {
		e.Fields = append(e.Fields, fieldsOf(err)...)
	}
	if in.Schedule != "" {
		if _, err := ParseSchedule(in.Schedule, DefaultTimezone); err != nil {
			e.Fields = append(e.Fields, fieldsOf(err)...)
		}
	}
	if err := s.limits.CheckProject(&in.Spec, o, "spec"); err != nil {
		var se *apperr.Error
		if !errors.As(err, &se) || se.Code != apperr.Invalid {
			return err
		}
		e.Fields = append(e.Fields, se.Fields...)
	}
	if len(e.Fields) > 0 {
		return e
	}
	return nil
}

// fieldsOf returns the field errors of an Invalid err.
func fieldsOf(err error) []apperr.FieldError {
	var se *apperr.Error
	if errors.As(err, &se) {
		return se.Fields
	}
	return []apperr.FieldError{{Field: "schedule", Message: err.Error()}}
}

// schedule sets t's schedule, zone and next run (after now) from in,
// which check has validated.
func schedule(t *Test, in Input, now time.Time) error {
	t.Schedule, t.Timezone = in.Schedule, in.Timezone
	next, err := t.NextRun(now)
	if err != nil {
		return err
	}
	t.NextRunAt = next
	return nil
}

// CheckThresholds reports bad threshold expressions of a run or test of
// spec sp through add: too many, too long, not in the grammar of
// pkg/threshold (the message then gives the position, "at 9: expected a
// duration like 250ms"), or naming a step or check sp's scenario does not
// have. They are stored as written and parsed again when a run is judged.
func CheckThresholds(sp spec.Spec, list []string, add func(field, format string, args ...any)) {
	if len(list) > MaxThresholds {
		add("thresholds", "must have at most %d entries", MaxThresholds)
		return
	}
	for i, t := range list {
		field := fmt.Sprintf("thresholds[%d]", i)
		if strings.TrimSpace(t) == "" || len(t) > MaxThresholdLength {
			add(field, "must be 1 to %d characters, not blank", MaxThresholdLength)
			continue
		}
		e, err := threshold.Parse(t)
		if err != nil {
			add(field, "%s", err.Error())
			continue
		}
		if why := scenarioRefs(sp, e); why != "" {
			add(field, "%s", why)
		}
	}
}

// CheckLabels reports bad labels through add, with the rules of spec labels.
func CheckLabels(labels map[string]string, add func(field, format string, args ...any)) {
	probe := spec.Spec{URL: "http://labels.invalid/", Labels: labels}
	probe.Normalize()
	if err := probe.Validate(); err != nil {
		if ve := (*spec.ValidationError)(nil); errors.As(err, &ve) {
			for _, fe := range ve.Errors {
				add(fe.Field, "%s", fe.Message)
			}
		}
	}
}

// Create stores a new test; project admins only.
func (s *Service) Create(ctx context.Context, p *auth.Principal, in Input) (Test, error) {
	proj, err := s.projects.Resolve(ctx, p, in.Project, auth.Admin)
	if err != nil {
		return Test{}, err
	}
	if err := s.check(&in, proj.Limits); err != nil {
		return Test{}, err
	}
	now := s.now().UTC()
	t := Test{
		ID: uuid.New(), ProjectID: proj.ID, Name: in.Name, Description: in.Description, Spec: in.Spec,
		Thresholds: in.Thresholds, Labels: in.Labels, BaselineLast: in.BaselineLast, CreatedBy: p.UserID, CreatedAt: now, UpdatedAt: now,
	}
	if err := schedule(&t, in, now); err != nil {
		return Test{}, err
	}
	created, err := s.store.CreateTest(ctx, t, p.Actor())
	if err != nil {
		return Test{}, fmt.Errorf("create test: %w", err)
	}
	return created, nil
}

// Load returns a test the caller holds at least need in; a test in a
// project they cannot see is NotFound.
func (s *Service) Load(ctx context.Context, p *auth.Principal, id uuid.UUID, need auth.Role) (Test, error) {
	t, err := s.store.GetTest(ctx, id)
	if err := p.Reach(err, t.ProjectID, need, "test", id); err != nil {
		return Test{}, err
	}
	return t, nil
}

// Replace overwrites a test; project admins only.
func (s *Service) Replace(ctx context.Context, p *auth.Principal, id uuid.UUID, in Input) (Test, error) {
	t, err := s.Load(ctx, p, id, auth.Admin)
	if err != nil {
		return Test{}, err
	}
	o, err := s.projects.Overrides(ctx, t.ProjectID)
	if err != nil {
		return Test{}, err
	}
	if err := s.check(&in, o); err != nil {
		return Test{}, err
	}
	t.Name, t.Description, t.Spec, t.Thresholds, t.Labels = in.Name, in.Description, in.Spec, in.Thresholds, in.Labels
	t.BaselineLast = in.BaselineLast
	t.UpdatedAt = s.now().UTC()
	if err := schedule(&t, in, t.UpdatedAt); err != nil {
		return Test{}, err
	}
	updated, err := s.store.ReplaceTest(ctx, t, p.Actor())
	if err != nil {
		return Test{}, fmt.Errorf("replace test: %w", err)
	}
	return updated, nil
}

// Delete removes a test; project admins only. Its runs stay.
func (s *Service) Delete(ctx context.Context, p *auth.Principal, id uuid.UUID) error {
	if _, err := s.Load(ctx, p, id, auth.Admin); err != nil {
		return err
	}
	if err := s.store.DeleteTest(ctx, id, p.Actor()); err != nil {
		return fmt.Errorf("delete test: %w", err)
	}
	return nil
}

// List returns one page of tests of a project (or of every project the
// caller can see when project is "") and the next cursor.
func (s *Service) List(ctx context.Context, p *auth.Principal, project string, page paging.Request) ([]Test, string, error) {
	ids, all, err := s.projects.Scope(ctx, p, project)
	if err != nil || (!all && len(ids) == 0) {
		return nil, "", err
	}
	rows, err := s.store.ListTests(ctx, ids, all, page)
	if err != nil {
		return nil, "", fmt.Errorf("list tests: %w", err)
	}
	items, next := paging.Page(rows, page.Limit, Test.Cursor)
	return items, next, nil
}
