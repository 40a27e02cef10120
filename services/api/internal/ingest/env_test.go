package ingest_test

import (
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"google.golang.org/protobuf/proto"

	"github.com/barrage-dev/barrage/pkg/hist"
	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/pkg/wire"
	barragev1 "github.com/barrage-dev/barrage/proto/barrage/v1"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/fixture"
	"github.com/barrage-dev/barrage/services/api/internal/ingest"
	"github.com/barrage-dev/barrage/services/api/internal/live"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
	"github.com/barrage-dev/barrage/services/api/internal/store"
)

// env is a migrated store with a project and an embedded NATS with the
// contract's streams and buckets.
type env struct {
	st      *store.Store
	db      *sql.DB
	project uuid.UUID
	nc      *nats.Conn
	js      jetstream.JetStream
	// log holds what every ingester of the test logged.
	log *syncBuffer
	// events collects the OnInterval calls of every ingester of the test.
	events *eventLog
	// agents maps "<run>/<shard>" to the agent plannedRun gave the shard.
	agents sync.Map
}

func newEnv(t *testing.T) *env {
	t.Helper()
	st, project := fixture.Store(t)
	_, nc, js := fixture.JetStream(t)
	e := &env{st: st, db: st.DB(), project: project, nc: nc, js: js, log: &syncBuffer{}, events: &eventLog{}}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("ingester log:\n%s", e.log)
		}
	})
	return e
}

// ctxT returns a context that ends with the test or after two minutes.
func ctxT(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// start runs an ingester until the returned stop is called (or the test
// ends); stop waits for Run to return. change edits the config first.
func (e *env) start(t *testing.T, change func(*ingest.Config)) (stop func()) {
	t.Helper()
	return e.startCtx(t, context.Background(), change)
}

// startCtx is start with a context that may end Run before stop is called.
func (e *env) startCtx(t *testing.T, parent context.Context, change func(*ingest.Config)) (stop func()) {
	t.Helper()
	cfg := ingest.Config{
		Store: e.st, JS: e.js, Conn: e.nc, Log: slog.New(slog.NewTextHandler(e.log, nil)),
		OnInterval: e.events.add, SweepEvery: 50 * time.Millisecond, RetryDelay: 100 * time.Millisecond,
	}
	if change != nil {
		change(&cfg)
	}
	ctx, cancel := context.WithCancel(parent)
	in, err := ingest.New(ctxT(t), cfg)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- in.Run(ctx) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("ingester: %v", err)
				}
			case <-time.After(15 * time.Second):
				t.Error("ingester did not stop within 15s")
			}
		})
	}
	t.Cleanup(stop)
	return stop
}

// plannedRun creates a run of sp and plans it on n agents, from startAt
// to deadline, as the dispatcher does.
func (e *env) plannedRun(t *testing.T, sp spec.Spec, n int, startAt, deadline time.Time) (runs.Run, []uuid.UUID) {
	t.Helper()
	ctx := ctxT(t)
	sp.Normalize()
	if err := sp.Validate(); err != nil {
		t.Fatal(err)
	}
	id, _ := uuid.NewV7()
	now := time.Now().UTC()
	run, _, err := e.st.CreateRun(ctx, runs.NewRun{
		Run: runs.Run{ID: id, ProjectID: e.project, Status: runs.Queued, Source: runs.SourceAPI, Spec: sp,
			Target: sp.URL, QPSRequested: sp.QPS, CreatedAt: now, UpdatedAt: now},
		Dispatch: []byte(`{}`), Actor: auth.Actor{},
	})
	if err != nil {
		t.Fatal(err)
	}
	p := runs.Plan{RunID: run.ID, StartAt: startAt, Deadline: deadline}
	agents := make([]uuid.UUID, n)
	for i := range n {
		agents[i] = uuid.New()
		p.Shards = append(p.Shards, runs.Shard{Index: i, AgentID: agents[i], AgentName: fmt.Sprintf("agent-%d", i), QPS: sp.QPS / float64(n), Connections: 1})
		e.agents.Store(fmt.Sprintf("%s/%d", run.ID, i), agents[i].String())
	}
	if run, err = e.st.PlanRun(ctx, p); err != nil {
		t.Fatal(err)
	}
	return run, agents
}

// beat keeps the agents' heartbeats alive until the test ends.
func (e *env) beat(t *testing.T, agents ...uuid.UUID) {
	t.Helper()
	kv, err := e.js.KeyValue(ctxT(t), wire.AgentsBucket)
	if err != nil {
		t.Fatal(err)
	}
	put := func(ctx context.Context) error {
		for _, id := range agents {
			b, _ := proto.Marshal(&barragev1.Heartbeat{AgentId: id.String(), Name: "agent", Capacity: 4})
			if _, err := kv.Put(ctx, id.String(), b); err != nil {
				return err
			}
		}
		return nil
	}
	if err := put(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				_ = put(ctx) // a missed beat is retried a second later, well within wire.AgentTTL
			}
		}
	})
	t.Cleanup(func() { cancel(); wg.Wait() })
}

// planAgent as a snapshot's agent id stands for the agent plannedRun gave
// its shard; publish fills it in.
const planAgent = "agent"

// publish sends a snapshot as an agent does, with msgID ("" for the
// contract's id).
func (e *env) publish(t *testing.T, s *barragev1.Snapshot, msgID string) {
	t.Helper()
	if s.GetAgentId() == planAgent {
		if a, ok := e.agents.Load(fmt.Sprintf("%s/%d", s.GetRunId(), s.GetShard())); ok {
			s.AgentId = a.(string)
		}
	}
	b, err := proto.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	e.publishRaw(t, wire.SnapSubject(s.GetAgentId(), s.GetRunId(), s.GetShard()), b, cmp.Or(msgID, wire.SnapMsgID(s.GetRunId(), s.GetShard(), s.GetSeq())))
}

// publishRaw sends data on subject with a message id.
func (e *env) publishRaw(t *testing.T, subject string, data []byte, msgID string) {
	t.Helper()
	if _, err := e.js.Publish(ctxT(t), subject, data, jetstream.WithMsgID(msgID)); err != nil {
		t.Fatal(err)
	}
}

// waitFor polls cond until it returns nil, failing t after within.
func waitFor(t *testing.T, within time.Duration, cond func() error) {
	t.Helper()
	end := time.Now().Add(within)
	for {
		err := cond()
		if err == nil {
			return
		}
		if time.Now().After(end) {
			t.Fatalf("after %s: %v", within, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitStatus waits until the run has status want.
func (e *env) waitStatus(t *testing.T, id uuid.UUID, want runs.Status) runs.Run {
	t.Helper()
	var run runs.Run
	waitFor(t, 30*time.Second, func() error {
		var err error
		if run, err = e.st.GetRun(context.Background(), id); err != nil {
			return err
		}
		if run.Status != want {
			return fmt.Errorf("run is %s (error %q), want %s", run.Status, run.Error, want)
		}
		return nil
	})
	return run
}

// drained waits until every published snapshot was acked or terminated:
// the work-queue stream is empty (its count is exact as soon as a publish
// returns, unlike the consumer's pending count) and nothing is unacked.
func (e *env) drained(t *testing.T) {
	t.Helper()
	waitFor(t, 30*time.Second, func() error {
		ctx := context.Background()
		st, err := e.js.Stream(ctx, wire.SnapStream)
		if err != nil {
			return err
		}
		si, err := st.Info(ctx)
		if err != nil {
			return err
		}
		c, err := st.Consumer(ctx, wire.IngestConsumer)
		if err != nil {
			return err
		}
		ci, err := c.Info(ctx)
		if err != nil {
			return err
		}
		if si.State.Msgs != 0 || ci.NumPending != 0 || ci.NumAckPending != 0 {
			return fmt.Errorf("stream holds %d snapshots, consumer has %d pending and %d unacked", si.State.Msgs, ci.NumPending, ci.NumAckPending)
		}
		return nil
	})
}

// count returns the single integer query returns.
func (e *env) count(t *testing.T, query string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := e.db.QueryRowContext(ctxT(t), query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// runPhase returns the phase of the run in the run-state bucket.
func (e *env) runPhase(t *testing.T, id uuid.UUID) barragev1.RunPhase {
	t.Helper()
	kv, err := e.js.KeyValue(ctxT(t), wire.RunsBucket)
	if err != nil {
		t.Fatal(err)
	}
	// The finisher writes the state just after the run's row: a test that
	// saw the row may ask a moment before the state is there.
	var entry jetstream.KeyValueEntry
	waitFor(t, 10*time.Second, func() error {
		entry, err = kv.Get(ctxT(t), id.String())
		if err != nil {
			return fmt.Errorf("run state of %s: %w", id, err)
		}
		return nil
	})
	var st barragev1.RunState
	if err := proto.Unmarshal(entry.Value(), &st); err != nil {
		t.Fatal(err)
	}
	return st.GetPhase()
}

// eventLog collects events.
type eventLog struct {
	mu  sync.Mutex
	all []live.Event
}

func (l *eventLog) add(e live.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.all = append(l.all, e)
}

// tally counts a run's events: the seconds interval events named (the
// ingester sends one per second a batch changed, however many of its
// snapshots the batch held), stored finals, and run ends by status.
func (l *eventLog) tally(id uuid.UUID) (seconds, finals int, ends map[runs.Status]int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return tallyEvents(l.all, id)
}

// tallyEvents is tally over events.
func tallyEvents(events []live.Event, id uuid.UUID) (seconds, finals int, ends map[runs.Status]int) {
	ends = map[runs.Status]int{}
	named := map[int]bool{}
	for _, e := range events {
		switch {
		case e.RunID != id:
		case e.Status != "":
			ends[e.Status]++
		case e.Final:
			finals++
		default:
			named[e.Second] = true
		}
	}
	return len(named), finals, ends
}

// syncBuffer is a log sink safe for concurrent writes.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// sameHist fails t unless the encoding got holds exactly the values of want:
// same count, extremes, moments and percentiles across the range.
func sameHist(t *testing.T, what string, got []byte, want *hist.Histogram) {
	t.Helper()
	h, err := hist.Decode(got)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if h.Count() != want.Count() || h.Min() != want.Min() || h.Max() != want.Max() ||
		h.MeanMicros() != want.MeanMicros() || h.StdDevMicros() != want.StdDevMicros() {
		t.Errorf("%s: count %d min %s max %s mean %.3f sd %.3f; want %d %s %s %.3f %.3f", what,
			h.Count(), h.Min(), h.Max(), h.MeanMicros(), h.StdDevMicros(),
			want.Count(), want.Min(), want.Max(), want.MeanMicros(), want.StdDevMicros())
	}
	ps := []float64{0, 1, 5, 10, 25, 50, 75, 90, 95, 99, 99.9, 100}
	g, w := h.Percentiles(ps), want.Percentiles(ps)
	for i := range ps {
		if g[i] != w[i] {
			t.Errorf("%s: p%g = %s, want %s", what, ps[i], g[i].Value, w[i].Value)
		}
	}
}

// micros returns d in microseconds.
func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// closeTo reports whether a and b agree to a relative 1e-12.
func closeTo(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(math.Abs(a), math.Abs(b)) }

// notifications subscribes to wire.NotifySubject and returns the events
// received so far on each call.
func (e *env) notifications(t *testing.T) func() []live.Event {
	t.Helper()
	var (
		mu  sync.Mutex
		got []live.Event
	)
	sub, err := e.nc.Subscribe(wire.NotifySubject, func(m *nats.Msg) {
		var ev live.Event
		if err := json.Unmarshal(m.Data, &ev); err != nil {
			t.Errorf("notify payload %q: %v", m.Data, err)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		got = append(got, ev)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.nc.Flush(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sub.Unsubscribe() })
	return func() []live.Event {
		mu.Lock()
		defer mu.Unlock()
		return append([]live.Event(nil), got...)
	}
}
