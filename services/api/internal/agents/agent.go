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
}

// Store is the storage the registry reads.
type Store interface {
	// ListAgents returns every agent, most recently seen first.
	ListAgents(ctx context.Context) ([]Agent, error)
}

// Service answers questions about agents.
type Service struct {
	store Store
}

// NewService returns a Service over store.
func NewService(store Store) *Service { return &Service{store: store} }

// List returns every agent. Any authenticated caller may see the agents:
// they are shared by all projects.
func (s *Service) List(ctx context.Context, _ *auth.Principal) ([]Agent, error) {
	list, err := s.store.ListAgents(ctx)
	if err != nil {
		return nil, fmt.Errorf("list agents: %w", err)
	}
	return list, nil
}
