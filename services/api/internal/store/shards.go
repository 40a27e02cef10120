package store

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// activeStatuses are the statuses of runs whose agents may still be at
// work (runs_active_idx covers them).
const activeStatuses = `('dispatching', 'running', 'stopping')`

// pendingShards are the shard statuses that still wait for a final.
const pendingShards = `('assigned', 'running')`

// RecordFinal stores a shard's final snapshot in one transaction: its
// dedupe row in run_snapshots, the URLs it wrote, and the shard's totals,
// status and final snapshot (recordFinal). A snapshot stored before changes
// nothing (Recorded.Duplicate). NotFound when the run or the shard does not
// exist. Interval snapshots are stored in batches (BeginIntervals).
//
// The run's row is locked FOR SHARE, so FinishRun (FOR UPDATE) never
// decides on shards a snapshot is changing: a final that commits first is
// in the result, one that waits finds the run ended and is ignored.
func (s *Store) RecordFinal(ctx context.Context, rec runs.SnapshotRecord) (runs.Recorded, error) {
	if !rec.Final {
		return runs.Recorded{}, fmt.Errorf("record final %s/%d/%d: an interval snapshot", rec.RunID, rec.Shard, rec.Seq)
	}
	var out runs.Recorded
	err := s.inTx(ctx, func(tx *gorm.DB) error {
		var run runRow
		if err := tx.Clauses(clause.Locking{Strength: "SHARE"}).Select("id", "status").
			Where("id = ?", rec.RunID).Take(&run).Error; err != nil {
			return classify(err, "lock run", "run", rec.RunID)
		}
		var sh shardRow
		if err := tx.Clauses(clause.Locking{Strength: "UPDATE"}).Select("run_id", "shard", "status", "agent_id").
			Where("run_id = ? AND shard = ?", rec.RunID, rec.Shard).Take(&sh).Error; err != nil {
			return classify(err, "lock shard", "shard", rec.Shard)
		}
		if sh.AgentID == nil || *sh.AgentID != rec.Agent {
			return notFound("shard of agent "+rec.Agent.String(), rec.Shard)
		}
		res := tx.Exec(`INSERT INTO run_snapshots (run_id, shard, seq) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`,
			rec.RunID, rec.Shard, rec.Seq)
		if res.Error != nil {
			return fmt.Errorf("insert snapshot key: %w", res.Error)
		}
		if res.RowsAffected == 0 {
			out.Duplicate = true
			return nil
		}
		if err := addWrittenURLs(tx, rec); err != nil {
			return err
		}
		ended := runs.Status(run.Status).Terminal()
		return recordFinal(tx, rec, ended || runs.ShardStatus(sh.Status) == runs.ShardDone, &out)
	})
	if err != nil {
		return runs.Recorded{}, fmt.Errorf("record snapshot %s/%d/%d: %w", rec.RunID, rec.Shard, rec.Seq, err)
	}
	return out, nil
}

// recordFinal marks the shard done with its final snapshot and totals,
// and tells whether the run is settled; a lost shard too, whose agent came
// back while its run runs (docs/reliability.md §5). A final that comes too
// late (the run ended, or the shard had its final) only moves last_seq.
func recordFinal(tx *gorm.DB, rec runs.SnapshotRecord, late bool, out *runs.Recorded) error {
	set := map[string]any{"last_seq": gorm.Expr("GREATEST(last_seq, ?)", rec.Seq), "updated_at": gorm.Expr("now()")}
	if late {
		out.Ignored = true
		return updateShard(tx, rec, set)
	}
	set["status"] = string(runs.ShardDone)
	set["final_received"] = true
	set["final_snapshot"] = rec.Encoded
	set["count"] = rec.Count
	set["errors"] = rec.Errors
	if err := updateShard(tx, rec, set); err != nil {
		return err
	}
	var pending int64
	if err := tx.Raw(`SELECT count(*) FROM run_shards WHERE run_id = ? AND status IN `+pendingShards, rec.RunID).
		Scan(&pending).Error; err != nil {
		return fmt.Errorf("count pending shards: %w", err)
	}
	out.Settled = pending == 0
	return nil
}

// updateShard applies set to the snapshot's shard.
func updateShard(tx *gorm.DB, rec runs.SnapshotRecord, set map[string]any) error {
	if err := tx.Model(&shardRow{}).Where("run_id = ? AND shard = ?", rec.RunID, rec.Shard).Updates(set).Error; err != nil {
		return fmt.Errorf("update shard: %w", err)
	}
	return nil
}

// lostRow is a shard a sweep marked lost.
type lostRow struct {
	RunID    uuid.UUID `gorm:"column:run_id"`
	Shard    int       `gorm:"column:shard"`
	Deadline bool      `gorm:"column:deadline"`
}

// sweepSQL marks lost, in one statement, up to a limit of pending shards
// of active runs whose deadline is before the cutoff (deadline + grace <
// now), or (when the heartbeat check is on) whose run has started and
// whose agent has no heartbeat. Shards locked by a snapshot being stored
// are left for the next sweep, so replicas sweeping at once neither wait
// nor clash. Parameters: cutoff, cutoff, check, now, live agents, limit.
const sweepSQL = `
WITH due AS (
    SELECT s.run_id, s.shard, r.deadline < ? AS deadline
    FROM run_shards s JOIN runs r ON r.id = s.run_id
    WHERE r.status IN ` + activeStatuses + ` AND s.status IN ` + pendingShards + `
      AND (r.deadline < ?
           OR (? AND r.start_at <= ? AND (s.agent_id IS NULL OR NOT s.agent_id = ANY(?::uuid[]))))
      AND (r.deadline < ? OR NOT (s.run_id::text || '/' || s.shard) = ANY(?::text[]))
    ORDER BY r.deadline, s.run_id, s.shard
    LIMIT ?
    FOR UPDATE OF s SKIP LOCKED
)
UPDATE run_shards s SET status = 'lost', updated_at = now()
FROM due WHERE s.run_id = due.run_id AND s.shard = due.shard
RETURNING s.run_id, s.shard, due.deadline`

// settledSQL lists active runs none of whose shards is pending.
const settledSQL = `
SELECT r.id FROM runs r
WHERE r.status IN ` + activeStatuses + ` AND r.shard_count > 0
  AND NOT EXISTS (SELECT 1 FROM run_shards s WHERE s.run_id = r.id AND s.status IN ` + pendingShards + `)
ORDER BY r.deadline, r.id
LIMIT ?`

// SweepShards marks lost the pending shards of active runs whose agent is
// gone or whose deadline and grace have passed (up to sw.Limit), except
// shards with snapshots still queued until sw.Backlog more has passed, then
// returns up to sw.Limit active runs whose every shard is done or lost,
// for the finisher. Safe to run from several replicas at once.
func (s *Store) SweepShards(ctx context.Context, sw runs.Sweep) (runs.Swept, error) {
	var lost []lostRow
	live := uuidArray(sw.Live)
	if live == nil {
		live = uuidArray{}
	}
	now := sw.Now.UTC()
	cutoff := now.Add(-sw.Grace)
	queued := textArray(sw.Queued)
	if queued == nil {
		queued = textArray{}
	}
	hard := cutoff.Add(-sw.Backlog)
	err := s.conn(ctx).Raw(sweepSQL, cutoff, cutoff, sw.CheckAgents, now, live, hard, queued, sw.Limit).Scan(&lost).Error
	if err != nil {
		return runs.Swept{}, fmt.Errorf("sweep shards: %w", err)
	}
	var out runs.Swept
	for _, l := range lost {
		out.Lost = append(out.Lost, runs.LostShard(l))
	}
	if err := s.conn(ctx).Raw(settledSQL, sw.Limit).Scan(&out.Settled).Error; err != nil {
		return runs.Swept{}, fmt.Errorf("find settled runs: %w", err)
	}
	return out, nil
}

// ShardStates returns a run's shards in index order, final snapshots
// included.
func (s *Store) ShardStates(ctx context.Context, runID uuid.UUID) ([]runs.ShardState, error) {
	var rows []shardRow
	if err := s.conn(ctx).Where("run_id = ?", runID).Order("shard").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("read shards of run %s: %w", runID, err)
	}
	return shardStates(rows), nil
}

// shardStates maps shard rows.
func shardStates(rows []shardRow) []runs.ShardState {
	out := make([]runs.ShardState, len(rows))
	for i := range rows {
		r := &rows[i]
		out[i] = runs.ShardState{
			Index: r.Shard, AgentID: fromNullUUID(r.AgentID), Status: runs.ShardStatus(r.Status), LastSeq: r.LastSeq,
			Count: r.Count, Errors: r.Errors,
		}
		if r.FinalReceived {
			out[i].Final = r.FinalSnapshot
		}
	}
	return out
}

// ShardProgress returns a run's shards in index order. A run not yet
// dispatched (or no such run) has none.
func (s *Store) ShardProgress(ctx context.Context, runID uuid.UUID) ([]runs.ShardProgress, error) {
	var rows []shardRow
	// Every column but final_snapshot: it may be large and is the finisher's.
	if err := s.conn(ctx).Select("run_id", "shard", "agent_id", "agent_name", "qps", "connections", "status",
		"last_seq", "final_received", "count", "errors", "updated_at").
		Where("run_id = ?", runID).Order("shard").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("read shard progress of run %s: %w", runID, err)
	}
	out := make([]runs.ShardProgress, len(rows))
	for i := range rows {
		r := &rows[i]
		out[i] = runs.ShardProgress{
			Shard: runs.Shard{
				Index: r.Shard, AgentID: fromNullUUID(r.AgentID), AgentName: r.AgentName, QPS: r.QPS,
				Connections: r.Connections,
			},
			Status: runs.ShardStatus(r.Status), LastSeq: max(r.LastSeq, 0), FinalReceived: r.FinalReceived,
			Count: r.Count, Errors: r.Errors, UpdatedAt: r.UpdatedAt.UTC(),
		}
	}
	return out, nil
}
