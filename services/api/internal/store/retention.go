package store

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/retention"
)

// terminalSQL is the terminal statuses of runs (runs.Status.Terminal).
const terminalSQL = "('completed', 'failed', 'canceled')"

// RetentionPolicies returns the projects that set a retention (00020).
func (s *Store) RetentionPolicies(ctx context.Context) ([]retention.Policy, error) {
	var rows []struct {
		ID           uuid.UUID
		IntervalDays *int
		RunDays      *int
	}
	err := s.conn(ctx).Raw(`SELECT id, interval_retention_days AS interval_days, run_retention_days AS run_days
		FROM projects WHERE interval_retention_days IS NOT NULL OR run_retention_days IS NOT NULL ORDER BY created_at, id`).
		Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("retention policies: %w", err)
	}
	out := make([]retention.Policy, len(rows))
	for i, r := range rows {
		out[i] = retention.Policy{ProjectID: r.ID}
		if r.IntervalDays != nil {
			out[i].IntervalDays = *r.IntervalDays
		}
		if r.RunDays != nil {
			out[i].RunDays = *r.RunDays
		}
	}
	return out, nil
}

// IntervalCandidates returns up to limit terminal, unpinned runs of the
// project created before cutoff whose per-second rows remain, oldest first
// (index runs_intervals_kept_idx).
func (s *Store) IntervalCandidates(ctx context.Context, project uuid.UUID, cutoff time.Time, limit int) ([]uuid.UUID, error) {
	var ids []uuid.UUID
	err := s.conn(ctx).Raw(`SELECT id FROM runs WHERE project_id = ? AND created_at < ? AND intervals_dropped_at IS NULL
		AND NOT pinned AND status IN `+terminalSQL+` ORDER BY created_at, id LIMIT ?`, project, cutoff, limit).Scan(&ids).Error
	if err != nil {
		return nil, fmt.Errorf("interval retention candidates: %w", err)
	}
	return ids, nil
}

// pooledSQL holds when run o pooled run r into its baseline
// (runs.baseline_pool, migration 00025).
const pooledSQL = `o.baseline_pool IS NOT NULL AND EXISTS (
	SELECT 1 FROM jsonb_array_elements_text(o.baseline_pool->'runs') p WHERE p = r.id::text)`

// runCandidateSQL selects the runs r of project @project created before
// @cutoff that retention may drop: terminal, unpinned, and no baseline
// (named, compared with or pooled) of a run that stays (pinned or created at or after @cutoff), nor the newest
// passing run of their test (which verdicts.go's baseline picks for the
// test's next run).
const runCandidateSQL = `r.project_id = @project AND r.created_at < @cutoff AND NOT r.pinned AND r.status IN ` + terminalSQL + `
	AND NOT EXISTS (SELECT 1 FROM runs o WHERE o.baseline_run_id = r.id AND (o.pinned OR o.created_at >= @cutoff))
	AND NOT EXISTS (SELECT 1 FROM runs o WHERE o.baseline_request = r.id AND (o.pinned OR o.created_at >= @cutoff))
	AND NOT EXISTS (SELECT 1 FROM runs o WHERE ` + pooledSQL + ` AND (o.pinned OR o.created_at >= @cutoff))
	AND NOT (r.test_id IS NOT NULL AND r.status = 'completed' AND r.verdict = 'pass' AND NOT EXISTS (
		SELECT 1 FROM runs n WHERE n.test_id = r.test_id AND n.project_id = r.project_id AND n.status = 'completed'
		AND n.verdict = 'pass' AND (n.created_at, n.id) > (r.created_at, r.id)))`

// RunCandidates returns up to limit runs of the project that retention
// may drop as of cutoff (runCandidateSQL), oldest first.
func (s *Store) RunCandidates(ctx context.Context, project uuid.UUID, cutoff time.Time, limit int) ([]uuid.UUID, error) {
	var ids []uuid.UUID
	err := s.conn(ctx).Raw(`SELECT r.id FROM runs r WHERE `+runCandidateSQL+` ORDER BY r.created_at, r.id LIMIT @limit`,
		map[string]any{"project": project, "cutoff": cutoff, "limit": limit}).Scan(&ids).Error
	if err != nil {
		return nil, fmt.Errorf("run retention candidates: %w", err)
	}
	return ids, nil
}

// runRowKey returns the columns that, after run_id, make up the primary
// key of a table DeleteRunRows deletes from.
func runRowKey(table string) (string, error) {
	switch table {
	case "run_intervals":
		return "second", nil
	case "run_snapshots":
		return "shard, seq", nil
	case "run_written_urls":
		return "shard, seq, idx", nil
	}
	return "", fmt.Errorf("delete run rows: no table %q", table)
}

// DeleteRunRows deletes up to limit rows of table (run_intervals,
// run_snapshots or run_written_urls) of the runs, in one statement, and
// returns how many.
func (s *Store) DeleteRunRows(ctx context.Context, table string, runIDs []uuid.UUID, limit int) (int64, error) {
	key, err := runRowKey(table)
	if err != nil {
		return 0, err
	}
	q := fmt.Sprintf(`DELETE FROM %[1]s WHERE (run_id, %[2]s) IN (
		SELECT run_id, %[2]s FROM %[1]s WHERE run_id = ANY(?::uuid[]) LIMIT ?)`, table, key)
	res := s.conn(ctx).Exec(q, uuidArray(runIDs), limit)
	if res.Error != nil {
		return 0, fmt.Errorf("delete rows of %s: %w", table, res.Error)
	}
	return res.RowsAffected, nil
}

// MarkIntervalsDropped clears the runs' shard final snapshots and sets
// their intervals_dropped_at, in one transaction.
func (s *Store) MarkIntervalsDropped(ctx context.Context, runIDs []uuid.UUID, at time.Time) error {
	err := s.inTx(ctx, func(tx *gorm.DB) error {
		if err := tx.Exec(`UPDATE run_shards SET final_snapshot = NULL WHERE run_id = ANY(?::uuid[]) AND final_snapshot IS NOT NULL`,
			uuidArray(runIDs)).Error; err != nil {
			return err
		}
		return tx.Exec(`UPDATE runs SET intervals_dropped_at = ? WHERE id = ANY(?::uuid[]) AND intervals_dropped_at IS NULL`,
			at, uuidArray(runIDs)).Error
	})
	if err != nil {
		return fmt.Errorf("mark intervals dropped: %w", err)
	}
	return nil
}

// DeleteRuns deletes the runs of the project that are still retention
// candidates as of cutoff (runCandidateSQL) and returns how many; the rest
// of their rows go by the foreign keys (lifecycle.go).
func (s *Store) DeleteRuns(ctx context.Context, project uuid.UUID, runIDs []uuid.UUID, cutoff time.Time) (int64, error) {
	res := s.conn(ctx).Exec(`DELETE FROM runs r WHERE r.id = ANY(CAST(@ids AS uuid[])) AND `+runCandidateSQL,
		map[string]any{"ids": uuidArray(runIDs), "project": project, "cutoff": cutoff})
	if res.Error != nil {
		return 0, fmt.Errorf("delete runs: %w", res.Error)
	}
	return res.RowsAffected, nil
}

// AuditRetention writes a retention.apply audit entry of the project,
// made by the system.
func (s *Store) AuditRetention(ctx context.Context, project uuid.UUID, details map[string]any) error {
	err := audit(s.conn(ctx), auth.Actor{}, auditEntry{
		Action: "retention.apply", Kind: "project", ID: project.String(), Project: project, Details: details,
	})
	if err != nil {
		return fmt.Errorf("audit retention: %w", err)
	}
	return nil
}

// PruneOutbox deletes up to limit outbox messages published before before,
// oldest first; unpublished ones stay whatever their age.
func (s *Store) PruneOutbox(ctx context.Context, before time.Time, limit int) (int64, error) {
	res := s.conn(ctx).Exec(`DELETE FROM outbox WHERE id IN (
    SELECT id FROM outbox WHERE published_at IS NOT NULL AND published_at < ? ORDER BY id LIMIT ?)`, before.UTC(), limit)
	if res.Error != nil {
		return 0, fmt.Errorf("prune outbox: %w", res.Error)
	}
	return res.RowsAffected, nil
}
