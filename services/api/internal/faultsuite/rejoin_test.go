//go:build faults

package faultsuite

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestAgentBackFromPartitionWhileItsRunRuns: an agent and the echo each on
// a test host of its own, a second agent in the root namespace, a 30 s
// run. 1 s into it every packet between the first agent and nats-server is
// dropped until its heartbeat expired and its shard is lost, and in the
// second case until its fail-safe stopped its load too; then the packets
// flow again while the run still runs (the other shard's deadline is far
// off). The agent sends what it held back, which makes the shard running
// again, and its final, which makes it done (docs/reliability.md §5): the
// run waits for it and completes, not degraded, every shard's stored count
// and snapshots its agent's, the seconds summing to the result, the echo's
// count matching it.
func TestAgentBackFromPartitionWhileItsRunRuns(t *testing.T) {
	t.Run("healed once lost", func(t *testing.T) { backWhileRunning(t, false) })
	t.Run("healed once its load stopped", func(t *testing.T) { backWhileRunning(t, true) })
}

// backWhileRunning is a case of TestAgentBackFromPartitionWhileItsRunRuns:
// healed as soon as the shard is lost, or once the agent's fail-safe also
// stopped its load (failSafe).
func backWhileRunning(t *testing.T, failSafe bool) {
	const long = 30 * time.Second
	h, echo := newTestHost(t), newTestHost(t)
	h.link(t, echo)
	s := startStackWith(t, stackConfig{replicas: 1, agents: 1, listenHost: h.rootIP, echoOn: echo})
	s.allowTargets(t, echo.ip)
	back := s.agentOn(t, h, "agent-back", s.natsURL)
	s.waitAgents(t, 2)
	before, _ := s.echoCount()
	submitted := time.Now()
	r := s.submit(t, qps, 2, long)
	id := r.Id.String()
	s.waitRunning(t, id, 2)
	time.Sleep(time.Second)

	cutAt := time.Now()
	heal := h.drop(t, strings.TrimPrefix(s.natsURL, "nats://"))
	waitFor(t, 20*time.Second, "the partitioned agent's shard lost", func() error {
		if sh := s.shardOn(t, id, "agent-back"); sh.Status != "lost" {
			return fmt.Errorf("shard %d: %s", sh.Shard, sh.Status)
		}
		return nil
	})
	if failSafe {
		failSafeStop(t, back, id, 15*time.Second)
	}
	if n := h.dropped(t); n == 0 {
		t.Fatal("the partition dropped no packet")
	}
	heal()
	healedAt := time.Now()
	t.Logf("healed %s after the partition, the shard lost", healedAt.Sub(cutAt).Round(100*time.Millisecond))
	if err := s.get("/runs/"+id, &r); err != nil {
		t.Fatal(err)
	}
	if r.Status != "running" {
		t.Fatalf("run %s is %s at the heal; the scenario needs it running", id, r.Status)
	}
	// Running again once what it held back arrives (unless its final comes
	// with it), done once its final does.
	seen := map[string]bool{}
	waitFor(t, 40*time.Second, "the returned agent's shard done again", func() error {
		sh := s.shardOn(t, id, "agent-back")
		seen[string(sh.Status)] = true
		if sh.Status != "done" {
			return fmt.Errorf("shard %d: %s", sh.Shard, sh.Status)
		}
		return nil
	})
	t.Logf("shard states seen after the heal: %v", seen)
	t.Logf("shard done %s after the heal", time.Since(healedAt).Round(100*time.Millisecond))
	if len(back.jsonLines("fail-safe: no running state for the run; stopping the shard")) > 0 {
		t.Log("the agent's fail-safe had stopped its load before the heal")
	} else {
		t.Log("the agent ran its load to the end")
	}

	r = s.waitTerminal(t, id, time.Until(submitted.Add(long+2*time.Second+30*time.Second)))
	t.Logf("run terminal %s after submission", time.Since(submitted).Round(100*time.Millisecond))
	waitFor(t, 30*time.Second, "both agents log their shard finished", func() error {
		if n := len(s.agentCounts(id)); n != 2 {
			return fmt.Errorf("%d shards finished", n)
		}
		return nil
	})
	for _, sh := range s.shards(t, id) {
		if sh.Status != "done" {
			t.Errorf("shard %d on %s: %s, want done", sh.Shard, sh.AgentName, sh.Status)
		}
	}
	s.checkWhole(t, r, before)
	s.checkSnapshotsOnce(t, r)
}
