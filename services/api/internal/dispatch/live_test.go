package dispatch_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/services/api/internal/dispatch"
	"github.com/barrage-dev/barrage/services/api/internal/fixture"
	"github.com/barrage-dev/barrage/services/api/internal/live"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
	"github.com/barrage-dev/barrage/services/api/internal/store"
)

// sseBody is a ResponseWriter the test reads while a stream writes.
type sseBody struct {
	mu   sync.Mutex
	h    http.Header
	body strings.Builder
}

func (b *sseBody) Header() http.Header { return b.h }
func (b *sseBody) WriteHeader(int)     {}

func (b *sseBody) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.body.Write(p)
}

func (b *sseBody) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.body.String()
}

// storeSource reads one run from the store, as runs.Watch does, and counts
// the reads of the run itself.
type storeSource struct {
	st *store.Store
	id uuid.UUID

	mu       sync.Mutex
	runReads int
}

func (s *storeSource) Run(ctx context.Context) (runs.Run, error) {
	s.mu.Lock()
	s.runReads++
	s.mu.Unlock()
	return s.st.GetRun(ctx, s.id)
}

func (s *storeSource) reads() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.runReads
}

func (s *storeSource) Result(ctx context.Context, _ runs.Run) (runs.Result, error) {
	return s.st.RunResult(ctx, s.id)
}

func (s *storeSource) Marks(ctx context.Context, from, limit int) ([]runs.IntervalMark, error) {
	return s.st.RunIntervalMarks(ctx, s.id, from, limit)
}

func (s *storeSource) Intervals(ctx context.Context, from, limit int) ([]runs.Interval, error) {
	return s.st.RunIntervals(ctx, s.id, from, limit)
}

// jsonEncoder renders seconds and results as their Go values' JSON.
type jsonEncoder struct{}

func (jsonEncoder) Interval(iv *runs.Interval) ([]byte, error) { return json.Marshal(iv) }

func (jsonEncoder) Result(_ runs.Run, res runs.Result) ([]byte, error) { return json.Marshal(res) }

// The dispatcher publishes its status changes into its replica's hub,
// whence they reach a stream served by another replica's hub over NATS:
// the stream never reads its run to learn of them.
func TestDispatchTellsLiveStreamsOfStatusChanges(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st, project := fixture.Store(t)
	_, nc, js := fixture.JetStream(t)
	here := live.New(live.Options{Conn: nc})
	d, err := dispatch.New(ctx, dispatch.Config{Store: st, Conn: nc, JS: js, AckTimeout: 10 * time.Second, Wait: 20 * time.Second,
		Poll: 20 * time.Millisecond, Live: here})
	if err != nil {
		t.Fatal(err)
	}
	there := live.New(live.Options{}) // another replica's hub
	natsSub, err := there.SubscribeNATS(nc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = natsSub.Unsubscribe() })
	dctx, stop := context.WithCancel(ctx)
	dispatched := make(chan error, 1)
	go func() { dispatched <- d.Run(dctx) }()
	defer func() {
		stop()
		if err := <-dispatched; err != nil {
			t.Errorf("dispatcher: %v", err)
		}
	}()
	e := &env{st: st, project: project, nc: nc, js: js}
	run := e.createRun(t, spec.Spec{URL: "http://127.0.0.1:9/", QPS: 10, Duration: spec.Duration(5 * time.Second)})
	// Subscribed before the run is read, as httpapi's adapter does; the run
	// waits for an agent, so the stream starts before it is dispatched.
	sub := there.Subscribe(run.ID)
	src := &storeSource{st: st, id: run.ID}
	first, err := src.Run(ctx)
	if err != nil || first.Status != runs.Queued {
		t.Fatalf("run %s (%v), want queued", first.Status, err)
	}
	src.runReads = 0
	w := &sseBody{h: http.Header{}}
	sctx, endStream := context.WithCancel(ctx)
	served := make(chan struct{})
	go func() {
		defer close(served)
		live.NewStream(live.StreamOptions{Source: src, Run: first, Sub: sub, Encoder: jsonEncoder{}}).Serve(sctx, w)
	}()
	defer func() { endStream(); <-served }()

	agent := e.heartbeat(t, "agent-a", nil)
	waitBody(t, w, `"status":"dispatching"`)
	e.takeAssignment(t, agent, true)
	waitBody(t, w, `"status":"running"`)
	body := w.String()
	q, dsp, r := strings.Index(body, `"status":"queued"`), strings.Index(body, `"status":"dispatching"`), strings.Index(body, `"status":"running"`)
	if q < 0 || q >= dsp || dsp >= r {
		t.Fatalf("status events out of order:\n%s", body)
	}
	if n := src.reads(); n != 0 {
		t.Fatalf("the stream read its run %d times; status changes must come as events", n)
	}
}

// waitBody waits until the stream wrote want.
func waitBody(t *testing.T, w *sseBody, want string) {
	t.Helper()
	end := time.Now().Add(15 * time.Second)
	for !strings.Contains(w.String(), want) {
		if time.Now().After(end) {
			t.Fatalf("the stream did not send %s within 15s:\n%s", want, w.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}
