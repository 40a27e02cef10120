//go:build faults

package faultsuite

import (
	"context"
	"fmt"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/barrage-dev/barrage/pkg/wire"
)

// setupRetryMsg is what barrage-api logs when a try to set up the streams
// and buckets at start failed and it tries again (app/bus.go).
const setupRetryMsg = "nats: set up streams and buckets; will retry"

// TestAPIStartsBeforeNATSClusterQuorum: the API starts against one node of
// a three-node cluster whose other two are not up (no meta leader: every
// JetStream request goes unanswered), says it will retry, and once they
// start it sets up the R3 streams and buckets, listens and becomes ready;
// a run then completes whole. Before, one try bounded by 30 s made it exit
// (the cause of the cluster stack's failed starts, docs/reliability.md §9).
func TestAPIStartsBeforeNATSClusterQuorum(t *testing.T) {
	s := startStackWith(t, stackConfig{replicas: 1, agents: 2, natsCluster: true, natsQuorumLate: true})
	t.Logf("the API retried its setup %d times before the cluster had a quorum", len(s.apis[0].jsonLines(setupRetryMsg)))
	before, _ := s.echoCount()
	r := s.submit(t, qps, 2, length)
	r = s.waitTerminal(t, r.Id.String(), bound)
	s.checkWhole(t, r, before)
}

// TestNATSClusterReplicasRaisedTo3: an install whose API ran with
// BARRAGE_NATS_REPLICAS=1 on a three-node cluster (every stream and bucket
// R1, each on one node) restarts its API with 3. Every stream, bucket and
// consumer is then R3 with two current followers, the run states stored
// before are all still there, and a run during which the node that held
// the snapshot stream's only copy is killed (restarted 2 s later)
// completes whole.
func TestNATSClusterReplicasRaisedTo3(t *testing.T) {
	s := startStackWith(t, stackConfig{replicas: 1, agents: 2, natsCluster: true, apiEnv: []string{"BARRAGE_NATS_REPLICAS=1"}})
	js := s.jetStream(t)
	before, _ := s.echoCount()
	r := s.submit(t, qps, 2, length)
	r = s.waitTerminal(t, r.Id.String(), bound)
	s.checkWhole(t, r, before)
	for name, st := range streamStates(t, js) {
		if st.Config.Replicas != 1 {
			t.Fatalf("with BARRAGE_NATS_REPLICAS=1: %s has %d replicas, want 1", name, st.Config.Replicas)
		}
	}
	runsBucket := "KV_" + wire.RunsBucket
	held := streamStates(t, js)[runsBucket].State.Msgs
	if held == 0 {
		t.Fatalf("%s holds no run state after a run", runsBucket)
	}
	oldSnapNode := s.snapLeader(t, 1)

	api := s.apis[0]
	api.signal(t, syscall.SIGTERM, 30*time.Second)
	api.env = append(slices.Clone(api.env), "BARRAGE_NATS_REPLICAS=3")
	raised := time.Now()
	api.start(t)
	waitFor(t, 60*time.Second, api.name+" ready with 3 replicas", func() error { return s.ready(s.apiURL) })
	// The server scales the streams' consumers with them (work-queue
	// streams always); the node goes down only once they too have caught
	// up, as an operator waits for before taking a node away.
	waitFor(t, 60*time.Second, "every stream, bucket and consumer R3 with two current followers", func() error {
		for name, st := range streamStates(t, js) {
			if st.Config.Replicas != 3 {
				return fmt.Errorf("%s: %d replicas", name, st.Config.Replicas)
			}
			if err := threeCurrent(name, st.Cluster); err != nil {
				return err
			}
		}
		return consumersThreeCurrent(js)
	})
	t.Logf("API restarted with 3 replicas: everything R3 and current after %s", time.Since(raised).Round(100*time.Millisecond))
	if got := streamStates(t, js)[runsBucket].State.Msgs; got != held {
		t.Fatalf("%s holds %d run states after the raise to R3, %d before", runsBucket, got, held)
	}

	// Mid-run, as TestNATSClusterNodeKilledMidRun: a run submitted within
	// seconds of the kill may not be dispatched (docs/reliability.md §9).
	before, _ = s.echoCount()
	r = s.submit(t, qps, 2, length)
	s.waitRunning(t, r.Id.String(), 2)
	t.Logf("kill -9 of %s, which held the R1 snapshot stream", oldSnapNode.p.name)
	oldSnapNode.restart(t, syscall.SIGKILL, 2*time.Second)
	r = s.waitTerminal(t, r.Id.String(), bound)
	s.checkWhole(t, r, before)
}

// jetStream is a JetStream client on the stack's NATS cluster.
func (s *stack) jetStream(t *testing.T) jetstream.JetStream {
	t.Helper()
	nc, err := nats.Connect(s.natsURL, nats.MaxReconnects(-1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return js
}

// streamStates is the info of the contract's streams and buckets' backing
// streams, by name.
func streamStates(t *testing.T, js jetstream.JetStream) map[string]*jetstream.StreamInfo {
	t.Helper()
	names := []string{wire.AssignStream, wire.SnapStream}
	for _, b := range []string{wire.AgentsBucket, wire.RunsBucket, wire.EchoesBucket, wire.EchoProfilesBucket} {
		names = append(names, "KV_"+b)
	}
	out := map[string]*jetstream.StreamInfo{}
	for _, name := range names {
		var info *jetstream.StreamInfo
		waitFor(t, 15*time.Second, "info of stream "+name, func() error {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			defer cancel()
			st, err := js.Stream(ctx, name)
			if err != nil {
				return err
			}
			info = st.CachedInfo()
			return nil
		})
		out[name] = info
	}
	return out
}

// threeCurrent is nil when what has a leader and two current followers.
func threeCurrent(what string, c *jetstream.ClusterInfo) error {
	if c == nil || c.Leader == "" || len(c.Replicas) != 2 {
		return fmt.Errorf("%s: cluster %+v, want a leader and 2 followers", what, c)
	}
	for _, p := range c.Replicas {
		if !p.Current {
			return fmt.Errorf("%s: follower %s not current", what, p.Name)
		}
	}
	return nil
}

// consumersThreeCurrent is nil when every consumer of the work-queue
// streams has a leader and two current followers.
func consumersThreeCurrent(js jetstream.JetStream) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, name := range []string{wire.AssignStream, wire.SnapStream} {
		st, err := js.Stream(ctx, name)
		if err != nil {
			return err
		}
		n := 0
		list := st.ListConsumers(ctx)
		for ci := range list.Info() {
			n++
			if err := threeCurrent(name+" consumer "+ci.Name, ci.Cluster); err != nil {
				return err
			}
		}
		if err := list.Err(); err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("%s has no consumer", name)
		}
	}
	return nil
}
