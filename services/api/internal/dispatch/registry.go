package dispatch

import (
	"context"
	"log/slog"
	"math"
	"time"

	"github.com/google/uuid"

	barragev1 "github.com/barrage-dev/barrage/proto/barrage/v1"
	"github.com/barrage-dev/barrage/services/api/internal/agents"
)

// Registry is where heartbeats are recorded for GET /agents.
type Registry interface {
	UpsertAgents(ctx context.Context, list []agents.Agent) error
}

// syncRegistry copies the live heartbeats into the registry every period
// until ctx ends, so the agent list shows what agents last reported.
func (d *Dispatcher) syncRegistry(ctx context.Context, period time.Duration) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		if err := d.recordHeartbeats(ctx); err != nil && ctx.Err() == nil {
			d.cfg.Log.Warn("dispatch: record heartbeats", slog.Any("error", err))
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// recordHeartbeats writes the current heartbeats to the registry.
func (d *Dispatcher) recordHeartbeats(ctx context.Context) error {
	live, err := d.live(ctx)
	if err != nil {
		return err
	}
	list := make([]agents.Agent, 0, len(live))
	for _, hb := range live {
		a, ok := agentOf(hb)
		if !ok {
			continue
		}
		list = append(list, a)
	}
	return d.cfg.Registry.UpsertAgents(ctx, list)
}

// agentOf maps a heartbeat to a registry entry; false for a malformed id.
func agentOf(hb *barragev1.Heartbeat) (agents.Agent, bool) {
	id, err := uuid.Parse(hb.GetAgentId())
	if err != nil {
		return agents.Agent{}, false
	}
	seen := hb.GetSentAt().AsTime()
	if hb.GetSentAt() == nil {
		seen = time.Now()
	}
	return agents.Agent{
		ID: id, Name: hb.GetName(), Labels: hb.GetLabels(), Version: hb.GetVersion(), Capacity: int(hb.GetCapacity()),
		RunningShards: len(hb.GetRunning()), RSSBytes: int64(min(hb.GetRssBytes(), math.MaxInt64)), CPUPercent: hb.GetCpuPercent(),
		LastSeenAt: seen,
	}, true
}
