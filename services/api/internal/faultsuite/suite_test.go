//go:build faults

package faultsuite

import (
	"fmt"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/pkg/wire"
	"github.com/barrage-dev/barrage/services/api/client"
)

// The load of every scenario: 2 agents, 200 qps, 8 s; the bound on reaching
// a terminal state is the deadline (start delay included) plus 30 s.
const (
	qps    = 200
	length = 8 * time.Second
	bound  = length + 2*time.Second + 30*time.Second
	conns  = 4
)

// outage is how long Postgres stays down in TestPostgresDownMidRun.
func outage(t *testing.T) time.Duration {
	t.Helper()
	if v := os.Getenv("FAULTS_OUTAGE"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("FAULTS_OUTAGE: %v", err)
		}
		return d
	}
	return 30 * time.Second
}

// echoDelta checks that the echo answered the run's requests: as many as
// the result counts, give or take the requests in flight when shards
// stopped (one per connection).
func (s *stack) echoDelta(t *testing.T, before int64, r client.Run) {
	t.Helper()
	after, err := s.echoCount()
	if err != nil {
		t.Fatal(err)
	}
	got := after - before
	if got < r.Summary.Count || got > r.Summary.Count+conns {
		t.Errorf("the echo answered %d requests, the run counted %d", got, r.Summary.Count)
	}
}

// checkWhole checks a run that must have survived its fault whole:
// completed, not degraded, its ledger right, every request answered counted.
func (s *stack) checkWhole(t *testing.T, r client.Run, before int64) {
	t.Helper()
	if r.Status != "completed" || r.Degraded {
		t.Fatalf("run %s: %s, degraded %v; want completed and whole", r.Id.String(), r.Status, r.Degraded)
	}
	s.checkLedger(t, r)
	s.echoDelta(t, before, r)
}

// survives runs the suite's load on a fresh stack of one API and two
// agents, calls fault once every shard is running, and checks that the run
// came through whole within within.
func survives(t *testing.T, fault func(*stack), within time.Duration) {
	t.Helper()
	s := startStack(t, 1, 2)
	before, _ := s.echoCount()
	r := s.submit(t, qps, 2, length)
	s.waitRunning(t, r.Id.String(), 2)
	fault(s)
	r = s.waitTerminal(t, r.Id.String(), within)
	s.checkWhole(t, r, before)
}

// TestAgentKilledMidRun: kill -9 of one agent 1 s, 4 s and 6.5 s into an
// 8 s run (its first snapshot comes after 1 s): each time the run ends degraded in time, the other
// agent's shard is whole, and the result counts what the killed shard had
// sent (docs/reliability.md): its summary, its seconds and its shards agree,
// and the echo answered no more than that plus the killed shard's last,
// unreported second.
func TestAgentKilledMidRun(t *testing.T) {
	for _, after := range []time.Duration{0, 3 * time.Second, 5500 * time.Millisecond} {
		t.Run(fmt.Sprintf("%v in", after), func(t *testing.T) {
			s := startStack(t, 1, 2)
			before, _ := s.echoCount()
			r := s.submit(t, qps, 2, length)
			s.waitRunning(t, r.Id.String(), 2)
			time.Sleep(after)
			s.agents[0].signal(t, syscall.SIGKILL, 5*time.Second)
			r = s.waitTerminal(t, r.Id.String(), bound)
			if r.Status != "completed" || !r.Degraded {
				t.Errorf("run %s after an agent's kill -9: status %s, degraded %v; want completed and degraded", r.Id.String(), r.Status, r.Degraded)
			}
			states := map[string]int{}
			var shardSum int64
			for _, sh := range s.shards(t, r.Id.String()) {
				states[string(sh.Status)]++
				shardSum += sh.Count
			}
			if states["lost"] != 1 || states["done"] != 1 {
				t.Errorf("shard states %v, want one lost and one done", states)
			}
			s.checkLedger(t, r)
			if shardSum != r.Summary.Count {
				t.Errorf("the shards count %d requests, the result %d: the lost shard's must be in it", shardSum, r.Summary.Count)
			}
			waitFor(t, 30*time.Second, "the run's seconds sum to its result", func() error {
				if got := s.intervalTotal(t, r.Id.String()); got != r.Summary.Count {
					return fmt.Errorf("the run's seconds sum to %d, its result counts %d", got, r.Summary.Count)
				}
				return nil
			})
			after, err := s.echoCount()
			if err != nil {
				t.Fatal(err)
			}
			// The killed shard's requests since its last snapshot (at most
			// a second of its 100 qps) and those in flight were answered
			// but never reported.
			if got := after - before; got < r.Summary.Count || got > r.Summary.Count+qps/2+conns {
				t.Errorf("the echo answered %d requests, the result counts %d", got, r.Summary.Count)
			}
		})
	}
}

// TestAgentTerminatedMidRun: SIGTERM of one agent: it exits 0 having sent
// its shard's final, and the run is complete, not degraded.
func TestAgentTerminatedMidRun(t *testing.T) {
	s := startStack(t, 1, 2)
	before, _ := s.echoCount()
	r := s.submit(t, qps, 2, length)
	s.waitRunning(t, r.Id.String(), 2)
	s.agents[0].signal(t, syscall.SIGTERM, 15*time.Second)
	if code := s.agents[0].exitCode(); code != 0 {
		t.Errorf("agent exit code %d after SIGTERM, want 0", code)
	}
	r = s.waitTerminal(t, r.Id.String(), bound)
	if r.Status != "completed" || r.Degraded {
		t.Fatalf("run %s: %s, degraded %v; want completed and whole", r.Id.String(), r.Status, r.Degraded)
	}
	for _, sh := range s.shards(t, r.Id.String()) {
		if sh.Status != "done" || !sh.FinalReceived {
			t.Errorf("shard %d: %s, final %v", sh.Shard, sh.Status, sh.FinalReceived)
		}
	}
	s.checkLedger(t, r)
	s.echoDelta(t, before, r)
}

// TestAPIKilledMidRun: kill -9 of the API, restarted 2 s later: the run
// completes with every second and nothing counted twice.
func TestAPIKilledMidRun(t *testing.T) {
	survives(t, func(s *stack) {
		s.apis[0].signal(t, syscall.SIGKILL, 5*time.Second)
		time.Sleep(2 * time.Second)
		s.apis[0].start(t)
		waitFor(t, 30*time.Second, "API ready again", func() error { return s.ready(s.apiURL) })
	}, bound)
}

// TestNATSRestartedMidRun: nats-server stopped and started again (its
// JetStream file store kept) 2 s later: agents and API reconnect and
// nothing is lost.
func TestNATSRestartedMidRun(t *testing.T) {
	survives(t, func(s *stack) {
		stopNATS(t, s.nats)
		time.Sleep(2 * time.Second)
		s.nats.start(t)
	}, bound)
}

// TestNewRunAfterNATSRestart: nats-server stopped and started again between
// runs. Its memory-stored buckets (agents' and echoes' heartbeats) are gone
// afterwards; the API recreates them, the agents heartbeat into them again,
// and a new run is dispatched and completes with no process restarted.
func TestNewRunAfterNATSRestart(t *testing.T) {
	s := startStack(t, 1, 2)
	stopNATS(t, s.nats)
	time.Sleep(2 * time.Second)
	s.nats.start(t)
	before, _ := s.echoCount()
	r := s.submit(t, qps, 2, length)
	r = s.waitTerminal(t, r.Id.String(), bound)
	s.checkWhole(t, r, before)
}

// TestPostgresDownMidRun: Postgres stopped for FAULTS_OUTAGE mid-run: the
// API is not ready meanwhile, ingest resumes from NATS afterwards and
// nothing is lost.
func TestPostgresDownMidRun(t *testing.T) {
	survives(t, func(s *stack) {
		s.pg.stop(t)
		waitFor(t, 15*time.Second, "API not ready without Postgres", func() error {
			if s.ready(s.apiURL) == nil {
				return errStillReady
			}
			return nil
		})
		time.Sleep(outage(t))
		s.pg.start(t)
		waitFor(t, 30*time.Second, "API ready again", func() error { return s.ready(s.apiURL) })
	}, bound+outage(t))
}

// TestAgentsExitWhilePostgresIsDown: Postgres stops mid-run, then both
// agents are told to stop: each sends its final into JetStream and exits,
// and their heartbeats expire, all before Postgres is back. The finals
// wait in the stream, so the sweeper loses no shard (its backlog grace,
// docs/reliability.md) and the run completes whole once they are stored.
func TestAgentsExitWhilePostgresIsDown(t *testing.T) {
	s := startStack(t, 1, 2)
	before, _ := s.echoCount()
	r := s.submit(t, qps, 2, length)
	s.waitRunning(t, r.Id.String(), 2)
	s.pg.stop(t)
	for _, a := range s.agents {
		a.signal(t, syscall.SIGTERM, 15*time.Second)
	}
	time.Sleep(wire.AgentTTL + time.Second)
	s.pg.start(t)
	waitFor(t, 30*time.Second, "API ready again", func() error { return s.ready(s.apiURL) })
	r = s.waitTerminal(t, r.Id.String(), bound)
	s.checkWhole(t, r, before)
}

// TestTwoAPIReplicas: two API processes share the ingest consumer: the run
// completes and no snapshot is stored twice.
func TestTwoAPIReplicas(t *testing.T) {
	s := startStack(t, 2, 2)
	before, _ := s.echoCount()
	r := s.submit(t, qps, 2, length)
	r = s.waitTerminal(t, r.Id.String(), bound)
	s.checkWhole(t, r, before)
}

type readyErr string

func (e readyErr) Error() string { return string(e) }

const errStillReady = readyErr("the API still answers /readyz 200")
