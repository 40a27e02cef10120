package store

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// snapKey is the dedupe key of a snapshot in run_snapshots.
type snapKey struct {
	RunID uuid.UUID `gorm:"column:run_id"`
	Shard int       `gorm:"column:shard"`
	Seq   int64     `gorm:"column:seq"`
}

// secondKey names one second of one run.
type secondKey struct {
	run    uuid.UUID
	second int
}

// RecordIntervals stores a batch of interval snapshots (no finals) in one
// transaction, as RecordSnapshot would store each: their dedupe rows in
// run_snapshots, their shards' progress, and their seconds in
// run_intervals, each second locked, read, merged (by merge, once for all
// the batch's new snapshots of that second) and written once: merge
// returns cur with recs[i] added for every i in fresh. out[i] is
// what became of recs[i]: Duplicate when it was stored before or earlier
// in recs. NotFound when a run or shard of the batch does not exist, and
// then nothing is stored.
//
// Rows are locked in a fixed order (runs FOR SHARE, then shards, then
// seconds, each sorted), so concurrent batches wait for each other rather
// than deadlock.
func (s *Store) RecordIntervals(ctx context.Context, recs []runs.SnapshotRecord, merge func(cur runs.Interval, fresh []int) (runs.Interval, error)) ([]runs.Recorded, error) {
	out := make([]runs.Recorded, len(recs))
	err := s.inTx(ctx, func(tx *gorm.DB) error {
		for i := range out {
			out[i] = runs.Recorded{}
		}
		started, ended, err := lockBatchRuns(tx, recs)
		if err != nil {
			return err
		}
		status, err := lockBatchShards(tx, recs)
		if err != nil {
			return err
		}
		fresh, err := insertSnapshotKeys(tx, recs)
		if err != nil {
			return err
		}
		bySecond := map[secondKey][]int{}
		for i := range recs {
			rec := &recs[i]
			if !fresh[i] {
				out[i].Duplicate = true
				continue
			}
			if err := addWrittenURLs(tx, *rec); err != nil {
				return err
			}
			out[i].Second = runs.SecondOf(started[rec.RunID], rec.IntervalStart)
			k := secondKey{rec.RunID, out[i].Second}
			bySecond[k] = append(bySecond[k], i)
		}
		seconds := slices.SortedFunc(maps.Keys(bySecond), func(a, b secondKey) int {
			return cmp.Or(slices.Compare(a.run[:], b.run[:]), cmp.Compare(a.second, b.second))
		})
		for _, k := range seconds {
			idx := bySecond[k]
			if err := mergeInterval(tx, k.run, k.second, func(cur runs.Interval) (runs.Interval, error) {
				return merge(cur, idx)
			}); err != nil {
				return err
			}
		}
		return updateBatchShards(tx, recs, fresh, ended, status)
	})
	if err != nil {
		return nil, fmt.Errorf("record %d interval snapshots: %w", len(recs), err)
	}
	return out, nil
}

// lockBatchRuns locks the runs of recs FOR SHARE, in id order, and returns
// their start times and whether each has ended.
func lockBatchRuns(tx *gorm.DB, recs []runs.SnapshotRecord) (map[uuid.UUID]time.Time, map[uuid.UUID]bool, error) {
	var ids []uuid.UUID
	for i := range recs {
		if !slices.Contains(ids, recs[i].RunID) {
			ids = append(ids, recs[i].RunID)
		}
	}
	var rows []runRow
	if err := tx.Raw(`SELECT id, status, start_at FROM runs WHERE id = ANY(?::uuid[]) ORDER BY id FOR SHARE`,
		uuidArray(ids)).Scan(&rows).Error; err != nil {
		return nil, nil, fmt.Errorf("lock runs: %w", err)
	}
	started := make(map[uuid.UUID]time.Time, len(rows))
	ended := make(map[uuid.UUID]bool, len(rows))
	for i := range rows {
		started[rows[i].ID] = fromNullTime(rows[i].StartAt)
		ended[rows[i].ID] = runs.Status(rows[i].Status).Terminal()
	}
	for _, id := range ids {
		if _, ok := started[id]; !ok {
			return nil, nil, notFound("run", id)
		}
	}
	return started, ended, nil
}

// shardKey names one shard of one run.
type shardKey struct {
	run   uuid.UUID
	shard int
}

// lockBatchShards locks the shards of recs FOR UPDATE, in (run, shard)
// order, and returns their statuses.
func lockBatchShards(tx *gorm.DB, recs []runs.SnapshotRecord) (map[shardKey]runs.ShardStatus, error) {
	var ids []uuid.UUID
	var keys []string
	for i := range recs {
		r := &recs[i]
		if !slices.Contains(ids, r.RunID) {
			ids = append(ids, r.RunID)
		}
		keys = append(keys, fmt.Sprintf("%s/%d", r.RunID, r.Shard))
	}
	var rows []shardRow
	if err := tx.Raw(`SELECT run_id, shard, status, agent_id FROM run_shards
WHERE run_id = ANY(?::uuid[]) AND (run_id::text || '/' || shard) = ANY(?::text[])
ORDER BY run_id, shard FOR UPDATE`, uuidArray(ids), textArray(keys)).Scan(&rows).Error; err != nil {
		return nil, fmt.Errorf("lock shards: %w", err)
	}
	status := make(map[shardKey]runs.ShardStatus, len(rows))
	agent := make(map[shardKey]uuid.UUID, len(rows))
	for i := range rows {
		k := shardKey{rows[i].RunID, rows[i].Shard}
		status[k] = runs.ShardStatus(rows[i].Status)
		if rows[i].AgentID != nil {
			agent[k] = *rows[i].AgentID
		}
	}
	for i := range recs {
		r := &recs[i]
		k := shardKey{r.RunID, r.Shard}
		if _, ok := status[k]; !ok {
			return nil, notFound("shard", r.Shard)
		}
		if agent[k] != r.Agent {
			return nil, notFound("shard of agent "+r.Agent.String(), r.Shard)
		}
	}
	return status, nil
}

// insertSnapshotKeys inserts the dedupe rows of recs and reports which
// recs were new: fresh[i] is false for a snapshot stored before or
// earlier in recs.
func insertSnapshotKeys(tx *gorm.DB, recs []runs.SnapshotRecord) ([]bool, error) {
	args := make([]any, 0, 3*len(recs))
	first := make(map[snapKey]int, len(recs))
	for i := range recs {
		r := &recs[i]
		k := snapKey{r.RunID, r.Shard, r.Seq}
		if _, ok := first[k]; ok {
			continue
		}
		first[k] = i
		args = append(args, r.RunID, r.Shard, r.Seq)
	}
	values := strings.TrimSuffix(strings.Repeat("(?, ?, ?), ", len(args)/3), ", ")
	var inserted []snapKey
	if err := tx.Raw(`INSERT INTO run_snapshots (run_id, shard, seq) VALUES `+values+
		` ON CONFLICT DO NOTHING RETURNING run_id, shard, seq`, args...).Scan(&inserted).Error; err != nil {
		return nil, fmt.Errorf("insert snapshot keys: %w", err)
	}
	fresh := make([]bool, len(recs))
	for _, k := range inserted {
		if i, ok := first[k]; ok {
			fresh[i] = true
		}
	}
	return fresh, nil
}

// updateBatchShards moves each shard's progress by its new snapshots of
// recs, as RecordSnapshot does for one.
func updateBatchShards(tx *gorm.DB, recs []runs.SnapshotRecord, fresh []bool, ended map[uuid.UUID]bool, status map[shardKey]runs.ShardStatus) error {
	type progress struct {
		seq, count, errors int64
	}
	var order []shardKey
	sum := map[shardKey]*progress{}
	for i := range recs {
		r := &recs[i]
		if !fresh[i] {
			continue
		}
		k := shardKey{r.RunID, r.Shard}
		p := sum[k]
		if p == nil {
			p = &progress{}
			sum[k] = p
			order = append(order, k)
		}
		p.seq = max(p.seq, r.Seq)
		p.count += r.Count
		p.errors += r.Errors
	}
	slices.SortFunc(order, func(a, b shardKey) int {
		return cmp.Or(slices.Compare(a.run[:], b.run[:]), cmp.Compare(a.shard, b.shard))
	})
	for _, k := range order {
		p, st := sum[k], status[k]
		set := map[string]any{"last_seq": gorm.Expr("GREATEST(last_seq, ?)", p.seq), "updated_at": gorm.Expr("now()")}
		if !ended[k.run] && st != runs.ShardDone {
			set["count"] = gorm.Expr("count + ?", p.count)
			set["errors"] = gorm.Expr("errors + ?", p.errors)
		}
		if !ended[k.run] && st == runs.ShardAssigned {
			set["status"] = string(runs.ShardRunning)
		}
		if err := updateShard(tx, runs.SnapshotRecord{RunID: k.run, Shard: k.shard}, set); err != nil {
			return err
		}
	}
	return nil
}
