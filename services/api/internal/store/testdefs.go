package store

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/paging"
	"github.com/barrage-dev/barrage/services/api/internal/testdefs"
)

// testRow is a row of tests. Spec is the redacted spec; SealedSpec the
// real one sealed, or nil when it has no secrets (or the row was saved
// before 00006, when Spec is the real one).
type testRow struct {
	ID          uuid.UUID  `gorm:"column:id;primaryKey"`
	ProjectID   uuid.UUID  `gorm:"column:project_id"`
	Name        string     `gorm:"column:name"`
	Description string     `gorm:"column:description"`
	Spec        []byte     `gorm:"column:spec"`
	SealedSpec  []byte     `gorm:"column:sealed_spec"`
	Thresholds  textArray  `gorm:"column:thresholds"`
	Labels      []byte     `gorm:"column:labels"`
	Schedule    *string    `gorm:"column:schedule"`
	Timezone    string     `gorm:"column:timezone"`
	NextRunAt   *time.Time `gorm:"column:next_run_at"`
	// BaselineLast is NULL for none (00026).
	BaselineLast *int       `gorm:"column:baseline_last"`
	CreatedBy    *uuid.UUID `gorm:"column:created_by"`
	CreatedAt    time.Time  `gorm:"column:created_at"`
	UpdatedAt    time.Time  `gorm:"column:updated_at"`
}

// TableName returns the table of testRow.
func (testRow) TableName() string { return "tests" }

// testToRow maps a test to its row: the redacted spec in clear and, when
// it has secrets, the real one sealed.
func (s *Store) testToRow(t testdefs.Test) (testRow, error) {
	sp, err := json.Marshal(s.redactor.Spec(t.Spec))
	if err != nil {
		return testRow{}, fmt.Errorf("encode spec: %w", err)
	}
	plain, err := json.Marshal(t.Spec)
	if err != nil {
		return testRow{}, fmt.Errorf("encode spec: %w", err)
	}
	var sealed []byte
	if !bytes.Equal(plain, sp) { // a spec without secrets needs no key to run
		sealed = s.seal.Seal(plain)
	}
	created := orNow(t.CreatedAt)
	updated := t.UpdatedAt
	if updated.IsZero() {
		updated = created
	}
	tz := t.Timezone
	if tz == "" {
		tz = testdefs.DefaultTimezone
	}
	return testRow{
		ID: t.ID, ProjectID: t.ProjectID, Name: t.Name, Description: t.Description, Spec: sp, SealedSpec: sealed,
		Thresholds: textArray(t.Thresholds), Labels: labelsJSON(t.Labels), CreatedBy: nullUUID(t.CreatedBy),
		Schedule: nullString(t.Schedule), Timezone: tz, NextRunAt: nullTime(t.NextRunAt), BaselineLast: nullInt(t.BaselineLast),
		CreatedAt: created, UpdatedAt: updated,
	}, nil
}

// testFromRow maps a row to a test, with its real spec. When the sealed
// spec cannot be opened the test has the redacted one and SealErr, so it
// can still be shown, listed and saved again.
func (s *Store) testFromRow(r testRow) (testdefs.Test, error) {
	raw := r.Spec
	var sealErr error
	if r.SealedSpec != nil {
		if plain, err := s.seal.Open(r.SealedSpec); err != nil {
			sealErr = fmt.Errorf("open the sealed spec of test %s: %w", r.ID, err)
		} else {
			raw = plain
		}
	}
	var sp spec.Spec
	if err := json.Unmarshal(raw, &sp); err != nil {
		return testdefs.Test{}, fmt.Errorf("decode spec of test %s: %w", r.ID, err)
	}
	labels, err := parseLabels(r.Labels)
	if err != nil {
		return testdefs.Test{}, fmt.Errorf("test %s: %w", r.ID, err)
	}
	return testdefs.Test{
		ID: r.ID, ProjectID: r.ProjectID, Name: r.Name, Description: r.Description, Spec: sp, SealErr: sealErr,
		Thresholds: []string(r.Thresholds), Labels: labels, CreatedBy: fromNullUUID(r.CreatedBy),
		Schedule: fromNullString(r.Schedule), Timezone: r.Timezone, NextRunAt: fromNullTime(r.NextRunAt),
		BaselineLast: fromNullInt(r.BaselineLast), CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(),
	}, nil
}

// testNameTaken is the Conflict for a duplicate test name.
func testNameTaken(name string) error {
	return apperr.New(apperr.Conflict, "a test named %q already exists in this project", name)
}

// CreateTest inserts t and an audit entry; Conflict when the project
// already has a test of that name.
func (s *Store) CreateTest(ctx context.Context, t testdefs.Test, actor auth.Actor) (testdefs.Test, error) {
	row, err := s.testToRow(t)
	if err != nil {
		return testdefs.Test{}, fmt.Errorf("create test: %w", err)
	}
	err = s.inTx(ctx, func(tx *gorm.DB) error {
		if err := tx.Clauses(clause.Returning{}).Create(&row).Error; err != nil {
			if isUnique(err) {
				return testNameTaken(t.Name)
			}
			return err
		}
		return audit(tx, actor, auditEntry{
			Action: "test.create", Kind: "test", ID: row.ID.String(), Project: row.ProjectID,
			Details: map[string]any{"name": row.Name},
		})
	})
	if err != nil {
		return testdefs.Test{}, fmt.Errorf("create test: %w", err)
	}
	return s.testFromRow(row)
}

// GetTest returns a test by id; NotFound when there is none.
func (s *Store) GetTest(ctx context.Context, id uuid.UUID) (testdefs.Test, error) {
	var row testRow
	if err := s.conn(ctx).Where("id = ?", id).Take(&row).Error; err != nil {
		return testdefs.Test{}, classify(err, "get test", "test", id)
	}
	return s.testFromRow(row)
}

// ReplaceTest overwrites the name, description, spec, thresholds, labels,
// schedule, time zone, next run and updated_at of t.ID and writes an audit
// entry; NotFound when the test is gone, Conflict on a duplicate name.
func (s *Store) ReplaceTest(ctx context.Context, t testdefs.Test, actor auth.Actor) (testdefs.Test, error) {
	in, err := s.testToRow(t)
	if err != nil {
		return testdefs.Test{}, fmt.Errorf("replace test: %w", err)
	}
	var row testRow
	err = s.inTx(ctx, func(tx *gorm.DB) error {
		res := tx.Model(&row).Clauses(clause.Returning{}).Where("id = ?", t.ID).Updates(map[string]any{
			"name": in.Name, "description": in.Description, "spec": in.Spec, "sealed_spec": in.SealedSpec, "thresholds": in.Thresholds,
			"labels": in.Labels, "schedule": in.Schedule, "timezone": in.Timezone, "next_run_at": in.NextRunAt,
			"baseline_last": in.BaselineLast,
			"updated_at":    orNow(t.UpdatedAt),
		})
		if res.Error != nil {
			if isUnique(res.Error) {
				return testNameTaken(t.Name)
			}
			return res.Error
		}
		if res.RowsAffected == 0 {
			return notFound("test", t.ID)
		}
		return audit(tx, actor, auditEntry{
			Action: "test.replace", Kind: "test", ID: t.ID.String(), Project: row.ProjectID,
			Details: map[string]any{"name": in.Name},
		})
	})
	if err != nil {
		return testdefs.Test{}, fmt.Errorf("replace test: %w", err)
	}
	return s.testFromRow(row)
}

// DeleteTest deletes a test and writes an audit entry; its runs stay, with
// no test. NotFound when there is no such test.
func (s *Store) DeleteTest(ctx context.Context, id uuid.UUID, actor auth.Actor) error {
	err := s.inTx(ctx, func(tx *gorm.DB) error {
		var gone []testRow
		res := tx.Clauses(clause.Returning{}).Where("id = ?", id).Delete(&gone)
		if res.Error != nil {
			return res.Error
		}
		if len(gone) == 0 {
			return notFound("test", id)
		}
		return audit(tx, actor, auditEntry{
			Action: "test.delete", Kind: "test", ID: id.String(), Project: gone[0].ProjectID,
			Details: map[string]any{"name": gone[0].Name},
		})
	})
	if err != nil {
		return fmt.Errorf("delete test: %w", err)
	}
	return nil
}

// ListTests returns up to page.Limit+1 tests of the projects (every project
// when all), newest first.
func (s *Store) ListTests(ctx context.Context, projectIDs []uuid.UUID, all bool, page paging.Request) ([]testdefs.Test, error) {
	if !all && len(projectIDs) == 0 {
		return nil, nil
	}
	var rows []testRow
	q := inProjects(s.conn(ctx).Model(&testRow{}), projectIDs, all)
	if err := keyset(q, page).Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("list tests: %w", err)
	}
	out := make([]testdefs.Test, len(rows))
	for i := range rows {
		t, err := s.testFromRow(rows[i])
		if err != nil {
			return nil, fmt.Errorf("list tests: %w", err)
		}
		out[i] = t
	}
	return out, nil
}
