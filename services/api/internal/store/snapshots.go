package store

import (
	"cmp"
	"context"
	"errors"
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

// BeginIntervals starts storing a batch of interval snapshots (no finals)
// in one transaction, as runs.IntervalBatch says: it writes their dedupe
// rows in run_snapshots and the URLs they wrote, and locks each second
// their new snapshots fall in, once for all the batch's snapshots of that
// second. The batch's Commit writes the merged seconds and the shards'
// progress. NotFound when a run or shard of the batch does not exist, and
// then nothing is stored.
//
// Rows are locked in a fixed order (runs FOR SHARE, then shards, then
// seconds, each sorted), so concurrent batches wait for each other rather
// than deadlock. Interval snapshots are merged even into an ended run, so
// that the seconds add up to the result whatever order the snapshots came
// in; a final stored meanwhile (RecordFinal) waits for the run's lock. The
// exception is a lost shard's snapshot after its run ended: the result
// holds only what the shard had sent, so it is Ignored.
func (s *Store) BeginIntervals(ctx context.Context, recs []runs.SnapshotRecord) (runs.IntervalBatch, error) {
	tx := s.conn(ctx).Begin()
	if tx.Error != nil {
		return nil, fmt.Errorf("record %d interval snapshots: begin: %w", len(recs), tx.Error)
	}
	b := &intervalBatch{tx: tx, recs: recs, out: make([]runs.Recorded, len(recs))}
	if err := b.lock(); err != nil {
		tx.Rollback()
		return nil, fmt.Errorf("record %d interval snapshots: %w", len(recs), err)
	}
	return b, nil
}

// intervalBatch is the runs.IntervalBatch of BeginIntervals.
type intervalBatch struct {
	tx      *gorm.DB
	recs    []runs.SnapshotRecord
	out     []runs.Recorded
	fresh   []bool
	ended   map[uuid.UUID]bool
	status  map[shardKey]runs.ShardStatus
	seconds []runs.PendingSecond
	done    bool
}

// lock locks the batch's runs and shards, writes its dedupe rows and URLs,
// and locks the seconds of its new snapshots.
func (b *intervalBatch) lock() error {
	started, ended, err := lockBatchRuns(b.tx, b.recs)
	if err != nil {
		return err
	}
	if b.status, err = lockBatchShards(b.tx, b.recs); err != nil {
		return err
	}
	if b.fresh, err = insertSnapshotKeys(b.tx, b.recs, started); err != nil {
		return err
	}
	var ignored []snapKey
	b.ended = ended
	bySecond := map[secondKey][]int{}
	for i := range b.recs {
		rec := &b.recs[i]
		if !b.fresh[i] {
			b.out[i].Duplicate = true
			continue
		}
		if ended[rec.RunID] && b.status[shardKey{rec.RunID, rec.Shard}] == runs.ShardLost {
			// The result took what the lost shard had sent when the run
			// ended (docs/reliability.md §5); what its agent sends when it
			// comes back from a partition stays out, or the seconds would
			// no longer add up to the result.
			b.out[i].Ignored = true
			ignored = append(ignored, snapKey{rec.RunID, rec.Shard, rec.Seq})
			continue
		}
		if err := addWrittenURLs(b.tx, *rec); err != nil {
			return err
		}
		b.out[i].Second = runs.SecondOf(started[rec.RunID], rec.IntervalStart)
		k := secondKey{rec.RunID, b.out[i].Second}
		bySecond[k] = append(bySecond[k], i)
	}
	if err := unsetShardSeconds(b.tx, ignored); err != nil {
		return err
	}
	keys := slices.SortedFunc(maps.Keys(bySecond), func(a, b secondKey) int {
		return cmp.Or(slices.Compare(a.run[:], b.run[:]), cmp.Compare(a.second, b.second))
	})
	for _, k := range keys {
		cur, err := lockInterval(b.tx, k.run, k.second)
		if err != nil {
			return err
		}
		b.seconds = append(b.seconds, runs.PendingSecond{Stored: cur, Fresh: bySecond[k]})
	}
	return nil
}

// Recorded tells what became of each snapshot of the batch.
func (b *intervalBatch) Recorded() []runs.Recorded { return b.out }

// Seconds are the locked seconds of the batch's new snapshots.
func (b *intervalBatch) Seconds() []runs.PendingSecond { return b.seconds }

// Commit writes the merged seconds and the shards' progress and commits.
func (b *intervalBatch) Commit(merged []runs.Interval) error {
	if b.done {
		return errors.New("record interval snapshots: the batch has ended")
	}
	b.done = true
	err := b.write(merged)
	if err == nil {
		err = b.tx.Commit().Error
	} else {
		b.tx.Rollback()
	}
	if err != nil {
		return fmt.Errorf("record %d interval snapshots: %w", len(b.recs), err)
	}
	return nil
}

// write stores the merged seconds and the shards' progress.
func (b *intervalBatch) write(merged []runs.Interval) error {
	if len(merged) != len(b.seconds) {
		return fmt.Errorf("%d merged seconds for %d locked", len(merged), len(b.seconds))
	}
	for i := range b.seconds {
		stored := &b.seconds[i].Stored
		if err := writeInterval(b.tx, stored.RunID, stored.Second, merged[i]); err != nil {
			return err
		}
	}
	return updateBatchShards(b.tx, b.recs, b.fresh, b.ended, b.status)
}

// Rollback ends a batch that was not committed, storing nothing.
func (b *intervalBatch) Rollback() {
	if b.done {
		return
	}
	b.done = true
	b.tx.Rollback()
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

// insertSnapshotKeys inserts the dedupe rows of recs, each with its
// shard's figures of its second (migration 00027), and reports which recs
// were new: fresh[i] is false for a snapshot stored before or earlier in
// recs. started holds the runs' start times (lockBatchRuns).
func insertSnapshotKeys(tx *gorm.DB, recs []runs.SnapshotRecord, started map[uuid.UUID]time.Time) ([]bool, error) {
	const cols = 13
	args := make([]any, 0, cols*len(recs))
	first := make(map[snapKey]int, len(recs))
	for i := range recs {
		r := &recs[i]
		k := snapKey{r.RunID, r.Shard, r.Seq}
		if _, ok := first[k]; ok {
			continue
		}
		first[k] = i
		args = append(args, r.RunID, r.Shard, r.Seq)
		args = append(args, shardFigureArgs(r, started[r.RunID])...)
	}
	row := "(" + strings.TrimSuffix(strings.Repeat("?, ", cols), ", ") + ")"
	values := strings.TrimSuffix(strings.Repeat(row+", ", len(args)/cols), ", ")
	var inserted []snapKey
	if err := tx.Raw(`INSERT INTO run_snapshots (run_id, shard, seq, second, count, errors, qps, service_p50_us,
		service_p99_us, response_p99_us, lag_p99_us, cpu_used, cpu_cores) VALUES `+values+
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

// shardFigureArgs returns the ten figure columns of r's row in
// run_snapshots: its second and r.Summary, or NULLs without a summary.
func shardFigureArgs(r *runs.SnapshotRecord, started time.Time) []any {
	f := r.Summary
	if f == nil || r.Final {
		return make([]any, 10)
	}
	return []any{runs.SecondOf(started, r.IntervalStart), f.Count, f.Errors, float32(f.QPS), float32(f.ServiceP50US),
		float32(f.ServiceP99US), float32(f.ResponseP99US), float32(f.LagP99US), float32(f.CPUUsed), float32(f.CPUCores)}
}

// unsetShardSeconds takes the snapshots of ignored out of the per-shard
// series: they were not merged into their second.
func unsetShardSeconds(tx *gorm.DB, ignored []snapKey) error {
	for _, k := range ignored {
		if err := tx.Exec(`UPDATE run_snapshots SET second = NULL WHERE run_id = ? AND shard = ? AND seq = ?`,
			k.RunID, k.Shard, k.Seq).Error; err != nil {
			return fmt.Errorf("unset shard second: %w", err)
		}
	}
	return nil
}

// updateBatchShards moves each shard's progress by its new snapshots of
// recs: its last seq, and while its run is on and it is not done, its
// count and errors, and assigned becomes running. So does lost: its agent
// is back while the run runs (a partition healed), and the run waits for
// its final again, which makes it done (docs/reliability.md §5); the
// sweeper loses it again if the agent goes again or the deadline passes.
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
	if len(order) == 0 {
		return nil
	}
	slices.SortFunc(order, func(a, b shardKey) int {
		return cmp.Or(slices.Compare(a.run[:], b.run[:]), cmp.Compare(a.shard, b.shard))
	})
	n := len(order)
	ids, shards := make(uuidArray, n), make(int64Array, n)
	seqs, counts, errs, toRunning := make(int64Array, n), make(int64Array, n), make(int64Array, n), make(boolArray, n)
	for i, k := range order {
		p, st := sum[k], status[k]
		ids[i], shards[i], seqs[i] = k.run, int64(k.shard), p.seq
		if !ended[k.run] && st != runs.ShardDone { // a done shard's count is its final's
			counts[i], errs[i] = p.count, p.errors
		}
		toRunning[i] = !ended[k.run] && (st == runs.ShardAssigned || st == runs.ShardLost)
	}
	// One statement for the batch's shards, which lockBatchShards holds
	// already (so the order the join updates them in cannot deadlock).
	if err := tx.Exec(updateShardsSQL, string(runs.ShardRunning), ids, shards, seqs, counts, errs, toRunning).Error; err != nil {
		return fmt.Errorf("update shards: %w", err)
	}
	return nil
}

// updateShardsSQL adds each shard's progress in a batch: its highest seq,
// the counts of its fresh snapshots, and running for a shard that was
// assigned or lost. Parameters: the running status, then one array each of
// run ids, shards, seqs, counts, errors and whether to mark it running.
const updateShardsSQL = `
UPDATE run_shards s SET
    last_seq = GREATEST(s.last_seq, u.seq),
    count = s.count + u.add_count,
    errors = s.errors + u.add_errors,
    status = CASE WHEN u.to_running THEN ? ELSE s.status END,
    updated_at = now()
FROM unnest(?::uuid[], ?::int[], ?::bigint[], ?::bigint[], ?::bigint[], ?::bool[])
    AS u(run_id, shard, seq, add_count, add_errors, to_running)
WHERE s.run_id = u.run_id AND s.shard = u.shard`
