package runs

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/internal/auth"
)

// ShardFigures are the few figures of one shard's second kept beside its
// snapshot's dedupe key (migration 00027): enough for a line per agent,
// no histograms.
type ShardFigures struct {
	Count, Errors int64
	// QPS is Count over the snapshot's interval.
	QPS float64
	// ServiceP50US, ServiceP99US and ResponseP99US are percentiles of the
	// shard's histograms of the second; LagP99US is its send lag's p99.
	ServiceP50US, ServiceP99US, ResponseP99US, LagP99US float64
	// CPUUsed and CPUCores are the agent's CPU use over the interval and
	// the cores it may use; 0 when the agent did not say.
	CPUUsed, CPUCores float64
}

// ShardSecond is one shard's figures of one second of a run.
type ShardSecond struct {
	Second    int
	Shard     int
	AgentName string
	ShardFigures
}

// ShardSeconds returns the per-shard rows of up to limit stored seconds
// from second from on of a run the caller can see, by second then shard,
// and the next page's from (-1 on the last page). A step above 1 gives a
// row per shard and window of step seconds instead (ShardWindows).
func (m *Measures) ShardSeconds(ctx context.Context, p *auth.Principal, id uuid.UUID, from, limit, step int) ([]ShardSecond, int, error) {
	w, _, err := m.Watch(ctx, p, id)
	if err != nil {
		return nil, 0, err
	}
	if step > 1 {
		return w.ShardWindows(ctx, from, limit, step)
	}
	return w.ShardSeconds(ctx, from, limit)
}

// MaxShardStep is the widest window of ShardWindows: an hour.
const MaxShardStep = 3600

// ShardWindows returns a row per shard for each window of step seconds
// (aligned to multiples of step) among limit (at most MaxShardSeconds)
// windows from the one holding second from, and the next page's from (-1
// when no second is stored past the page). A window's counts are sums, its
// rate and CPU use the mean over the seconds the shard reported, and its
// percentiles and cores the largest of those seconds', so that an overview
// of a long run keeps each agent's peaks.
func (w *Watch) ShardWindows(ctx context.Context, from, limit, step int) ([]ShardSecond, int, error) {
	step = min(max(step, 1), MaxShardStep)
	from = max(from, 0) / step * step
	to := from + min(max(limit, 1), MaxShardSeconds)*step
	rows, more, err := w.store.RunShardWindows(ctx, w.id, from, to, step)
	if err != nil {
		return nil, 0, fmt.Errorf("read shard windows: %w", err)
	}
	if !more {
		to = -1
	}
	return rows, to, nil
}

// ShardSeconds returns the per-shard rows of up to limit (at most
// MaxShardSeconds) stored seconds from second from on, and the next page's
// from (-1 on the last page).
func (w *Watch) ShardSeconds(ctx context.Context, from, limit int) ([]ShardSecond, int, error) {
	rows, next, err := w.store.RunShardSeconds(ctx, w.id, max(from, 0), min(max(limit, 1), MaxShardSeconds))
	if err != nil {
		return nil, 0, fmt.Errorf("read shard seconds: %w", err)
	}
	return rows, next, nil
}
