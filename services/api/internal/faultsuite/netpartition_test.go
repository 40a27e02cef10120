//go:build faults

package faultsuite

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/pkg/wire"
	"github.com/barrage-dev/barrage/services/api/client"
)

// allowTargets lets project default's runs reach hosts besides loopback
// (a test host's rootIP, a private address): the stack's admin token is an
// org admin's, whose entries beyond the organisation's policy become the
// project's grants (docs/api.md, "Target allow-lists").
func (s *stack) allowTargets(t *testing.T, hosts ...string) {
	t.Helper()
	list := append([]string{"127.0.0.0/8", "::1", "localhost"}, hosts...)
	var out map[string]any
	if err := s.do(http.MethodPatch, "/projects/default", map[string]any{"target_allow_list": list}, &out); err != nil {
		t.Fatalf("allow %v: %v", hosts, err)
	}
}

// agentOn starts agent name on test host h, connecting to NATS at url,
// and adds it to the stack's agents.
func (s *stack) agentOn(t *testing.T, h *testHost, name, url string) *proc {
	t.Helper()
	a := h.proc(t, name, bins.agent, []string{"serve"}, []string{
		"NATS_URL=" + url, "BARRAGE_AGENT_NAME=" + name, "BARRAGE_LOG_FORMAT=json", "BARRAGE_AGENT_CAPACITY=2",
	})
	a.start(t)
	s.agents = append(s.agents, a)
	return a
}

// lastSeen is when the API last saw agent name's heartbeat (zero when it
// does not list it).
func (s *stack) lastSeen(t *testing.T, name string) time.Time {
	t.Helper()
	var list client.AgentList
	if err := s.get("/agents", &list); err != nil {
		t.Fatal(err)
	}
	for i := range list.Items {
		if list.Items[i].Name == name {
			return list.Items[i].LastSeenAt
		}
	}
	return time.Time{}
}

// shardOn returns the run's shard on agent name.
func (s *stack) shardOn(t *testing.T, run, name string) client.RunShard {
	t.Helper()
	for _, sh := range s.shards(t, run) {
		if sh.AgentName == name {
			return sh
		}
	}
	t.Fatalf("run %s has no shard on %s", run, name)
	return client.RunShard{}
}

// TestAgentSilentlyPartitionedFromNATS: an agent and the echo each on a
// test host of its own; the agent loses every packet to and from nats-server for 20 s, 1 s into a 16 s run
// (iptables DROP in its namespace: no reset, no ICMP, its TCP connection
// stays open). Its fail-safe stops the load within wire.FailSafeAfter (10
// s) and a second; its heartbeat expires, so its shard is lost and the run
// ends completed and degraded (docs/reliability.md §3, §5) within its
// deadline and 30 s. Then the packets flow again: the agent's heartbeat
// comes back and it delivers what it held back (its final comes after the run
// ended), and nothing changes: the result, the seconds and the shards'
// counts agree as they did, and the lost shard's stored count is no more
// than its agent counted.
func TestAgentSilentlyPartitionedFromNATS(t *testing.T) {
	const (
		long      = 16 * time.Second
		partition = 20 * time.Second
	)
	h, echo := newTestHost(t), newTestHost(t)
	h.link(t, echo)
	s := startStackWith(t, stackConfig{replicas: 1, agents: 1, listenHost: h.rootIP, echoOn: echo})
	s.allowTargets(t, echo.ip)
	cutOff := s.agentOn(t, h, "agent-cut", s.natsURL)
	s.waitAgents(t, 2)
	before, _ := s.echoCount()
	submitted := time.Now()
	r := s.submit(t, qps, 2, long)
	id := r.Id.String()
	s.waitRunning(t, id, 2)
	time.Sleep(time.Second)

	cutAt := time.Now()
	heal := h.drop(t, strings.TrimPrefix(s.natsURL, "nats://"))
	stoppedAt := failSafeStop(t, cutOff, id, 15*time.Second)
	if d := stoppedAt.Sub(cutAt); d > wire.FailSafeAfter+time.Second {
		t.Errorf("the partitioned agent stopped its load %s after the partition, want within 10 s and a second", d.Round(100*time.Millisecond))
	}
	t.Logf("fail-safe stop %s after the partition", stoppedAt.Sub(cutAt).Round(10*time.Millisecond))
	waitFor(t, 15*time.Second, "the partitioned agent's shard lost", func() error {
		if sh := s.shardOn(t, id, "agent-cut"); sh.Status != "lost" {
			return fmt.Errorf("shard %d: %s", sh.Shard, sh.Status)
		}
		return nil
	})
	t.Logf("shard lost %s after the partition", time.Since(cutAt).Round(100*time.Millisecond))
	r = s.waitTerminal(t, id, time.Until(submitted.Add(long+2*time.Second+30*time.Second)))
	t.Logf("run terminal %s after submission (deadline %s + start delay)", time.Since(submitted).Round(100*time.Millisecond), long)
	if r.Status != "completed" || !r.Degraded {
		t.Errorf("run %s: %s, degraded %v; want completed and degraded", id, r.Status, r.Degraded)
	}
	lostShard := -1
	for _, sh := range s.shards(t, id) {
		want := "done"
		if sh.AgentName == "agent-cut" {
			want, lostShard = "lost", sh.Shard
		}
		if string(sh.Status) != want {
			t.Errorf("shard %d on %s: %s, want %s", sh.Shard, sh.AgentName, sh.Status, want)
		}
	}
	if n := h.dropped(t); n == 0 {
		t.Fatal("the partition dropped no packet")
	} else {
		t.Logf("%d packets dropped", n)
	}
	at := summaryOf(t, s, r)

	time.Sleep(time.Until(cutAt.Add(partition)))
	heal()
	healedAt := time.Now()
	waitFor(t, 30*time.Second, "the partitioned agent's heartbeat again", func() error {
		if seen := s.lastSeen(t, "agent-cut"); !seen.After(healedAt) {
			return fmt.Errorf("agent-cut last seen %s", seen)
		}
		return nil
	})
	var agentCount int64
	waitFor(t, 30*time.Second, "the partitioned agent finishes its shard", func() error {
		n, ok := s.agentCounts(id)[lostShard]
		if !ok {
			return fmt.Errorf("no shard finished logged by agent-cut")
		}
		agentCount = n
		return nil
	})
	t.Logf("agent-cut back %s after the heal; it counted %d", time.Since(healedAt).Round(100*time.Millisecond), agentCount)
	// What the agent held back reaches the API within the ingester's retry
	// delay (2 s); give it twice that.
	time.Sleep(4 * time.Second)
	var again client.Run
	if err := s.get("/runs/"+id, &again); err != nil {
		t.Fatal(err)
	}
	if got := summaryOf(t, s, again); got != at {
		t.Errorf("after the agent came back: %+v; at the end of the run: %+v", got, at)
	}
	for _, sh := range s.shards(t, id) {
		if sh.Shard == lostShard && sh.Count > agentCount {
			t.Errorf("lost shard %d: stored %d, its agent counted %d: counted twice", sh.Shard, sh.Count, agentCount)
		}
	}
	s.checkLedger(t, again)
	if after, err := s.echoCount(); err != nil {
		t.Fatal(err)
	} else if after-before < again.Summary.Count {
		t.Errorf("the echo answered %d requests, the result counts %d", after-before, again.Summary.Count)
	}
}

// ledger is what a run's figures say: its result's count, its seconds'
// sum and its shards' counts.
type ledger struct{ summary, seconds, shards int64 }

// summaryOf reads run r's ledger once its seconds add up to its result
// (docs/reliability.md §5: also for a degraded run), within 30 s.
func summaryOf(t *testing.T, s *stack, r client.Run) ledger {
	t.Helper()
	if r.Summary == nil {
		t.Fatalf("run %s has no summary", r.Id.String())
	}
	var l ledger
	waitFor(t, 30*time.Second, "the run's seconds and shards sum to its result", func() error {
		l = ledger{summary: r.Summary.Count, seconds: s.intervalTotal(t, r.Id.String())}
		for _, sh := range s.shards(t, r.Id.String()) {
			l.shards += sh.Count
		}
		if l.seconds != l.summary || l.shards != l.summary {
			return fmt.Errorf("%+v", l)
		}
		return nil
	})
	return l
}

// agentHosts makes n test hosts for agents and one for the echo, each
// agent's host linked to the echo's. nats-server is to listen on the first
// host's root side (stackConfig.listenHost): the others reach it through
// the root namespace, to which that address belongs.
func agentHosts(t *testing.T, n int) ([]*testHost, *testHost) {
	t.Helper()
	echo := newTestHost(t)
	hosts := make([]*testHost, n)
	for i := range hosts {
		hosts[i] = newTestHost(t)
		hosts[i].link(t, echo)
		if i > 0 {
			hosts[i].route(t, hosts[0].rootIP)
		}
	}
	return hosts, echo
}

// TestAgentsLossyLinkToNATS: both agents and the echo on test hosts of
// their own, and
// 2 % of the packets between each and nats-server dropped at random
// (iptables' statistic match) for a whole run: TCP resends what was lost,
// so every snapshot arrives once, and the run completes whole: not
// degraded, each shard's stored count its agent's, the seconds summing to
// the result, the echo's count matching it.
func TestAgentsLossyLinkToNATS(t *testing.T) {
	hosts, echo := agentHosts(t, 2)
	s := startStackWith(t, stackConfig{replicas: 1, agents: 0, listenHost: hosts[0].rootIP, echoOn: echo})
	s.allowTargets(t, echo.ip)
	natsAddr := strings.TrimPrefix(s.natsURL, "nats://")
	for i, h := range hosts {
		s.agentOn(t, h, fmt.Sprintf("agent-%d", i), s.natsURL)
	}
	s.waitAgents(t, 2)
	for _, h := range hosts {
		// Lossy until the namespace goes at cleanup.
		h.drop(t, natsAddr, "-m", "statistic", "--mode", "random", "--probability", "0.02")
	}
	before, _ := s.echoCount()
	submitted := time.Now()
	r := s.submit(t, qps, 2, length)
	r = s.waitTerminal(t, r.Id.String(), bound)
	t.Logf("run terminal %s after submission", time.Since(submitted).Round(100*time.Millisecond))
	checkDropped(t, hosts)
	s.checkWhole(t, r, before)
}

// checkDropped fails the test when the lossy links of hosts dropped no
// packet (a loss scenario that lost nothing proves nothing), and logs how
// many they dropped.
func checkDropped(t *testing.T, hosts []*testHost) {
	t.Helper()
	var dropped int64
	for _, h := range hosts {
		dropped += h.dropped(t)
	}
	if dropped == 0 {
		t.Error("the lossy links dropped no packet")
	}
	t.Logf("%d packets dropped", dropped)
}
