package runs

import (
	"time"

	"github.com/google/uuid"
)

// Shard is one agent's part of a run. Its rate and connections travel to
// the agent in the shard's spec (package dispatch splits the run's spec);
// QPS and Connections record what that spec was assigned, for people
// reading the plan, and nothing sends or derives a rate from them.
type Shard struct {
	// Index numbers the shards of a run from 0.
	Index int
	// AgentID and AgentName are the agent the shard is assigned to.
	AgentID   uuid.UUID
	AgentName string
	// QPS is the shard's spec's target rate (0 = as fast as possible, or
	// set by the spec's stages).
	QPS float64
	// Connections is the shard's spec's number of connections (at least 1).
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
