package store

import (
	"context"
	"fmt"
	"time"
)

// Gauges is the state of the control plane that barrage-api exports as
// metrics at each scrape (package metrics, state.go).
type Gauges struct {
	// RunsByStatus counts the runs of each status present.
	RunsByStatus map[string]int64
	// OutboxPending counts unpublished outbox rows; OutboxOldest is the
	// age of the oldest (0 without any).
	OutboxPending int64
	OutboxOldest  time.Duration
	// SearchesRunning and SyncsRunning count the searches and sync runs
	// whose status is running.
	SearchesRunning, SyncsRunning int64
}

// ReadGauges reads the Gauges in two statements: runs by status, then the
// outbox (its partial index of unpublished rows), searches and syncs.
func (s *Store) ReadGauges(ctx context.Context) (Gauges, error) {
	var byStatus []struct {
		Status string
		N      int64
	}
	if err := s.conn(ctx).Raw("SELECT status, count(*) AS n FROM runs GROUP BY status").Scan(&byStatus).Error; err != nil {
		return Gauges{}, fmt.Errorf("count runs by status: %w", err)
	}
	g := Gauges{RunsByStatus: make(map[string]int64, len(byStatus))}
	for _, r := range byStatus {
		g.RunsByStatus[r.Status] = r.N
	}
	var row struct {
		Pending, Searches, Syncs int64
		OldestUs                 int64
	}
	err := s.conn(ctx).Raw(`SELECT
  (SELECT count(*) FROM outbox WHERE published_at IS NULL) AS pending,
  (SELECT coalesce(extract(epoch FROM now() - min(created_at)) * 1e6, 0)::bigint FROM outbox WHERE published_at IS NULL) AS oldest_us,
  (SELECT count(*) FROM searches WHERE status = 'running') AS searches,
  (SELECT count(*) FROM sync_runs WHERE status = 'running') AS syncs`).Scan(&row).Error
	if err != nil {
		return Gauges{}, fmt.Errorf("count outbox, searches and syncs: %w", err)
	}
	g.OutboxPending, g.SearchesRunning, g.SyncsRunning = row.Pending, row.Searches, row.Syncs
	g.OutboxOldest = time.Duration(max(row.OldestUs, 0)) * time.Microsecond
	return g, nil
}
