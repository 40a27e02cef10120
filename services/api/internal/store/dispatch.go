package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// ClaimOutbox locks up to limit due outbox rows, oldest first, and passes
// them to fn inside one transaction, then records fn's outcome. Rows locked
// by another replica are skipped, so replicas never publish a row at once.
// It returns the number of rows published.
func (s *Store) ClaimOutbox(ctx context.Context, limit int, fn func([]runs.OutboxMessage) runs.OutboxOutcome) (int, error) {
	n := 0
	err := s.inTx(ctx, func(tx *gorm.DB) error {
		var rows []outboxRow
		if err := tx.Clauses(clause.Locking{Strength: "UPDATE", Options: "SKIP LOCKED"}).
			Where("published_at IS NULL AND (not_before IS NULL OR not_before <= now())").
			Order("id").Limit(limit).Find(&rows).Error; err != nil {
			return fmt.Errorf("read outbox: %w", err)
		}
		if len(rows) == 0 {
			return nil
		}
		msgs := make([]runs.OutboxMessage, len(rows))
		for i, r := range rows {
			msgs[i] = runs.OutboxMessage{ID: r.ID, Topic: r.Topic, Key: r.Key, Payload: r.Payload, Attempts: r.Attempts, CreatedAt: r.CreatedAt}
		}
		out := fn(msgs)
		n = len(out.Published)
		for _, r := range rows {
			var set map[string]any
			switch at, later := out.Later[r.ID]; {
			case slices.Contains(out.Published, r.ID):
				set = map[string]any{"published_at": gorm.Expr("now()"), "attempts": gorm.Expr("attempts + 1")}
			case later:
				set = map[string]any{"not_before": at.UTC(), "attempts": gorm.Expr("attempts + 1")}
			default:
				set = map[string]any{
					"not_before": gorm.Expr("now() + interval '1 second' * least(attempts + 1, 10)"),
					"attempts":   gorm.Expr("attempts + 1"),
				}
			}
			if err := tx.Model(&outboxRow{}).Where("id = ?", r.ID).Updates(set).Error; err != nil {
				return fmt.Errorf("update outbox row %d: %w", r.ID, err)
			}
		}
		return nil
	})
	return n, err
}

// shardRow is a row of run_shards.
type shardRow struct {
	RunID         uuid.UUID  `gorm:"column:run_id;primaryKey"`
	Shard         int        `gorm:"column:shard;primaryKey"`
	AgentID       *uuid.UUID `gorm:"column:agent_id"`
	AgentName     string     `gorm:"column:agent_name"`
	QPS           float64    `gorm:"column:qps"`
	Connections   int        `gorm:"column:connections"`
	Status        string     `gorm:"column:status"`
	LastSeq       int64      `gorm:"column:last_seq"`
	FinalReceived bool       `gorm:"column:final_received"`
	Count         int64      `gorm:"column:count"`
	Errors        int64      `gorm:"column:errors"`
	FinalSnapshot []byte     `gorm:"column:final_snapshot"`
	UpdatedAt     time.Time  `gorm:"column:updated_at"`
}

// TableName returns the table of shardRow.
func (shardRow) TableName() string { return "run_shards" }

// PlanRun moves a queued run to dispatching and stores its plan: start_at,
// deadline, shard count and one run_shards row per shard (agents it has
// not seen get a registry row). Conflict when the run is no longer queued
// (stopped meanwhile, or another replica dispatched it).
func (s *Store) PlanRun(ctx context.Context, p runs.Plan) (runs.Run, error) {
	if len(p.Shards) == 0 {
		return runs.Run{}, errors.New("plan run: no shards")
	}
	var row runRow
	err := s.inTx(ctx, func(tx *gorm.DB) error {
		res := tx.Model(&row).Clauses(clause.Returning{}).
			Where("id = ? AND status = ?", p.RunID, string(runs.Queued)).
			Updates(map[string]any{
				"status": string(runs.Dispatching), "start_at": p.StartAt.UTC(), "deadline": p.Deadline.UTC(),
				"shard_count": len(p.Shards), "updated_at": gorm.Expr("now()"),
			})
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			cur, err := getRun(tx, p.RunID)
			if err != nil {
				return err
			}
			return apperr.New(apperr.Conflict, "run is %s; it cannot be dispatched", cur.Status)
		}
		shards := make([]shardRow, len(p.Shards))
		for i, sh := range p.Shards {
			if err := tx.Exec(`INSERT INTO agents (id, name) VALUES (?, ?) ON CONFLICT (id) DO NOTHING`,
				sh.AgentID, sh.AgentName).Error; err != nil {
				return fmt.Errorf("register agent %s: %w", sh.AgentID, err)
			}
			id := sh.AgentID
			shards[i] = shardRow{
				RunID: p.RunID, Shard: sh.Index, AgentID: &id, AgentName: sh.AgentName, QPS: sh.QPS,
				Connections: sh.Connections, Status: "assigned", LastSeq: 0, UpdatedAt: time.Now().UTC(),
			}
		}
		if err := tx.Create(&shards).Error; err != nil {
			return fmt.Errorf("insert shards: %w", err)
		}
		return audit(tx, auth.Actor{}, auditEntry{
			Action: "run.move", Kind: "run", ID: p.RunID.String(), Project: row.ProjectID,
			Details: map[string]any{"to": runs.Dispatching, "shards": len(p.Shards)},
		})
	})
	if err != nil {
		return runs.Run{}, fmt.Errorf("plan run %s: %w", p.RunID, err)
	}
	return runFromRow(row)
}

// RunShards returns a run's shards in index order.
func (s *Store) RunShards(ctx context.Context, runID uuid.UUID) ([]runs.Shard, error) {
	var rows []shardRow
	if err := s.conn(ctx).Where("run_id = ?", runID).Order("shard").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("read shards of run %s: %w", runID, err)
	}
	out := make([]runs.Shard, len(rows))
	for i := range rows {
		r := &rows[i]
		out[i] = runs.Shard{Index: r.Shard, AgentName: r.AgentName, QPS: r.QPS, Connections: r.Connections}
		if r.AgentID != nil {
			out[i].AgentID = *r.AgentID
		}
	}
	return out, nil
}
