package worker_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/barrage-dev/barrage/pkg/natsembed"
	"github.com/barrage-dev/barrage/pkg/wire"
	barragev1 "github.com/barrage-dev/barrage/proto/barrage/v1"
	"github.com/barrage-dev/barrage/services/agent/internal/worker"
)

// harness is an embedded NATS server set up as barrage-api would, and a
// client connection playing the API.
type harness struct {
	srv    *natsembed.Server
	nc     *nats.Conn
	js     jetstream.JetStream
	agents jetstream.KeyValue
	runs   jetstream.KeyValue
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	srv := natsembed.StartT(t)
	nc, err := nats.Connect(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx := testCtx(t, 10*time.Second)
	if err := wire.Setup(ctx, js); err != nil {
		t.Fatal(err)
	}
	h := &harness{srv: srv, nc: nc, js: js}
	if h.agents, err = js.KeyValue(ctx, wire.AgentsBucket); err != nil {
		t.Fatal(err)
	}
	if h.runs, err = js.KeyValue(ctx, wire.RunsBucket); err != nil {
		t.Fatal(err)
	}
	return h
}

func testCtx(t *testing.T, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// running is a worker started by startWorker.
type running struct {
	w    *worker.Worker
	logs *syncBuffer
	stop func() error // cancels Run and returns its result; idempotent
}

// startWorker runs a worker against the harness's server until the test
// ends (or stop is called). Its logs are printed if the test fails.
func (h *harness) startWorker(t *testing.T, cfg worker.Config) *running {
	t.Helper()
	logs := &syncBuffer{}
	if cfg.NATSURL == "" && cfg.Conn == nil {
		cfg.NATSURL = h.srv.URL()
	}
	if cfg.Name == "" {
		cfg.Name = "test-agent"
	}
	if cfg.ShutdownTimeout == 0 {
		cfg.ShutdownTimeout = 2 * time.Second
	}
	cfg.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	w, err := worker.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	var once sync.Once
	var runErr error
	stop := func() error {
		once.Do(func() {
			cancel()
			select {
			case runErr = <-done:
			case <-time.After(cfg.ShutdownTimeout + 15*time.Second):
				runErr = errors.New("worker did not stop")
			}
		})
		return runErr
	}
	t.Cleanup(func() {
		if err := stop(); err != nil {
			t.Errorf("worker run: %v", err)
		}
		if t.Failed() {
			t.Logf("worker logs:\n%s", logs.String())
		}
	})
	h.waitHeartbeat(t, w.ID())
	return &running{w: w, logs: logs, stop: stop}
}

// waitHeartbeat waits for an agent's first heartbeat.
func (h *harness) waitHeartbeat(t *testing.T, id string) *barragev1.Heartbeat {
	t.Helper()
	var hb *barragev1.Heartbeat
	waitFor(t, 10*time.Second, func() error {
		e, err := h.agents.Get(testCtx(t, time.Second), id)
		if err != nil {
			return err
		}
		hb = &barragev1.Heartbeat{}
		return proto.Unmarshal(e.Value(), hb)
	})
	return hb
}

func (h *harness) putState(t *testing.T, run string, phase barragev1.RunPhase) {
	t.Helper()
	b, err := proto.Marshal(&barragev1.RunState{RunId: run, Phase: phase, UpdatedAt: timestamppb.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.runs.Put(testCtx(t, 5*time.Second), run, b); err != nil {
		t.Fatal(err)
	}
}

// shardSpec is what the API would send for one shard of a run.
type shardSpec struct {
	url      string
	qps      float64
	conns    int
	duration time.Duration
	startIn  time.Duration // start_at = now + startIn
	slack    time.Duration // deadline = start_at + duration + slack
	headers  []string
	// grpc is the spec's grpc block, for grpc:// URLs.
	grpc map[string]any
	// allow is the run's target allow-list; nil means loopback (the
	// targets of these tests), an empty slice refuses everything.
	allow []string
	// deny lists the control plane's addresses.
	deny []string
	// outer, when not nil, bounds allow (the organisation's target
	// policy with the project's granted entries).
	outer []string
}

// assign publishes an assignment as the dispatcher does and returns its start_at.
func (h *harness) assign(t *testing.T, agentID, run string, shard uint32, s shardSpec) time.Time {
	t.Helper()
	sp := map[string]any{"url": s.url, "qps": s.qps, "connections": s.conns, "duration": s.duration.String()}
	if len(s.headers) > 0 {
		sp["headers"] = s.headers
	}
	if s.grpc != nil {
		sp["grpc"] = s.grpc
	}
	body, err := json.Marshal(sp)
	if err != nil {
		t.Fatal(err)
	}
	startAt := time.Now().Add(s.startIn)
	if s.slack == 0 {
		s.slack = 2 * time.Second
	}
	if s.allow == nil {
		s.allow = []string{"127.0.0.0/8"}
	}
	h.publishAssignment(t, agentID, &barragev1.Assignment{
		RunId: run, Shard: shard, ShardCount: shard + 1, Spec: body,
		StartAt: timestamppb.New(startAt), Deadline: timestamppb.New(startAt.Add(s.duration + s.slack)),
		TargetAllow: s.allow, TargetDeny: s.deny, TargetOuter: s.outer, TargetBounded: s.outer != nil,
	})
	return startAt
}

func (h *harness) publishAssignment(t *testing.T, agentID string, a *barragev1.Assignment) {
	t.Helper()
	b, err := proto.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	h.publishRaw(t, agentID, wire.AssignMsgID(a.GetRunId(), a.GetShard()), b)
}

func (h *harness) publishRaw(t *testing.T, agentID, msgID string, b []byte) {
	t.Helper()
	if _, err := h.js.Publish(testCtx(t, 5*time.Second), wire.AssignSubject(agentID), b, jetstream.WithMsgID(msgID)); err != nil {
		t.Fatal(err)
	}
}

// snapshots reads a shard's snapshots from BARRAGE_SNAP, acking them as the
// ingester would, until the final one or the timeout. finalAt is when the
// final one was read.
func (h *harness) snapshots(t *testing.T, run string, shard uint32, timeout time.Duration) (snaps []*barragev1.Snapshot, finalAt time.Time) {
	t.Helper()
	ctx := testCtx(t, timeout+5*time.Second)
	cons, err := h.js.CreateOrUpdateConsumer(ctx, wire.SnapStream, jetstream.ConsumerConfig{
		Durable: fmt.Sprintf("test-%s-%d", run, shard), FilterSubject: wire.SnapSubject("*", run, shard),
		AckPolicy: jetstream.AckExplicitPolicy,
	})
	if err != nil {
		t.Fatal(err)
	}
	end := time.Now().Add(timeout)
	for time.Now().Before(end) {
		batch, err := cons.Fetch(16, jetstream.FetchMaxWait(100*time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		for m := range batch.Messages() {
			s := &barragev1.Snapshot{}
			if err := proto.Unmarshal(m.Data(), s); err != nil {
				t.Fatalf("snapshot: %v", err)
			}
			if err := m.Ack(); err != nil {
				t.Fatal(err)
			}
			snaps = append(snaps, s)
			if s.GetFinal() {
				return snaps, time.Now()
			}
		}
	}
	t.Fatalf("no final snapshot of %s/%d within %s; got %d snapshots", run, shard, timeout, len(snaps))
	return nil, time.Time{}
}

// target is an HTTP server on loopback that counts requests per path.
type target struct {
	srv *httptest.Server
	n   atomic.Int64
	mu  sync.Mutex
	// per path: first and last request time and count
	first, last map[string]time.Time
	count       map[string]int64
}

// slowPath is the target's path that answers after slowDelay.
const (
	slowPath  = "/slow"
	slowDelay = 20 * time.Millisecond
)

func newTarget(t *testing.T) *target {
	t.Helper()
	tg := &target{first: map[string]time.Time{}, last: map[string]time.Time{}, count: map[string]int64{}}
	tg.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		now := time.Now()
		tg.n.Add(1)
		tg.mu.Lock()
		if _, ok := tg.first[r.URL.Path]; !ok {
			tg.first[r.URL.Path] = now
		}
		tg.last[r.URL.Path] = now
		tg.count[r.URL.Path]++
		tg.mu.Unlock()
		if r.URL.Path == slowPath {
			time.Sleep(slowDelay) // a slow target, answered in its own goroutine
		}
		_, _ = w.Write([]byte("ok"))
	}))
	t.Cleanup(tg.srv.Close)
	return tg
}

func (tg *target) url(path string) string { return tg.srv.URL + path }

// span returns the first and last request time and the count for path.
func (tg *target) span(path string) (first, last time.Time, n int64) {
	tg.mu.Lock()
	defer tg.mu.Unlock()
	return tg.first[path], tg.last[path], tg.count[path]
}

// waitFor polls fn until it returns nil or the timeout passes.
func waitFor(t *testing.T, timeout time.Duration, fn func() error) {
	t.Helper()
	end := time.Now().Add(timeout)
	for {
		err := fn()
		if err == nil {
			return
		}
		if time.Now().After(end) {
			t.Fatalf("after %s: %v", timeout, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// quiet waits until tg's request count has not changed for still, for at
// most timeout, and returns when it last changed.
func (tg *target) quiet(t *testing.T, still, timeout time.Duration) time.Time {
	t.Helper()
	end := time.Now().Add(timeout)
	n, changed := tg.n.Load(), time.Now()
	for time.Now().Before(end) {
		time.Sleep(50 * time.Millisecond)
		if m := tg.n.Load(); m != n {
			n, changed = m, time.Now()
		}
		if time.Since(changed) >= still {
			return changed
		}
	}
	t.Fatalf("the target still receives requests after %s (%d so far)", timeout, n)
	return time.Time{}
}

// syncBuffer is a bytes.Buffer safe for concurrent writers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
