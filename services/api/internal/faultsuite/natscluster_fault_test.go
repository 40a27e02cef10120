//go:build faults

package faultsuite

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/pkg/wire"
)

// startClusterStack is the suite's stack (one API, two agents) on a
// three-node NATS cluster, with the API asking for R3 streams and buckets.
func startClusterStack(t *testing.T) *stack {
	t.Helper()
	if os.Getenv("FAULTS_NATS_CLUSTER") == "" {
		// Out of make test for now: once in six runs the API of this
		// stack did not listen within a minute, cause not yet found
		// (docs/reliability.md §9). make faults-cluster runs them.
		t.Skip("set FAULTS_NATS_CLUSTER=1 (make faults-cluster) to run the NATS cluster scenarios")
	}
	return startStackWith(t, stackConfig{replicas: 1, agents: 2, natsCluster: true})
}

// snapLeader is the node that leads the snapshot stream now: losing it
// makes the cluster elect another while agents publish into it.
func (s *stack) snapLeader(t *testing.T) *natsNode {
	t.Helper()
	var leader string
	waitFor(t, 10*time.Second, "the snapshot stream's leader", func() error {
		resp, err := http.Get(s.natsNodes[0].monitor + "/jsz?accounts=true&streams=true")
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		var jsz struct {
			Accounts []struct {
				Streams []struct {
					Name    string `json:"name"`
					Cluster struct {
						Leader   string `json:"leader"`
						Replicas []struct {
							Current bool `json:"current"`
						} `json:"replicas"`
					} `json:"cluster"`
				} `json:"stream_detail"`
			} `json:"account_details"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&jsz); err != nil {
			return err
		}
		for _, a := range jsz.Accounts {
			for _, st := range a.Streams {
				if st.Name != wire.SnapStream {
					continue
				}
				if len(st.Cluster.Replicas) != 2 {
					return fmt.Errorf("%s has %d replicas besides its leader, want 2 (R3)", st.Name, len(st.Cluster.Replicas))
				}
				leader = st.Cluster.Leader
				return nil
			}
		}
		return fmt.Errorf("no %s stream", wire.SnapStream)
	})
	for _, nd := range s.natsNodes {
		if nd.p.name == leader {
			return nd
		}
	}
	t.Fatalf("the snapshot stream's leader %q is no node of the cluster", leader)
	return nil
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
	node := s.snapLeader(t)
	t.Logf("kill -9 of %s, the snapshot stream's leader", node.p.name)
	node.restart(t, syscall.SIGKILL, 2*time.Second)
	r = s.waitTerminal(t, r.Id.String(), bound)
	s.logHeld(t)
	s.checkWhole(t, r, before)
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
