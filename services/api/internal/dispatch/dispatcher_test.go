package dispatch_test

import (
	"context"
	"encoding/json"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"google.golang.org/protobuf/proto"

	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/pkg/wire"
	barragev1 "github.com/barrage-dev/barrage/proto/barrage/v1"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/dispatch"
	"github.com/barrage-dev/barrage/services/api/internal/fixture"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
	"github.com/barrage-dev/barrage/services/api/internal/store"
)

// env is a migrated store with a project, an embedded NATS with the
// contract's streams, and a running dispatcher.
type env struct {
	st      *store.Store
	project uuid.UUID
	nc      *nats.Conn
	js      jetstream.JetStream
	cancel  context.CancelFunc
	done    chan error
}

func newEnv(t *testing.T, ackTimeout, wait time.Duration) *env {
	return newEnvMax(t, ackTimeout, wait, 0)
}

func newEnvMax(t *testing.T, ackTimeout, wait, maxRunFor time.Duration) *env {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	st, project := fixture.Store(t)
	_, nc, js := fixture.JetStream(t)
	d, err := dispatch.New(ctx, dispatch.Config{Store: st, Conn: nc, JS: js, AckTimeout: ackTimeout, Wait: wait, MaxRunFor: maxRunFor, Poll: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	e := &env{st: st, project: project, nc: nc, js: js, done: make(chan error, 1)}
	rctx, rcancel := context.WithCancel(context.Background())
	e.cancel = rcancel
	go func() { e.done <- d.Run(rctx) }()
	t.Cleanup(func() {
		rcancel()
		select {
		case err := <-e.done:
			if err != nil {
				t.Errorf("dispatcher: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("dispatcher did not stop within 10s")
		}
	})
	return e
}

// heartbeat registers a (simulated) agent in the agents bucket.
func (e *env) heartbeat(t *testing.T, name string, labels map[string]string) string {
	t.Helper()
	id := uuid.NewString()
	kv, err := e.js.KeyValue(context.Background(), wire.AgentsBucket)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := proto.Marshal(&barragev1.Heartbeat{AgentId: id, Name: name, Labels: labels, Capacity: 4})
	if _, err := kv.Put(context.Background(), id, b); err != nil {
		t.Fatal(err)
	}
	return id
}

// The target policy every test run carries, which each assignment must
// repeat for its agent.
var (
	testAllow = []string{"127.0.0.0/8", "*"}
	testDeny  = []string{"127.0.0.1:8080", "db.internal:5432"}
)

// createRun stores a queued run with its dispatch outbox row, as POST /runs does.
func (e *env) createRun(t *testing.T, sp spec.Spec) runs.Run {
	t.Helper()
	sp.Normalize()
	if err := sp.Validate(); err != nil {
		t.Fatal(err)
	}
	id, _ := uuid.NewV7()
	payload, _ := json.Marshal(runs.DispatchMessage{RunID: id, ProjectID: e.project, Spec: sp,
		TargetAllow: testAllow, TargetDeny: testDeny})
	now := time.Now().UTC()
	r, _, err := e.st.CreateRun(context.Background(), runs.NewRun{
		Run: runs.Run{ID: id, ProjectID: e.project, Status: runs.Queued, Source: runs.SourceAPI, Spec: sp,
			Target: sp.URL, QPSRequested: sp.QPS, CreatedAt: now, UpdatedAt: now},
		Dispatch: payload, Actor: auth.Actor{},
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// waitStatus polls the run until it has status want.
func (e *env) waitStatus(t *testing.T, id uuid.UUID, want runs.Status, within time.Duration) runs.Run {
	t.Helper()
	end := time.Now().Add(within)
	for {
		r, err := e.st.GetRun(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status == want {
			return r
		}
		if time.Now().After(end) {
			t.Fatalf("run is %s after %s, want %s (error %q)", r.Status, within, want, r.Error)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// takeAssignment fetches (and acks, when ack is set) one assignment from an
// agent's subject, as the agent's consumer does.
func (e *env) takeAssignment(t *testing.T, agentID string, ack bool) *barragev1.Assignment {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := e.js.CreateOrUpdateConsumer(ctx, wire.AssignStream, jetstream.ConsumerConfig{
		Durable: wire.AgentConsumer(agentID), FilterSubject: wire.AssignSubject(agentID), AckPolicy: jetstream.AckExplicitPolicy,
	})
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := c.Fetch(1, jetstream.FetchMaxWait(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	m, ok := <-msgs.Messages()
	if !ok {
		t.Fatalf("no assignment for agent %s", agentID)
	}
	a := &barragev1.Assignment{}
	if err := proto.Unmarshal(m.Data(), a); err != nil {
		t.Fatal(err)
	}
	if got, want := m.Headers().Get(jetstream.MsgIDHeader), wire.AssignMsgID(a.GetRunId(), a.GetShard()); got != want {
		t.Errorf("assignment msg id %q, want %q", got, want)
	}
	if ack {
		if err := m.DoubleAck(ctx); err != nil {
			t.Fatal(err)
		}
	}
	return a
}

func TestDispatchSplitsAcrossAgentsAndRunsAfterAcks(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 10*time.Second, 0)
	ids := []string{
		e.heartbeat(t, "agent-a", map[string]string{"zone": "a"}),
		e.heartbeat(t, "agent-b", map[string]string{"zone": "a"}),
		e.heartbeat(t, "agent-c", map[string]string{"zone": "a"}),
		e.heartbeat(t, "agent-z", map[string]string{"zone": "z"}),
	}
	before := time.Now()
	run := e.createRun(t, spec.Spec{URL: "http://127.0.0.1:9/", QPS: 300, Connections: 10, Duration: spec.Duration(5 * time.Second),
		Agents: &spec.Agents{Selector: map[string]string{"zone": "a"}}})
	planned := e.waitStatus(t, run.ID, runs.Dispatching, 10*time.Second)
	if planned.ShardCount != 3 {
		t.Fatalf("shard count %d, want 3", planned.ShardCount)
	}
	if d := planned.StartAt.Sub(before); d < wire.StartDelay-100*time.Millisecond || d > wire.StartDelay+5*time.Second {
		t.Errorf("start_at is %s after the run was created, want about %s", d, wire.StartDelay)
	}
	if got, want := planned.Deadline.Sub(planned.StartAt), 7*time.Second; got != want {
		t.Errorf("deadline is %s after start_at, want %s", got, want)
	}
	var qps float64
	var conns int
	seen := map[uint32]spec.Spec{}
	for _, id := range ids[:3] {
		a := e.takeAssignment(t, id, true)
		if _, dup := seen[a.GetShard()]; a.GetRunId() != run.ID.String() || a.GetShardCount() != 3 || dup {
			t.Fatalf("assignment %+v", a)
		}
		if !a.GetStartAt().AsTime().Equal(planned.StartAt) || !a.GetDeadline().AsTime().Equal(planned.Deadline) {
			t.Errorf("shard %d: start %v deadline %v, want %v %v", a.GetShard(), a.GetStartAt().AsTime(), a.GetDeadline().AsTime(), planned.StartAt, planned.Deadline)
		}
		sp, err := spec.Parse(a.GetSpec())
		if err != nil {
			t.Fatalf("shard spec: %v", err)
		}
		seen[a.GetShard()] = sp
		if sp.Agents != nil {
			t.Errorf("shard %d spec keeps the agents block %v", a.GetShard(), sp.Agents)
		}
		if !slices.Equal(a.GetTargetAllow(), testAllow) || !slices.Equal(a.GetTargetDeny(), testDeny) {
			t.Errorf("shard %d: target allow %q deny %q, want %q %q", a.GetShard(), a.GetTargetAllow(), a.GetTargetDeny(), testAllow, testDeny)
		}
		qps += sp.QPS
		conns += sp.Connections
	}
	if math.Abs(qps-300) > 1e-9 || conns != 10 {
		t.Errorf("shard specs add to %v qps and %d connections, want 300 and 10", qps, conns)
	}
	running := e.waitStatus(t, run.ID, runs.Running, 10*time.Second)
	if running.StartedAt.IsZero() {
		t.Error("running run has no started_at")
	}
	shards, err := e.st.RunShards(context.Background(), run.ID)
	if err != nil || len(shards) != 3 {
		t.Fatalf("shards %v, %v", shards, err)
	}
	for _, sh := range shards {
		// The plan records what each shard's spec was assigned.
		if sp := seen[uint32(sh.Index)]; sh.QPS != sp.QPS || sh.Connections != sp.Connections {
			t.Errorf("shard %d recorded %v qps and %d connections, its spec has %v and %d", sh.Index, sh.QPS, sh.Connections, sp.QPS, sp.Connections)
		}
	}
	kv, _ := e.js.KeyValue(context.Background(), wire.RunsBucket)
	entry, err := kv.Get(context.Background(), run.ID.String())
	if err != nil {
		t.Fatal(err)
	}
	st := &barragev1.RunState{}
	if err := proto.Unmarshal(entry.Value(), st); err != nil || st.GetPhase() != barragev1.RunPhase_RUN_PHASE_RUNNING {
		t.Errorf("run state %v (%v), want RUNNING", st, err)
	}
	// agent-z was never assigned anything.
	c, err := e.js.Stream(context.Background(), wire.AssignStream)
	if err != nil {
		t.Fatal(err)
	}
	info, err := c.Info(context.Background(), jetstream.WithSubjectFilter(wire.AssignSubject(ids[3])))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(info.State.Subjects); n != 0 {
		t.Errorf("agent-z has %d assignment subjects, want none", n)
	}
}

func TestDispatchWithoutAgentsFails(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 10*time.Second, 0)
	run := e.createRun(t, spec.Spec{URL: "http://127.0.0.1:9/", QPS: 10, Duration: spec.Duration(time.Second)})
	failed := e.waitStatus(t, run.ID, runs.Failed, 10*time.Second)
	if failed.Error != "no agent available: no agent is connected" {
		t.Errorf("error %q", failed.Error)
	}
	if failed.EndedAt.IsZero() {
		t.Error("failed run has no ended_at")
	}
}

func TestDispatchFailsWhenAgentsDoNotAck(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 300*time.Millisecond, 0)
	e.heartbeat(t, "silent", nil)
	run := e.createRun(t, spec.Spec{URL: "http://127.0.0.1:9/", QPS: 10, Duration: spec.Duration(time.Second)})
	sub, err := e.nc.SubscribeSync(wire.ControlSubject(run.ID.String()))
	if err != nil {
		t.Fatal(err)
	}
	failed := e.waitStatus(t, run.ID, runs.Failed, wire.StartDelay+10*time.Second)
	if failed.Error != "1 of 1 agents did not take their assignment within 300ms of the start" {
		t.Errorf("error %q", failed.Error)
	}
	m, err := sub.NextMsg(5 * time.Second)
	if err != nil {
		t.Fatalf("no stop published for the failed run: %v", err)
	}
	c := &barragev1.Control{}
	if err := proto.Unmarshal(m.Data, c); err != nil || c.GetAction() != barragev1.Action_ACTION_STOP {
		t.Errorf("control %v (%v)", c, err)
	}
}

func TestStopPublishesStateAndControl(t *testing.T) {
	t.Parallel()
	e := newEnvMax(t, 10*time.Second, 0, time.Hour)
	agent := e.heartbeat(t, "a", nil)
	run := e.createRun(t, spec.Spec{URL: "http://127.0.0.1:9/", QPS: 10, UntilStopped: true})
	e.takeAssignment(t, agent, true)
	e.waitStatus(t, run.ID, runs.Running, 10*time.Second)
	sub, err := e.nc.SubscribeSync(wire.ControlSubject(run.ID.String()))
	if err != nil {
		t.Fatal(err)
	}
	ctl, _ := json.Marshal(runs.ControlMessage{RunID: run.ID, Action: "stop"})
	if _, err := e.st.MoveRun(context.Background(), runs.Move{RunID: run.ID, To: runs.Stopping, Control: ctl}); err != nil {
		t.Fatal(err)
	}
	if _, err := sub.NextMsg(5 * time.Second); err != nil {
		t.Fatalf("no stop on the control subject: %v", err)
	}
	kv, _ := e.js.KeyValue(context.Background(), wire.RunsBucket)
	entry, err := kv.Get(context.Background(), run.ID.String())
	if err != nil {
		t.Fatal(err)
	}
	st := &barragev1.RunState{}
	if err := proto.Unmarshal(entry.Value(), st); err != nil || st.GetPhase() != barragev1.RunPhase_RUN_PHASE_STOPPING {
		t.Errorf("run state %v (%v), want STOPPING", st, err)
	}
	if r, _ := e.st.GetRun(context.Background(), run.ID); r.Deadline.Sub(r.StartAt) != time.Hour {
		t.Errorf("until-stopped run deadline %s after start, want the server's 1h limit", r.Deadline.Sub(r.StartAt))
	}
}

func TestDispatchWaitsForAnAgent(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 10*time.Second, time.Minute)
	run := e.createRun(t, spec.Spec{URL: "http://127.0.0.1:9/", QPS: 10, Duration: spec.Duration(time.Second)})
	time.Sleep(1500 * time.Millisecond) // more than one retry
	if r, _ := e.st.GetRun(context.Background(), run.ID); r.Status != runs.Queued {
		t.Fatalf("run without agents is %s (%q), want queued while it waits", r.Status, r.Error)
	}
	agent := e.heartbeat(t, "late", nil)
	a := e.takeAssignment(t, agent, true)
	if a.GetRunId() != run.ID.String() {
		t.Fatalf("late agent got run %s", a.GetRunId())
	}
	e.waitStatus(t, run.ID, runs.Running, 10*time.Second)
}
