package store

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// DeleteRun deletes a terminal run and, by the foreign keys (ON DELETE
// CASCADE: run_intervals, run_snapshots, run_written_urls, run_shards,
// run_results, run_timelines, run_imports, idempotency_keys,
// synced_objects), every row keyed by it; the rows that only point at it
// (runs.baseline_run_id and baseline_request, search_steps.run_id,
// sync_run_objects.run_id) are ON DELETE SET NULL and stay. Outbox rows,
// a transport log keyed by the run's id in text, stay too. It writes an
// audit entry naming how many per-second rows and snapshots went, with an audit entry naming how many per-second rows and
// snapshots went, in one transaction. Conflict when the run is not
// terminal or, without d.Force, is pinned; NotFound when there is none.
func (s *Store) DeleteRun(ctx context.Context, d runs.Deletion) error {
	err := s.inTx(ctx, func(tx *gorm.DB) error {
		var row runRow
		if err := tx.Clauses(clause.Locking{Strength: "UPDATE"}).Where("id = ?", d.RunID).Take(&row).Error; err != nil {
			return classify(err, "lock run", "run", d.RunID)
		}
		if !runs.Status(row.Status).Terminal() {
			return apperr.New(apperr.Conflict, "run %s is %s; stop it first, then delete it", d.RunID, row.Status)
		}
		if row.Pinned && !d.Force {
			return apperr.New(apperr.Conflict, "run %s is pinned; unpin it, or delete it with force=true", d.RunID)
		}
		var counts struct {
			Intervals int64
			Snapshots int64
		}
		err := tx.Raw(`SELECT (SELECT count(*) FROM run_intervals WHERE run_id = @id) AS intervals,
			(SELECT count(*) FROM run_snapshots WHERE run_id = @id) AS snapshots`, map[string]any{"id": d.RunID}).Scan(&counts).Error
		if err != nil {
			return fmt.Errorf("count rows: %w", err)
		}
		if err := tx.Exec("DELETE FROM runs WHERE id = ?", d.RunID).Error; err != nil {
			return fmt.Errorf("delete run row: %w", err)
		}
		return audit(tx, d.Actor, auditEntry{
			Action: "run.delete", Kind: "run", ID: d.RunID.String(), Project: row.ProjectID,
			Details: map[string]any{
				"name": row.Name, "status": row.Status, "created_at": row.CreatedAt.UTC(), "pinned": row.Pinned,
				"forced": d.Force, "intervals": counts.Intervals, "snapshots": counts.Snapshots,
			},
		})
	})
	if err != nil {
		return fmt.Errorf("delete run %s: %w", d.RunID, err)
	}
	return nil
}

// RunBaselineOf returns how many other runs compared with run id, pooled
// it or asked for it as their baseline, and whether it is the newest passing
// completed run of its test (the one package store's baseline picks for
// the test's next run).
func (s *Store) RunBaselineOf(ctx context.Context, id uuid.UUID) (runs.BaselineUse, error) {
	var out struct {
		ReferencedBy int64
		NewestPass   bool
	}
	err := s.conn(ctx).Raw(`SELECT
		(SELECT count(*) FROM runs o WHERE o.id <> r.id AND (o.baseline_run_id = r.id OR o.baseline_request = r.id OR `+pooledSQL+`)) AS referenced_by,
		(r.test_id IS NOT NULL AND r.status = 'completed' AND r.verdict = 'pass' AND NOT EXISTS (
			SELECT 1 FROM runs n WHERE n.project_id = r.project_id AND n.test_id = r.test_id AND n.status = 'completed'
			AND n.verdict = 'pass' AND (n.created_at, n.id) > (r.created_at, r.id))) AS newest_pass
		FROM runs r WHERE r.id = ?`, id).Scan(&out).Error
	if err != nil {
		return runs.BaselineUse{}, fmt.Errorf("baseline use of run %s: %w", id, err)
	}
	return runs.BaselineUse{ReferencedBy: out.ReferencedBy, NewestPass: out.NewestPass}, nil
}

// SetRunPinned pins or unpins a run and writes an audit entry; NotFound
// when there is no such run.
func (s *Store) SetRunPinned(ctx context.Context, id uuid.UUID, pinned bool, actor auth.Actor) (runs.Run, error) {
	var row runRow
	err := s.inTx(ctx, func(tx *gorm.DB) error {
		res := tx.Model(&row).Clauses(clause.Returning{}).Where("id = ?", id).Update("pinned", pinned)
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return notFound("run", id)
		}
		action := "run.unpin"
		if pinned {
			action = "run.pin"
		}
		return audit(tx, actor, auditEntry{Action: action, Kind: "run", ID: id.String(), Project: row.ProjectID})
	})
	if err != nil {
		return runs.Run{}, fmt.Errorf("pin run %s: %w", id, err)
	}
	return runFromRow(row)
}
