package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/pkg/threshold"
	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/searches"
)

// searchRow is a row of searches.
type searchRow struct {
	ID           uuid.UUID  `gorm:"column:id;primaryKey"`
	ProjectID    uuid.UUID  `gorm:"column:project_id"`
	Name         string     `gorm:"column:name"`
	Spec         []byte     `gorm:"column:spec"`
	Objective    string     `gorm:"column:objective"`
	MinQPS       float64    `gorm:"column:min_qps"`
	MaxQPS       float64    `gorm:"column:max_qps"`
	StepUS       int64      `gorm:"column:step_us"`
	WarmupUS     int64      `gorm:"column:warmup_us"`
	Resolution   float64    `gorm:"column:resolution"`
	Status       string     `gorm:"column:status"`
	Outcome      string     `gorm:"column:outcome"`
	BestQPS      *float64   `gorm:"column:best_qps"`
	FirstFailQPS *float64   `gorm:"column:first_fail_qps"`
	Message      string     `gorm:"column:message"`
	CreatedBy    *uuid.UUID `gorm:"column:created_by"`
	CreatedAt    time.Time  `gorm:"column:created_at"`
	UpdatedAt    time.Time  `gorm:"column:updated_at"`
	FinishedAt   *time.Time `gorm:"column:finished_at"`
	// SealedSpec is the real base spec sealed; Driver the process that
	// holds the lease until LeaseUntil (nil for a search from before
	// migration 00019, which cannot be resumed).
	SealedSpec []byte     `gorm:"column:sealed_spec"`
	Driver     *uuid.UUID `gorm:"column:driver"`
	LeaseUntil *time.Time `gorm:"column:lease_until"`
}

// TableName returns the table of searchRow.
func (searchRow) TableName() string { return "searches" }

// searchStepRow is a row of search_steps.
type searchStepRow struct {
	SearchID    uuid.UUID  `gorm:"column:search_id;primaryKey"`
	Step        int        `gorm:"column:step;primaryKey"`
	QPS         float64    `gorm:"column:qps"`
	RunID       *uuid.UUID `gorm:"column:run_id"`
	Status      string     `gorm:"column:status"`
	Count       int64      `gorm:"column:count"`
	Errors      int64      `gorm:"column:errors"`
	AchievedQPS float64    `gorm:"column:achieved_qps"`
	P50US       float64    `gorm:"column:p50_us"`
	P90US       float64    `gorm:"column:p90_us"`
	P99US       float64    `gorm:"column:p99_us"`
	MaxUS       float64    `gorm:"column:max_us"`
	Outcomes    []byte     `gorm:"column:outcomes"`
	Detail      string     `gorm:"column:detail"`
	StartedAt   time.Time  `gorm:"column:started_at"`
	FinishedAt  *time.Time `gorm:"column:finished_at"`
}

// TableName returns the table of searchStepRow.
func (searchStepRow) TableName() string { return "search_steps" }

func searchToRow(s searches.Search) (searchRow, error) {
	sp, err := json.Marshal(s.Spec)
	if err != nil {
		return searchRow{}, fmt.Errorf("encode search spec: %w", err)
	}
	return searchRow{
		ID: s.ID, ProjectID: s.ProjectID, Name: s.Name, Spec: sp, Objective: s.Objective,
		MinQPS: s.MinQPS, MaxQPS: s.MaxQPS, StepUS: s.Step.Microseconds(), WarmupUS: s.Warmup.Microseconds(),
		Resolution: s.Resolution, Status: string(s.Status), Outcome: string(s.Outcome),
		BestQPS: s.BestQPS, FirstFailQPS: s.FirstFailQPS, Message: s.Message, CreatedBy: nullUUID(s.CreatedBy),
		CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt, FinishedAt: nullTime(s.FinishedAt),
	}, nil
}

func searchFromRow(r *searchRow) (searches.Search, error) {
	var sp spec.Spec
	if err := json.Unmarshal(r.Spec, &sp); err != nil {
		return searches.Search{}, fmt.Errorf("decode spec of search %s: %w", r.ID, err)
	}
	return searches.Search{
		ID: r.ID, ProjectID: r.ProjectID, Name: r.Name, Spec: sp, Objective: r.Objective,
		MinQPS: r.MinQPS, MaxQPS: r.MaxQPS, Step: time.Duration(r.StepUS) * time.Microsecond,
		Warmup: time.Duration(r.WarmupUS) * time.Microsecond, Resolution: r.Resolution,
		Status: searches.Status(r.Status), Outcome: searches.Outcome(r.Outcome),
		BestQPS: r.BestQPS, FirstFailQPS: r.FirstFailQPS, Message: r.Message, CreatedBy: fromNullUUID(r.CreatedBy),
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(), FinishedAt: fromNullTime(r.FinishedAt),
	}, nil
}

func stepFromRow(r *searchStepRow) (searches.Step, error) {
	var outs []threshold.Outcome
	if err := json.Unmarshal(r.Outcomes, &outs); err != nil {
		return searches.Step{}, fmt.Errorf("decode outcomes of search %s step %d: %w", r.SearchID, r.Step, err)
	}
	return searches.Step{
		Index: r.Step, QPS: r.QPS, RunID: fromNullUUID(r.RunID), Status: searches.StepStatus(r.Status),
		Count: r.Count, Errors: r.Errors, AchievedQPS: r.AchievedQPS,
		P50US: r.P50US, P90US: r.P90US, P99US: r.P99US, MaxUS: r.MaxUS, Outcomes: outs, Detail: r.Detail,
		StartedAt: r.StartedAt.UTC(), FinishedAt: fromNullTime(r.FinishedAt),
	}, nil
}

// CreateSearch inserts a new search, its real base spec sealed (never in
// clear: sr.Spec is the redacted one), driven by driver under a lease of
// lease from the database's clock.
func (s *Store) CreateSearch(ctx context.Context, sr searches.Search, full spec.Spec, driver uuid.UUID, lease time.Duration) error {
	row, err := searchToRow(sr)
	if err != nil {
		return err
	}
	plain, err := json.Marshal(full)
	if err != nil {
		return fmt.Errorf("encode search base spec: %w", err)
	}
	row.SealedSpec, row.Driver = s.seal.Seal(plain), &driver
	return s.inTx(ctx, func(tx *gorm.DB) error {
		if err := tx.Create(&row).Error; err != nil {
			return fmt.Errorf("insert search: %w", err)
		}
		err := tx.Exec(`UPDATE searches SET lease_until = now() + make_interval(secs => ?) WHERE id = ?`, lease.Seconds(), row.ID).Error
		if err != nil {
			return fmt.Errorf("lease search %s: %w", row.ID, err)
		}
		return nil
	})
}

// GetSearch returns a search and its steps in order.
func (s *Store) GetSearch(ctx context.Context, id uuid.UUID) (searches.Search, error) {
	var row searchRow
	err := s.conn(ctx).Where("id = ?", id).Take(&row).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return searches.Search{}, apperr.New(apperr.NotFound, "search %s not found", id)
	}
	if err != nil {
		return searches.Search{}, fmt.Errorf("read search %s: %w", id, err)
	}
	sr, err := searchFromRow(&row)
	if err != nil {
		return searches.Search{}, err
	}
	var steps []searchStepRow
	if err := s.conn(ctx).Where("search_id = ?", id).Order("step").Find(&steps).Error; err != nil {
		return searches.Search{}, fmt.Errorf("read steps of search %s: %w", id, err)
	}
	sr.Steps = make([]searches.Step, len(steps))
	for i := range steps {
		if sr.Steps[i], err = stepFromRow(&steps[i]); err != nil {
			return searches.Search{}, err
		}
	}
	return sr, nil
}

// ListSearches returns one page of searches, newest first, without steps.
func (s *Store) ListSearches(ctx context.Context, f searches.Filter) ([]searches.Search, error) {
	var rows []searchRow
	q := keyset(inProjects(s.conn(ctx).Model(&searchRow{}), f.ProjectIDs, f.AllProjects), f.Page)
	if err := q.Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("list searches: %w", err)
	}
	out := make([]searches.Search, len(rows))
	for i := range rows {
		var err error
		if out[i], err = searchFromRow(&rows[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// SaveStep inserts or replaces a step and touches its search.
func (s *Store) SaveStep(ctx context.Context, searchID uuid.UUID, st searches.Step) error {
	outs := st.Outcomes
	if outs == nil {
		outs = []threshold.Outcome{}
	}
	ob, err := json.Marshal(outs)
	if err != nil {
		return fmt.Errorf("encode step outcomes: %w", err)
	}
	row := searchStepRow{
		SearchID: searchID, Step: st.Index, QPS: st.QPS, RunID: nullUUID(st.RunID), Status: string(st.Status),
		Count: st.Count, Errors: st.Errors, AchievedQPS: st.AchievedQPS,
		P50US: st.P50US, P90US: st.P90US, P99US: st.P99US, MaxUS: st.MaxUS, Outcomes: ob, Detail: st.Detail,
		StartedAt: st.StartedAt, FinishedAt: nullTime(st.FinishedAt),
	}
	return s.conn(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Clauses(clause.OnConflict{UpdateAll: true}).Create(&row).Error; err != nil {
			return fmt.Errorf("save step %d of search %s: %w", st.Index, searchID, err)
		}
		if err := tx.Model(&searchRow{}).Where("id = ?", searchID).Update("updated_at", time.Now().UTC()).Error; err != nil {
			return fmt.Errorf("touch search %s: %w", searchID, err)
		}
		return nil
	})
}

// EndSearch writes the end of a running search; false when it was not
// running.
func (s *Store) EndSearch(ctx context.Context, sr searches.Search) (bool, error) {
	res := s.conn(ctx).Model(&searchRow{}).Where("id = ? AND status = ?", sr.ID, string(searches.Running)).Updates(map[string]any{
		"status": string(sr.Status), "outcome": string(sr.Outcome), "best_qps": sr.BestQPS,
		"first_fail_qps": sr.FirstFailQPS, "message": sr.Message, "finished_at": nullTime(sr.FinishedAt),
		"updated_at": time.Now().UTC(),
	})
	if res.Error != nil {
		return false, fmt.Errorf("end search %s: %w", sr.ID, res.Error)
	}
	return res.RowsAffected == 1, nil
}

// FailStaleSearches ends the running searches without a lease (created
// before migration 00019) untouched since before.
func (s *Store) FailStaleSearches(ctx context.Context, before time.Time, message string) (int, error) {
	now := time.Now().UTC()
	res := s.conn(ctx).Model(&searchRow{}).Where("status = ? AND lease_until IS NULL AND updated_at < ?", string(searches.Running), before).
		Updates(map[string]any{"status": string(searches.Failed), "message": message, "finished_at": now, "updated_at": now})
	if res.Error != nil {
		return 0, fmt.Errorf("fail stale searches: %w", res.Error)
	}
	return int(res.RowsAffected), nil
}
