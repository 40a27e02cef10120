// Package testdefs owns stored test definitions: a named spec with
// thresholds, labels and an optional cron schedule that runs can be
// started from. It checks roles, specs and schedules and declares the
// Store it needs.
//
// It is not the place for running tests (package runs starts runs from them).
package testdefs

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/paging"
	"github.com/barrage-dev/barrage/services/api/internal/sealer"
)

// Test is a stored test definition.
type Test struct {
	ID          uuid.UUID
	ProjectID   uuid.UUID
	Name        string
	Description string
	// Spec is stored as given (normalized); secrets in it are needed to run
	// it and are redacted when it is shown. The store keeps them sealed.
	Spec spec.Spec
	// SealErr, when not nil, says why the store could not open the sealed
	// secrets of Spec (they were sealed under another key): Spec is then
	// the redacted spec, and the test cannot run until it is saved again.
	SealErr    error
	Thresholds []string
	Labels     map[string]string
	// Schedule is a cron expression (see ParseSchedule) on which runs of
	// the test start; "" for none.
	Schedule string
	// Timezone is the IANA zone Schedule is read in; UTC by default.
	Timezone string
	// NextRunAt is when Schedule next fires; zero without a schedule.
	NextRunAt time.Time
	// BaselineLast, when above 0, is how many of the test's last passing
	// runs its runs pool as their baseline unless they ask otherwise
	// (runs.Input.BaselineLast).
	BaselineLast int
	// CreatedBy is the user who created it, or uuid.Nil.
	CreatedBy uuid.UUID
	CreatedAt time.Time
	UpdatedAt time.Time
}

// RunSpec returns a copy of the spec to run: Conflict when the test's
// secrets could not be opened (SealErr).
func (t Test) RunSpec() (spec.Spec, error) {
	if t.SealErr != nil {
		if wk, ok := errors.AsType[*sealer.WrongKeyError](t.SealErr); ok {
			return spec.Spec{}, apperr.New(apperr.Conflict,
				"the secrets of test %s were sealed under key id %s, which this server does not hold (BARRAGE_SECRET_KEY id %s); "+
					"configure that key in BARRAGE_SECRET_KEYS_PREVIOUS, or save the test again with its secrets", t.ID, wk.KeyID, wk.Current)
		}
		return spec.Spec{}, apperr.New(apperr.Conflict,
			"the secrets of test %s cannot be read (the sealed data is corrupt); save the test again with them", t.ID)
	}
	return t.Spec.Clone(), nil
}

// Cursor returns the test's position in a list.
func (t Test) Cursor() paging.Cursor {
	return paging.Cursor{CreatedAt: t.CreatedAt, ID: t.ID}
}

// Store is the storage tests need.
type Store interface {
	// CreateTest inserts t and an audit entry; Conflict when the project
	// already has a test of that name.
	CreateTest(ctx context.Context, t Test, actor auth.Actor) (Test, error)
	// GetTest returns a test by id; NotFound when there is none.
	GetTest(ctx context.Context, id uuid.UUID) (Test, error)
	// ReplaceTest overwrites name, description, spec, thresholds, labels,
	// schedule, time zone and next run of t.ID and writes an audit entry;
	// Conflict on a duplicate name.
	ReplaceTest(ctx context.Context, t Test, actor auth.Actor) (Test, error)
	// DeleteTest deletes a test and writes an audit entry; its runs stay.
	DeleteTest(ctx context.Context, id uuid.UUID, actor auth.Actor) error
	// ListTests returns up to page.Limit+1 tests of the projects (every
	// project when all), newest first.
	ListTests(ctx context.Context, projects []uuid.UUID, all bool, page paging.Request) ([]Test, error)
	TrendStore
}
