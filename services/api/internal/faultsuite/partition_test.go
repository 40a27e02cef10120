//go:build faults

package faultsuite

import (
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/services/api/client"
)

// link is a TCP link between one agent and nats-server that the test can
// cut: a proxy that, once cut, drops its connections and refuses new ones.
type link struct {
	ln    net.Listener
	dest  string
	mu    sync.Mutex
	conns []net.Conn
	cut   bool
}

func newLink(t *testing.T, dest string) *link {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := &link{ln: ln, dest: dest}
	go l.serve()
	t.Cleanup(l.sever)
	return l
}

func (l *link) url() string { return "nats://" + l.ln.Addr().String() }

func (l *link) serve() {
	for {
		c, err := l.ln.Accept()
		if err != nil {
			return
		}
		up, err := net.DialTimeout("tcp", l.dest, 5*time.Second)
		if err != nil {
			_ = c.Close()
			continue
		}
		l.mu.Lock()
		if l.cut {
			l.mu.Unlock()
			_ = c.Close()
			_ = up.Close()
			continue
		}
		l.conns = append(l.conns, c, up)
		l.mu.Unlock()
		go func() { _, _ = io.Copy(up, c); _ = up.Close() }()
		go func() { _, _ = io.Copy(c, up); _ = c.Close() }()
	}
}

// sever cuts the link for good.
func (l *link) sever() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cut {
		return
	}
	l.cut = true
	_ = l.ln.Close()
	for _, c := range l.conns {
		_ = c.Close()
	}
}

// TestAgentPartitionedFromNATS: one agent loses NATS mid-run: it stops its
// load on its own within wire.FailSafeAfter (10 s) and a second, and the
// run ends degraded in time with the other agent's shard whole.
func TestAgentPartitionedFromNATS(t *testing.T) {
	s := startStack(t, 1, 1)
	natsAddr := strings.TrimPrefix(s.natsURL, "nats://")
	l := newLink(t, natsAddr)
	cutOff := newProc(t, "agent-cut", bins.agent, []string{"serve"}, []string{
		"NATS_URL=" + l.url(), "BARRAGE_AGENT_NAME=agent-cut", "BARRAGE_LOG_FORMAT=json", "BARRAGE_AGENT_CAPACITY=2",
	})
	cutOff.start(t)
	s.agents = append(s.agents, cutOff)
	s.waitAgents(t, 2)
	const long = 20 * time.Second
	r := s.submit(t, qps, 2, long)
	s.waitRunning(t, r.Id.String(), 2)
	cutAt := time.Now()
	l.sever()
	stoppedAt := failSafeStop(t, cutOff, r.Id.String(), 15*time.Second)
	if d := stoppedAt.Sub(cutAt); d > 11*time.Second {
		t.Errorf("the cut-off agent stopped %s after the cut, want within 10 s and a second", d.Round(100*time.Millisecond))
	}
	r = s.waitTerminal(t, r.Id.String(), long+2*time.Second+30*time.Second)
	if !r.Degraded {
		t.Errorf("run %s: %s, not degraded after an agent was cut off", r.Id.String(), r.Status)
	}
	s.checkLedger(t, r)
}

// waitAgents waits until n agents are registered.
func (s *stack) waitAgents(t *testing.T, n int) {
	t.Helper()
	waitFor(t, 30*time.Second, fmt.Sprintf("%d agents registered", n), func() error {
		var list client.AgentList
		if err := s.get("/agents", &list); err != nil {
			return err
		}
		if len(list.Items) < n {
			return fmt.Errorf("%d agents registered, want %d", len(list.Items), n)
		}
		return nil
	})
}

// failSafeStop waits up to within for agent p to log its fail-safe stop of
// run's shard, and returns the time of that log line.
func failSafeStop(t *testing.T, p *proc, run string, within time.Duration) time.Time {
	t.Helper()
	var at time.Time
	waitFor(t, within, p.name+" stops on its own", func() error {
		for _, rec := range p.jsonLines("fail-safe: no running state for the run; stopping the shard") {
			if rec["run"] == run {
				ts, err := time.Parse(time.RFC3339Nano, rec["time"].(string))
				if err != nil {
					return err
				}
				at = ts
				return nil
			}
		}
		return fmt.Errorf("no fail-safe stop logged")
	})
	return at
}
