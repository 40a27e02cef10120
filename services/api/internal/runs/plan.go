package runs

import (
	"time"

	"github.com/google/uuid"
)

// Shard is one agent's part of a run.
type Shard struct {
	// Index numbers the shards of a run from 0.
	Index int
	// AgentID and AgentName are the agent the shard is assigned to.
	AgentID   uuid.UUID
	AgentName string
	// QPS is the shard's part of the run's target rate (0 = as fast as possible).
	QPS float64
	// Connections is the shard's number of connections (at least 1).
	Connections int
}

// Plan is how a run is split across agents, stored when it is dispatched.
type Plan struct {
	RunID uuid.UUID
	// StartAt is when every shard starts sending.
	StartAt time.Time
	// Deadline is when every shard must have stopped sending.
	Deadline time.Time
	Shards   []Shard
}
