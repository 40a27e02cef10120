// Package agents is the read side of the agent registry: the agents that
// have reported to the control plane, for the API and the dashboard.
//
// It is not the place for heartbeats or picking agents for a run (the
// execution side owns those).
package agents

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/internal/auth"
)

// Agent is one load generator as last reported.
type Agent struct {
	ID            uuid.UUID
	Name          string
	Labels        map[string]string
	Version       string
	Capacity      int
	RunningShards int
	RSSBytes      int64
	CPUPercent    float64
	FirstSeenAt   time.Time
	LastSeenAt    time.Time
	// Shards are the shards of active runs the caller can see that the
	// agent holds (RunningShards counts every project's).
	Shards []Shard
}

// Shard is one shard of an active run (dispatching, running or stopping)
// that an agent holds.
type Shard struct {
	AgentID uuid.UUID
	RunID   uuid.UUID
	RunName string
	Shard   int
	// Status is the shard's: assigned until its first snapshot, then
	// running.
	Status string
	// QPS is the shard's share of the run's rate; 0 for as fast as it can.
	QPS float64
}

// Store is the storage the registry reads.
type Store interface {
	// ListAgents returns every agent, most recently seen first.
	ListAgents(ctx context.Context) ([]Agent, error)
	// ActiveShards returns the assigned or running shards of the active
	// runs of the projects (every project when all), by run and shard.
	ActiveShards(ctx context.Context, projects []uuid.UUID, all bool) ([]Shard, error)
}

// Service answers questions about agents.
type Service struct {
	store Store
}

// NewService returns a Service over store.
func NewService(store Store) *Service { return &Service{store: store} }

// List returns every agent, each with the shards it holds of the active
// runs p can see. Any authenticated caller may see the agents: they are
// shared by all projects; the runs of projects p cannot see stay counted
// in RunningShards only.
func (s *Service) List(ctx context.Context, p *auth.Principal) ([]Agent, error) {
	list, err := s.store.ListAgents(ctx)
	if err != nil {
		return nil, fmt.Errorf("list agents: %w", err)
	}
	ids, all := p.VisibleProjects()
	if !all && len(ids) == 0 {
		return list, nil
	}
	shards, err := s.store.ActiveShards(ctx, ids, all)
	if err != nil {
		return nil, fmt.Errorf("list agents: %w", err)
	}
	at := make(map[uuid.UUID]int, len(list))
	for i := range list {
		at[list[i].ID] = i
	}
	for _, sh := range shards {
		if i, ok := at[sh.AgentID]; ok {
			list[i].Shards = append(list[i].Shards, sh)
		}
	}
	return list, nil
}
