// Package wire holds the names and settings of the NATS contract between
// barrage-api and its agents (docs/architecture.md §3): subjects, JetStream streams,
// key-value buckets, message ids and the timings both sides agree on. The
// messages themselves are the protobufs of proto/barrage/v1.
package wire

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Streams, buckets and consumers.
const (
	// AssignStream holds assignments until their agent acks them.
	AssignStream = "BARRAGE_ASSIGN"
	// SnapStream holds snapshots until the API has stored them.
	SnapStream = "BARRAGE_SNAP"
	// AgentsBucket is the KV bucket of agent heartbeats, keyed by agent id.
	AgentsBucket = "barrage_agents"
	// RunsBucket is the KV bucket of run states, keyed by run id.
	RunsBucket = "barrage_runs"
	// IngestConsumer is the durable consumer of SnapStream shared by API replicas.
	IngestConsumer = "api-ingest"
)

// Subjects.
const (
	assignPrefix  = "barrage.v1.assign."
	snapPrefix    = "barrage.v1.snap."
	controlPrefix = "barrage.v1.ctl."
	// AssignSubjects matches every assignment subject.
	AssignSubjects = assignPrefix + ">"
	// SnapSubjects matches every snapshot subject.
	SnapSubjects = snapPrefix + ">"
	// NotifySubject is core NATS: an API replica that stored an interval
	// (or a final, or ended a run) or changed a run's status tells the
	// others (and itself) so every live hub sees it. The payload is the
	// JSON of services/api's live.Event:
	// {"run_id", "second", "final", "status", "shards"}.
	NotifySubject = "barrage.v1.notify"
)

// Timings both sides rely on.
const (
	// HeartbeatEvery is how often an agent writes its heartbeat.
	HeartbeatEvery = 2 * time.Second
	// AgentTTL is how long a heartbeat lives in AgentsBucket: an agent that
	// misses three beats is lost.
	AgentTTL = 3 * HeartbeatEvery
	// FailSafeAfter is how long an agent keeps sending without reaching
	// NATS or seeing its run's state before it stops on its own.
	FailSafeAfter = 10 * time.Second
	// StartDelay is how far ahead of dispatch the shards' common start_at is.
	StartDelay = 2 * time.Second
	// FinalGrace is how long after a shard's deadline its final snapshot may
	// still arrive before the shard is counted lost.
	FinalGrace = 10 * time.Second
	// SnapMaxAge bounds how long unstored snapshots are kept.
	SnapMaxAge = 24 * time.Hour
	// RunStateTTL bounds how long a run state stays in RunsBucket.
	RunStateTTL = 48 * time.Hour
)

// AssignSubject is the subject of an agent's assignments.
func AssignSubject(agentID string) string { return assignPrefix + agentID }

// SnapSubject is the subject of a shard's snapshots, sent by agentID: the
// agent's id leads, so NATS permissions can hold each agent to its own
// (SnapSubjectsOf) and the API can check the shard is that agent's.
func SnapSubject(agentID, runID string, shard uint32) string {
	return fmt.Sprintf("%s%s.%s.%d", snapPrefix, agentID, runID, shard)
}

// ParseSnapSubject splits a SnapSubject into its agent, run and shard;
// false when subject is not one.
func ParseSnapSubject(subject string) (agentID, runID string, shard uint32, ok bool) {
	rest, ok := strings.CutPrefix(subject, snapPrefix)
	if !ok {
		return "", "", 0, false
	}
	parts := strings.Split(rest, ".")
	if len(parts) != 3 || parts[0] == "" || parts[1] == "" {
		return "", "", 0, false
	}
	n, err := strconv.ParseUint(parts[2], 10, 32)
	if err != nil {
		return "", "", 0, false
	}
	return parts[0], parts[1], uint32(n), true
}

// ControlSubject is the core-NATS subject of a run's control messages.
func ControlSubject(runID string) string { return controlPrefix + runID }

// AssignMsgID is the Nats-Msg-Id of an assignment: a retried publish is
// not a second assignment.
func AssignMsgID(runID string, shard uint32) string { return fmt.Sprintf("%s/%d", runID, shard) }

// SnapMsgID is the Nats-Msg-Id of a snapshot.
func SnapMsgID(runID string, shard uint32, seq uint64) string {
	return fmt.Sprintf("%s/%d/%d", runID, shard, seq)
}

// AgentConsumer is the durable name of an agent's assignment consumer.
func AgentConsumer(agentID string) string { return "agent-" + agentID }

// SnapSubjectsOf matches every snapshot subject of one agent.
func SnapSubjectsOf(agentID string) string { return snapPrefix + agentID + ".>" }

// ControlSubjects matches every run control subject.
const ControlSubjects = controlPrefix + ">"
