//go:build faults

package faultsuite

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/pkg/wire"
)

// startClusterStack is the suite's stack (one API, two agents) on a
// three-node NATS cluster, with the API asking for R3 streams and buckets.
func startClusterStack(t *testing.T) *stack {
	t.Helper()
	return startStackWith(t, stackConfig{replicas: 1, agents: 2, natsCluster: true})
}

// snapLeader is the node that leads the snapshot stream now: losing it
// makes the cluster elect another while agents publish into it (with
// replicas 1, losing its only copy). Each node's /jsz lists the streams it
// holds; the stream must have replicas copies.
func (s *stack) snapLeader(t *testing.T, replicas int) *natsNode {
	t.Helper()
	var leader string
	waitFor(t, 10*time.Second, "the snapshot stream's leader", func() error {
		for _, nd := range s.natsNodes {
			st, err := nd.stream(wire.SnapStream)
			if err != nil {
				return err
			}
			if st == nil {
				continue
			}
			if len(st.Cluster.Replicas) != replicas-1 {
				return fmt.Errorf("%s has %d replicas besides its leader, want %d", st.Name, len(st.Cluster.Replicas), replicas-1)
			}
			if st.Cluster.Leader == "" {
				return fmt.Errorf("%s has no leader", st.Name)
			}
			leader = st.Cluster.Leader
			return nil
		}
		return fmt.Errorf("no node holds %s", wire.SnapStream)
	})
	for _, nd := range s.natsNodes {
		if nd.p.name == leader {
			return nd
		}
	}
	t.Fatalf("the snapshot stream's leader %q is no node of the cluster", leader)
	return nil
}

// jszStream is what a node's /jsz says of a stream it holds.
type jszStream struct {
	Name    string     `json:"name"`
	Cluster jszCluster `json:"cluster"`
	// Consumers are listed with consumers=true.
	Consumers []struct {
		Name    string     `json:"name"`
		Cluster jszCluster `json:"cluster"`
	} `json:"consumer_detail"`
}

// jszCluster is a stream's or consumer's raft group.
type jszCluster struct {
	Leader   string `json:"leader"`
	Replicas []struct {
		Current bool `json:"current"`
	} `json:"replicas"`
}

// agentConsumerLeader is the node leading the assignment consumer of one
// of the agents (R3: with two replicas besides it).
func (s *stack) agentConsumerLeader(t *testing.T) *natsNode {
	t.Helper()
	var leader, name string
	waitFor(t, 10*time.Second, "an agent consumer's leader", func() error {
		for _, nd := range s.natsNodes {
			st, err := nd.stream(wire.AssignStream)
			if err != nil || st == nil {
				continue
			}
			for _, c := range st.Consumers {
				if strings.HasPrefix(c.Name, wire.AgentConsumer("")) && c.Cluster.Leader != "" && len(c.Cluster.Replicas) == 2 {
					leader, name = c.Cluster.Leader, c.Name
					return nil
				}
			}
		}
		return fmt.Errorf("no node names an agent consumer of %s with a leader and two replicas", wire.AssignStream)
	})
	for _, nd := range s.natsNodes {
		if nd.p.name == leader {
			t.Logf("%s leads %s", leader, name)
			return nd
		}
	}
	t.Fatalf("the consumer's leader %q is no node of the cluster", leader)
	return nil
}

// stream is the node's view of the stream name, nil when it holds none.
func (nd *natsNode) stream(name string) (*jszStream, error) {
	resp, err := http.Get(nd.monitor + "/jsz?accounts=true&streams=true&consumers=true")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var jsz struct {
		Accounts []struct {
			Streams []jszStream `json:"stream_detail"`
		} `json:"account_details"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&jsz); err != nil {
		return nil, err
	}
	for _, a := range jsz.Accounts {
		for i := range a.Streams {
			if a.Streams[i].Name == name {
				return &a.Streams[i], nil
			}
		}
	}
	return nil, nil
}

// logHeld logs how many interval snapshots the agents held for a later
// publish (no stream answered within their budget) during the fault.
func (s *stack) logHeld(t *testing.T) {
	t.Helper()
	n := 0
	for _, a := range s.agents {
		n += len(a.jsonLines("interval snapshot held for a later publish"))
	}
	t.Logf("interval snapshots held for a later publish: %d", n)
}

// TestNATSClusterNodeKilledMidRun: on a three-node cluster with R3 streams
// and buckets, kill -9 of the node leading the snapshot stream mid-run,
// restarted 2 s later: the run completes whole, nothing lost and nothing
// counted twice (docs/reliability.md, "A NATS cluster").
func TestNATSClusterNodeKilledMidRun(t *testing.T) {
	s := startClusterStack(t)
	before, _ := s.echoCount()
	r := s.submit(t, qps, 2, length)
	s.waitRunning(t, r.Id.String(), 2)
	node := s.snapLeader(t, 3)
	t.Logf("kill -9 of %s, the snapshot stream's leader", node.p.name)
	node.restart(t, syscall.SIGKILL, 2*time.Second)
	r = s.waitTerminal(t, r.Id.String(), bound)
	s.logHeld(t)
	s.checkWhole(t, r, before)
}

// TestRunSubmittedRightAfterNodeKilled: kill -9 of the node leading an
// agent's assignment consumer, and at once a run over both agents. The
// agent notices its pulls gone quiet within 2 s and re-creates its
// consumer, retrying each second while the consumer elects a new leader,
// so it takes its shard within the dispatcher's 10 s and the run completes
// whole. Before, the agent noticed after 10 s and retried only at the next
// missed heartbeat: 2 of 8 such runs failed to dispatch
// (docs/reliability.md, section 9).
func TestRunSubmittedRightAfterNodeKilled(t *testing.T) {
	s := startClusterStack(t)
	before, _ := s.echoCount()
	node := s.agentConsumerLeader(t)
	node.p.signal(t, syscall.SIGKILL, 30*time.Second)
	r := s.submit(t, qps, 2, length)
	r = s.waitTerminal(t, r.Id.String(), bound)
	s.checkWhole(t, r, before)
	node.p.start(t)
	node.waitHealthy(t)
}

// TestNATSClusterRollingRestart: during one 20 s run, each node of the
// three is stopped (SIGTERM), started again and waited for until healthy,
// then the next: the run completes whole, as an operator's rolling upgrade
// must leave it.
func TestNATSClusterRollingRestart(t *testing.T) {
	const long = 20 * time.Second
	s := startClusterStack(t)
	before, _ := s.echoCount()
	r := s.submit(t, qps, 2, long)
	s.waitRunning(t, r.Id.String(), 2)
	start := time.Now()
	for _, nd := range s.natsNodes {
		nd.restart(t, syscall.SIGTERM, time.Second)
	}
	t.Logf("rolled through the three nodes in %s", time.Since(start).Round(100*time.Millisecond))
	r = s.waitTerminal(t, r.Id.String(), long+2*time.Second+30*time.Second)
	s.logHeld(t)
	s.checkWhole(t, r, before)
}
