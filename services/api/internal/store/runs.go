package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// runRow is a row of runs.
type runRow struct {
	ID           uuid.UUID  `gorm:"column:id;primaryKey"`
	ProjectID    uuid.UUID  `gorm:"column:project_id"`
	TestID       *uuid.UUID `gorm:"column:test_id"`
	Name         string     `gorm:"column:name"`
	Status       string     `gorm:"column:status"`
	Verdict      *string    `gorm:"column:verdict"`
	VerdictNote  string     `gorm:"column:verdict_note"`
	Source       string     `gorm:"column:source"`
	Spec         []byte     `gorm:"column:spec"`
	Thresholds   textArray  `gorm:"column:thresholds"`
	Labels       []byte     `gorm:"column:labels"`
	Target       string     `gorm:"column:target"`
	QPSRequested float64    `gorm:"column:qps_requested"`
	CreatedBy    *uuid.UUID `gorm:"column:created_by"`
	CreatedAt    time.Time  `gorm:"column:created_at"`
	UpdatedAt    time.Time  `gorm:"column:updated_at"`
	StartedAt    *time.Time `gorm:"column:started_at"`
	EndedAt      *time.Time `gorm:"column:ended_at"`
	Error        string     `gorm:"column:error"`
	Count        int64      `gorm:"column:count"`
	Errors       int64      `gorm:"column:errors"`
	QPSActual    *float64   `gorm:"column:qps_actual"`
	MinUS        *float64   `gorm:"column:min_us"`
	AvgUS        *float64   `gorm:"column:avg_us"`
	P50US        *float64   `gorm:"column:p50_us"`
	P90US        *float64   `gorm:"column:p90_us"`
	P99US        *float64   `gorm:"column:p99_us"`
	MaxUS        *float64   `gorm:"column:max_us"`
	StartAt      *time.Time `gorm:"column:start_at"`
	Deadline     *time.Time `gorm:"column:deadline"`
	ShardCount   int        `gorm:"column:shard_count"`
	Degraded     bool       `gorm:"column:degraded"`
	// ThresholdResults is a jsonb array of outcomeJSON; NULL until judged.
	ThresholdResults []byte     `gorm:"column:threshold_results"`
	BaselineRunID    *uuid.UUID `gorm:"column:baseline_run_id"`
	// Seq is assigned by Postgres (bigserial); never written.
	Seq             int64      `gorm:"column:seq;->"`
	AllowPartial    bool       `gorm:"column:allow_partial"`
	BaselineRequest *uuid.UUID `gorm:"column:baseline_request"`
	// BaselineLast is NULL unless the run pools its test's last N passing
	// runs; BaselinePool is a jsonb baselinePoolJSON (migration 00025).
	BaselineLast *int   `gorm:"column:baseline_last"`
	BaselinePool []byte `gorm:"column:baseline_pool"`
	AbortedBy    string `gorm:"column:aborted_by"`
	// EchoProfile is a jsonb runs.EchoProfile; NULL when none.
	EchoProfile        []byte     `gorm:"column:echo_profile"`
	Pinned             bool       `gorm:"column:pinned"`
	IntervalsDroppedAt *time.Time `gorm:"column:intervals_dropped_at"`
}

// TableName returns the table of runRow.
func (runRow) TableName() string { return "runs" }

// outboxRow is a row of outbox.
type outboxRow struct {
	ID          int64      `gorm:"column:id;primaryKey;autoIncrement"`
	Topic       string     `gorm:"column:topic"`
	Key         string     `gorm:"column:key"`
	Payload     []byte     `gorm:"column:payload"`
	CreatedAt   time.Time  `gorm:"column:created_at"`
	Attempts    int        `gorm:"column:attempts"`
	PublishedAt *time.Time `gorm:"column:published_at"`
}

// TableName returns the table of outboxRow.
func (outboxRow) TableName() string { return "outbox" }

// idempotencyRow is a row of idempotency_keys.
type idempotencyRow struct {
	ProjectID   uuid.UUID `gorm:"column:project_id;primaryKey"`
	Key         string    `gorm:"column:key;primaryKey"`
	RequestHash []byte    `gorm:"column:request_hash"`
	RunID       uuid.UUID `gorm:"column:run_id"`
	CreatedAt   time.Time `gorm:"column:created_at"`
}

// TableName returns the table of idempotencyRow.
func (idempotencyRow) TableName() string { return "idempotency_keys" }

// runToRow maps a new run to its row; summary columns start empty.
func runToRow(r runs.Run) (runRow, error) {
	sp, err := json.Marshal(r.Spec)
	if err != nil {
		return runRow{}, fmt.Errorf("encode spec: %w", err)
	}
	created := orNow(r.CreatedAt)
	updated := r.UpdatedAt
	if updated.IsZero() {
		updated = created
	}
	return runRow{
		ID: r.ID, ProjectID: r.ProjectID, TestID: nullUUID(r.TestID), Name: r.Name, Status: string(r.Status),
		Verdict: nullString(r.Verdict), Source: string(r.Source), Spec: sp, Thresholds: textArray(r.Thresholds),
		Labels: labelsJSON(r.Labels), Target: r.Target, QPSRequested: r.QPSRequested, CreatedBy: nullUUID(r.CreatedBy),
		CreatedAt: created, UpdatedAt: updated, StartedAt: nullTime(r.StartedAt), EndedAt: nullTime(r.EndedAt), Error: r.Error,
		AllowPartial: r.AllowPartial, BaselineRequest: nullUUID(r.BaselineRequest), AbortedBy: r.AbortedBy,
		EchoProfile: echoProfileJSON(r.EchoProfile), BaselineLast: nullInt(r.BaselineLast),
	}, nil
}

// runFromRow maps a row to a run.
func runFromRow(r runRow) (runs.Run, error) {
	var sp spec.Spec
	if err := json.Unmarshal(r.Spec, &sp); err != nil {
		return runs.Run{}, fmt.Errorf("decode spec of run %s: %w", r.ID, err)
	}
	labels, err := parseLabels(r.Labels)
	if err != nil {
		return runs.Run{}, fmt.Errorf("run %s: %w", r.ID, err)
	}
	outcomes, err := parseOutcomes(r.ThresholdResults)
	if err != nil {
		return runs.Run{}, fmt.Errorf("run %s: %w", r.ID, err)
	}
	pool, err := parseBaselinePool(r.BaselinePool)
	if err != nil {
		return runs.Run{}, fmt.Errorf("run %s: %w", r.ID, err)
	}
	return runs.Run{
		ID: r.ID, ProjectID: r.ProjectID, TestID: fromNullUUID(r.TestID), Name: r.Name, Status: runs.Status(r.Status),
		Verdict: fromNullString(r.Verdict), VerdictNote: r.VerdictNote, Source: runs.Source(r.Source), Spec: sp, Thresholds: []string(r.Thresholds),
		Labels: labels, Target: r.Target, QPSRequested: r.QPSRequested, CreatedBy: fromNullUUID(r.CreatedBy),
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(), StartedAt: fromNullTime(r.StartedAt),
		EndedAt: fromNullTime(r.EndedAt), Error: r.Error, Summary: summaryFromRow(r),
		StartAt: fromNullTime(r.StartAt), Deadline: fromNullTime(r.Deadline), ShardCount: r.ShardCount, Degraded: r.Degraded,
		ThresholdResults: outcomes, BaselineRunID: fromNullUUID(r.BaselineRunID), Seq: r.Seq,
		AllowPartial: r.AllowPartial, BaselineRequest: fromNullUUID(r.BaselineRequest), AbortedBy: r.AbortedBy,
		EchoProfile: parseEchoProfile(r.EchoProfile), Pinned: r.Pinned, IntervalsDroppedAt: fromNullTime(r.IntervalsDroppedAt),
		BaselineLast: fromNullInt(r.BaselineLast), BaselinePool: pool,
	}, nil
}

// echoProfileJSON encodes a run's echo profile; nil (NULL) when none.
func echoProfileJSON(p *runs.EchoProfile) []byte {
	if p == nil {
		return nil
	}
	b, err := json.Marshal(p)
	if err != nil {
		return nil
	}
	return b
}

// parseEchoProfile decodes a run's echo profile; nil when none or unreadable.
func parseEchoProfile(b []byte) *runs.EchoProfile {
	if len(b) == 0 {
		return nil
	}
	var p runs.EchoProfile
	if json.Unmarshal(b, &p) != nil {
		return nil
	}
	return &p
}

// summaryFromRow returns the run's figures, or nil when it has none yet
// (no requests counted and no measured rate).
func summaryFromRow(r runRow) *runs.Summary {
	if r.Count == 0 && r.QPSActual == nil {
		return nil
	}
	f := func(p *float64) float64 {
		if p == nil {
			return 0
		}
		return *p
	}
	return &runs.Summary{
		Count: r.Count, Errors: r.Errors, QPS: f(r.QPSActual), MinUS: f(r.MinUS), AvgUS: f(r.AvgUS),
		P50US: f(r.P50US), P90US: f(r.P90US), P99US: f(r.P99US), MaxUS: f(r.MaxUS),
	}
}

// GetRun returns a run by id; NotFound when there is none.
func (s *Store) GetRun(ctx context.Context, id uuid.UUID) (runs.Run, error) {
	return getRun(s.conn(ctx), id)
}

// getRun reads a run with db, which may be a transaction.
func getRun(db *gorm.DB, id uuid.UUID) (runs.Run, error) {
	var row runRow
	if err := db.Where("id = ?", id).Take(&row).Error; err != nil {
		return runs.Run{}, classify(err, "get run", "run", id)
	}
	return runFromRow(row)
}

// replayed carries the run an earlier request with the same idempotency
// key made; it rolls back the transaction that found it.
type replayed struct{ run runs.Run }

// Error says why the transaction was rolled back.
func (r *replayed) Error() string { return "idempotency key replayed run " + r.run.ID.String() }

// CreateRun inserts the run, its idempotency key (when set), its dispatch
// outbox row and an audit entry in one transaction. The run goes in first
// and the key right after it: a concurrent request with the same key waits
// on the key's unique index until this transaction ends, then finds the
// key taken, rolls back its own run and returns this one (created=false),
// or a Conflict when its request differs.
//
// With n.MaxActive set it first locks the project's row, so creations in
// one project run one after another, and counts the project's active runs
// after its own insert (a replay has returned by then): past MaxActive it
// rolls back with runs.ConcurrencyError.
func (s *Store) CreateRun(ctx context.Context, n runs.NewRun) (runs.Run, bool, error) {
	row, err := runToRow(n.Run)
	if err != nil {
		return runs.Run{}, false, fmt.Errorf("create run: %w", err)
	}
	err = s.inTx(ctx, func(tx *gorm.DB) error {
		if n.MaxActive > 0 {
			if err := lockProject(tx, row.ProjectID); err != nil {
				return err
			}
		}
		if err := tx.Clauses(clause.Returning{}).Create(&row).Error; err != nil {
			return fmt.Errorf("insert run: %w", err)
		}
		if n.Idempotency.Key != "" {
			if err := claimKey(tx, row, n.Idempotency); err != nil {
				return err
			}
		}
		if n.MaxActive > 0 {
			if err := checkActive(tx, row.ProjectID, n.MaxActive); err != nil {
				return err
			}
		}
		out := outboxRow{Topic: runs.TopicRunDispatch, Key: row.ID.String(), Payload: n.Dispatch, CreatedAt: time.Now().UTC()}
		if err := tx.Create(&out).Error; err != nil {
			return fmt.Errorf("insert outbox row: %w", err)
		}
		return audit(tx, n.Actor, auditEntry{
			Action: "run.create", Kind: "run", ID: row.ID.String(), Project: row.ProjectID,
			Details: map[string]any{"name": row.Name, "source": row.Source, "test_id": row.TestID},
		})
	})
	if rep := (*replayed)(nil); errors.As(err, &rep) {
		return rep.run, false, nil
	}
	if err != nil {
		return runs.Run{}, false, fmt.Errorf("create run: %w", err)
	}
	run, err := runFromRow(row)
	if err != nil {
		return runs.Run{}, false, fmt.Errorf("create run: %w", err)
	}
	return run, true, nil
}

// lockProject takes the row lock of project id until the transaction
// ends. FOR NO KEY UPDATE does not block the key-share locks that inserts
// referencing the project take.
func lockProject(tx *gorm.DB, id uuid.UUID) error {
	var locked []uuid.UUID
	if err := tx.Raw("SELECT id FROM projects WHERE id = ? FOR NO KEY UPDATE", id).Scan(&locked).Error; err != nil {
		return fmt.Errorf("lock project %s: %w", id, err)
	}
	if len(locked) == 0 {
		return notFound("project", id)
	}
	return nil
}

// checkActive refuses, with runs.ConcurrencyError, a project with more
// than limit active runs.
func checkActive(tx *gorm.DB, project uuid.UUID, limit int) error {
	var active int64
	err := tx.Model(&runRow{}).Where("project_id = ? AND status = ANY(?::text[])", project, statusArray(unfinishedStatuses())).
		Count(&active).Error
	if err != nil {
		return fmt.Errorf("count active runs of project %s: %w", project, err)
	}
	if active > int64(limit) {
		return runs.ConcurrencyError(limit)
	}
	return nil
}

// unfinishedStatuses are the statuses of a run that is not over: queued
// and the active ones.
func unfinishedStatuses() []runs.Status {
	var active []runs.Status
	for _, st := range runs.Statuses() {
		if !st.Terminal() {
			active = append(active, st)
		}
	}
	return active
}

// claimKey records key for the run in row. When the key is taken it
// returns *replayed with the earlier run for the same request, or a
// Conflict for a different one.
func claimKey(tx *gorm.DB, row runRow, key runs.Idempotency) error {
	k := idempotencyRow{ProjectID: row.ProjectID, Key: key.Key, RequestHash: key.RequestHash, RunID: row.ID, CreatedAt: row.CreatedAt}
	res := tx.Clauses(clause.OnConflict{DoNothing: true}).Create(&k)
	if res.Error != nil {
		return fmt.Errorf("insert idempotency key: %w", res.Error)
	}
	if res.RowsAffected == 1 {
		return nil
	}
	var prev idempotencyRow
	if err := tx.Where("project_id = ? AND key = ?", row.ProjectID, key.Key).Take(&prev).Error; err != nil {
		return fmt.Errorf("load idempotency key: %w", err)
	}
	if !bytes.Equal(prev.RequestHash, key.RequestHash) {
		return apperr.New(apperr.Conflict, "Idempotency-Key %q was used with a different request", key.Key)
	}
	run, err := getRun(tx, prev.RunID)
	if err != nil {
		return fmt.Errorf("load replayed run: %w", err)
	}
	return &replayed{run: run}
}

// MoveRun applies m when the run's status is in runs.From(m.To) and
// returns the run after the change, with its control outbox row (when
// m.Control is set) and an audit entry in the same transaction. Conflict
// when the run is in another status, NotFound when there is no such run.
func (s *Store) MoveRun(ctx context.Context, m runs.Move) (runs.Run, error) {
	from := runs.From(m.To)
	if len(from) == 0 {
		return runs.Run{}, apperr.New(apperr.Conflict, "no run can become %s", m.To)
	}
	at := orNow(m.At)
	set := map[string]any{"status": string(m.To), "updated_at": gorm.Expr("now()")}
	if m.To == runs.Running {
		set["started_at"] = at
	}
	if m.To.Terminal() {
		set["ended_at"] = at
	}
	if m.To == runs.Failed {
		set["verdict"] = runs.VerdictError
	}
	if m.Error != "" {
		set["error"] = m.Error
	}
	if m.AbortedBy != "" {
		set["aborted_by"] = m.AbortedBy
	}
	var row runRow
	err := s.inTx(ctx, func(tx *gorm.DB) error {
		res := tx.Model(&row).Clauses(clause.Returning{}).
			Where("id = ? AND status = ANY(?::text[])", m.RunID, statusArray(from)).Updates(set)
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			cur, err := getRun(tx, m.RunID)
			if err != nil {
				return err
			}
			return apperr.New(apperr.Conflict, "run is %s; it cannot become %s", cur.Status, m.To)
		}
		if m.Control != nil {
			out := outboxRow{Topic: runs.TopicRunControl, Key: m.RunID.String(), Payload: m.Control, CreatedAt: time.Now().UTC()}
			if err := tx.Create(&out).Error; err != nil {
				return fmt.Errorf("insert outbox row: %w", err)
			}
		}
		return audit(tx, m.Actor, auditEntry{
			Action: "run.move", Kind: "run", ID: m.RunID.String(), Project: row.ProjectID,
			Details: map[string]any{"to": m.To, "error": m.Error, "aborted_by": m.AbortedBy},
		})
	})
	if err != nil {
		return runs.Run{}, fmt.Errorf("move run %s to %s: %w", m.RunID, m.To, err)
	}
	return runFromRow(row)
}

// statusArray returns statuses as a text[] parameter.
func statusArray(statuses []runs.Status) textArray {
	out := make(textArray, len(statuses))
	for i, st := range statuses {
		out[i] = string(st)
	}
	return out
}
