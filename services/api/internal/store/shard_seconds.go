package store

import (
	"context"
	"fmt"
	"math"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// shardSecondRow is one row of the per-shard series: a snapshot's figures
// (run_snapshots, migration 00027) with its shard's agent name.
type shardSecondRow struct {
	Second        int     `gorm:"column:second"`
	Shard         int     `gorm:"column:shard"`
	AgentName     string  `gorm:"column:agent_name"`
	Count         int64   `gorm:"column:count"`
	Errors        int64   `gorm:"column:errors"`
	QPS           float64 `gorm:"column:qps"`
	ServiceP50US  float64 `gorm:"column:service_p50_us"`
	ServiceP99US  float64 `gorm:"column:service_p99_us"`
	ResponseP99US float64 `gorm:"column:response_p99_us"`
	LagP99US      float64 `gorm:"column:lag_p99_us"`
	CPUUsed       float64 `gorm:"column:cpu_used"`
	CPUCores      float64 `gorm:"column:cpu_cores"`
}

// shardSecondFigures are the columns of one shard's second, over its
// run_snapshots rows p grouped by second and shard: a shard that sent two
// snapshots for one second (a late interval) has its counts and rates
// summed and its percentiles and CPU at their highest.
const shardSecondFigures = `sum(p.count) AS count, sum(p.errors) AS errors, sum(p.qps) AS qps,
		max(p.service_p50_us) AS service_p50_us, max(p.service_p99_us) AS service_p99_us,
		max(p.response_p99_us) AS response_p99_us, max(p.lag_p99_us) AS lag_p99_us,
		max(p.cpu_used) AS cpu_used, max(p.cpu_cores) AS cpu_cores`

// RunShardSeconds returns the per-shard rows of up to limit stored
// seconds of a run from second from on, by second then shard, and the
// second after them (the next page's from) when more are stored, else -1.
func (s *Store) RunShardSeconds(ctx context.Context, runID uuid.UUID, from, limit int) ([]runs.ShardSecond, int, error) {
	var bound []int // the (limit+1)-th stored second from from on, if any
	if err := s.conn(ctx).Raw(`SELECT second FROM run_intervals WHERE run_id = ? AND second >= ? ORDER BY second OFFSET ? LIMIT 1`,
		runID, from, limit).Scan(&bound).Error; err != nil {
		return nil, 0, fmt.Errorf("read shard seconds of run %s: %w", runID, err)
	}
	next, to := -1, math.MaxInt32
	if len(bound) == 1 {
		next, to = bound[0], bound[0]
	}
	var rows []shardSecondRow
	err := s.conn(ctx).Raw(`SELECT p.second, p.shard, COALESCE(max(h.agent_name), '') AS agent_name, `+shardSecondFigures+`
		FROM run_snapshots p LEFT JOIN run_shards h ON h.run_id = p.run_id AND h.shard = p.shard
		WHERE p.run_id = ? AND p.second >= ? AND p.second < ?
		GROUP BY p.second, p.shard ORDER BY p.second, p.shard`, runID, from, to).Scan(&rows).Error
	if err != nil {
		return nil, 0, fmt.Errorf("read shard seconds of run %s: %w", runID, err)
	}
	return shardSecondsOut(rows), next, nil
}

// shardSecondsOut turns the rows read into the runs package's type.
func shardSecondsOut(rows []shardSecondRow) []runs.ShardSecond {
	out := make([]runs.ShardSecond, len(rows))
	for i, r := range rows {
		out[i] = runs.ShardSecond{Second: r.Second, Shard: r.Shard, AgentName: r.AgentName, ShardFigures: runs.ShardFigures{
			Count: r.Count, Errors: r.Errors, QPS: r.QPS, ServiceP50US: r.ServiceP50US, ServiceP99US: r.ServiceP99US,
			ResponseP99US: r.ResponseP99US, LagP99US: r.LagP99US, CPUUsed: r.CPUUsed, CPUCores: r.CPUCores,
		}}
	}
	return out
}

// RunShardWindows implements runs.Store: the per-(second, shard) figures of
// RunShardSeconds, folded into windows of step seconds.
func (s *Store) RunShardWindows(ctx context.Context, runID uuid.UUID, from, to, step int) ([]runs.ShardSecond, bool, error) {
	var rows []shardSecondRow
	err := s.conn(ctx).Raw(`WITH secs AS (
		SELECT p.second, p.shard, `+shardSecondFigures+`
		FROM run_snapshots p WHERE p.run_id = ? AND p.second >= ? AND p.second < ?
		GROUP BY p.second, p.shard)
		SELECT w.second / ? * ? AS second, w.shard, COALESCE(max(h.agent_name), '') AS agent_name,
			sum(w.count) AS count, sum(w.errors) AS errors, avg(w.qps) AS qps,
			max(w.service_p50_us) AS service_p50_us, max(w.service_p99_us) AS service_p99_us,
			max(w.response_p99_us) AS response_p99_us, max(w.lag_p99_us) AS lag_p99_us,
			avg(w.cpu_used) AS cpu_used, max(w.cpu_cores) AS cpu_cores
		FROM secs w LEFT JOIN run_shards h ON h.run_id = ? AND h.shard = w.shard
		GROUP BY 1, w.shard ORDER BY 1, w.shard`, runID, from, to, step, step, runID).Scan(&rows).Error
	if err != nil {
		return nil, false, fmt.Errorf("read shard windows of run %s: %w", runID, err)
	}
	var later []int
	if err := s.conn(ctx).Raw(`SELECT second FROM run_intervals WHERE run_id = ? AND second >= ? ORDER BY second LIMIT 1`,
		runID, to).Scan(&later).Error; err != nil {
		return nil, false, fmt.Errorf("read shard windows of run %s: %w", runID, err)
	}
	return shardSecondsOut(rows), len(later) == 1, nil
}
