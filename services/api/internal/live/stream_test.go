package live

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

func TestParseCursor(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want Cursor
		ok   bool
	}{
		{"0.0", Cursor{0, 0, true}, true},
		{"12.3", Cursor{12, 3, true}, true},
		{"12", Cursor{}, false},
		{"-1.0", Cursor{}, false},
		{"1.x", Cursor{}, false},
		{"", Cursor{}, false},
	}
	for _, tt := range tests {
		got, ok := ParseCursor(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseCursor(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
		if ok && got.String() != tt.in {
			t.Errorf("cursor %q renders as %q", tt.in, got.String())
		}
	}
}

// sseRecorder is a ResponseWriter that a test reads while a stream writes.
type sseRecorder struct {
	mu     sync.Mutex
	header http.Header
	body   strings.Builder
}

func newSSERecorder() *sseRecorder { return &sseRecorder{header: http.Header{}} }

func (r *sseRecorder) Header() http.Header { return r.header }
func (r *sseRecorder) WriteHeader(int)     {}
func (r *sseRecorder) Flush()              {}

func (r *sseRecorder) Write(b []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.body.Write(b)
}

// statuses returns the statuses of the status events written so far.
func (r *sseRecorder) statuses() []runs.Status {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []runs.Status
	for ev := range strings.SplitSeq(r.body.String(), "\n\n") {
		data, ok := strings.CutPrefix(ev[strings.LastIndex(ev, "\n")+1:], "data: ")
		if !ok || !strings.HasPrefix(ev, "event: status\n") {
			continue
		}
		var st statusData
		if err := json.Unmarshal([]byte(data), &st); err == nil {
			out = append(out, st.Status)
		}
	}
	return out
}

// has reports whether an event of kind was written.
func (r *sseRecorder) has(kind string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Contains(r.body.String(), "event: "+kind+"\n")
}

// waitFor polls cond until it holds or within passes.
func waitFor(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	end := time.Now().Add(within)
	for !cond() {
		if time.Now().After(end) {
			t.Fatalf("%s: not within %s", what, within)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// countingSource is a run with no seconds stored that counts its reads of
// the run.
type countingSource struct {
	mu       sync.Mutex
	run      runs.Run
	result   runs.Result
	runReads int
}

func (s *countingSource) Run(context.Context) (runs.Run, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.runReads++
	return s.run, nil
}

func (s *countingSource) reads() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.runReads
}

func (s *countingSource) set(r runs.Run) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.run = r
}

func (s *countingSource) Result(_ context.Context, r runs.Run) (runs.Result, error) {
	if !r.Status.Terminal() {
		return runs.Result{}, apperr.New(apperr.Conflict, "no result yet")
	}
	return s.result, nil
}

func (*countingSource) Marks(context.Context, int, int) ([]runs.IntervalMark, error) {
	return nil, nil
}

func (*countingSource) Intervals(context.Context, int, int) ([]runs.Interval, error) {
	return nil, nil
}

func TestStreamIsToldOfStatusChanges(t *testing.T) {
	t.Parallel()
	hub := New(Options{})
	r := runs.Run{ID: uuid.New(), Status: runs.Queued}
	src := &countingSource{run: r}
	s := NewStream(StreamOptions{Source: src, Run: r, Sub: hub.Subscribe(r.ID), Encoder: testEncoder{}})
	w := newSSERecorder()
	done := make(chan struct{})
	go func() { defer close(done); s.Serve(t.Context(), w) }()
	sent := func(want ...runs.Status) func() bool {
		return func() bool { return slices.Equal(w.statuses(), want) }
	}
	waitFor(t, 5*time.Second, "the first status", sent(runs.Queued))
	for i, st := range []runs.Status{runs.Dispatching, runs.Running} {
		hub.RunMoved(runs.Run{ID: r.ID, Status: st, ShardCount: 2})
		waitFor(t, 5*time.Second, "status "+string(st), sent(append([]runs.Status{runs.Queued}, runs.Statuses()[1:i+2]...)...))
	}
	// Another replica's event that crossed ours: the stream does not go back.
	hub.Remote(StatusEvent(runs.Run{ID: r.ID, Status: runs.Dispatching, ShardCount: 2}))
	hub.RunMoved(runs.Run{ID: r.ID, Status: runs.Stopping, ShardCount: 2})
	waitFor(t, 5*time.Second, "status stopping", sent(runs.Queued, runs.Dispatching, runs.Running, runs.Stopping))
	if n := src.reads(); n != 0 {
		t.Fatalf("the stream read its run %d times while it was told every status", n)
	}
	// The end: the stream reads the run once, for its result.
	ended := runs.Run{ID: r.ID, Status: runs.Completed, ShardCount: 2}
	src.result = runs.Result{RunID: r.ID, Count: 0}
	src.set(ended)
	hub.RunMoved(ended)
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the stream did not end with its run")
	}
	if got := w.statuses(); !slices.Equal(got, []runs.Status{runs.Queued, runs.Dispatching, runs.Running, runs.Stopping, runs.Completed}) {
		t.Fatalf("statuses sent %v", got)
	}
	if !w.has("result") || src.reads() != 1 || s.sent.complete != 2 {
		t.Fatalf("result sent %v, %d run reads, complete at %d snapshots; want true, 1, 2", w.has("result"), src.reads(), s.sent.complete)
	}
	if hub.Subscribers(r.ID) != 0 {
		t.Fatal("the stream left its subscription open")
	}
}
