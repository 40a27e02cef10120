package live

import (
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go"

	"github.com/barrage-dev/barrage/pkg/natsembed"
	"github.com/barrage-dev/barrage/pkg/wire"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// clock is a settable clock for the echo bookkeeping.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// drain returns the events pending on s.
func drain(s *Subscription) []Event {
	var out []Event
	for {
		select {
		case e := <-s.C():
			out = append(out, e)
		default:
			return out
		}
	}
}

func TestHubDeliversEachEventOnce(t *testing.T) {
	t.Parallel()
	run, otherRun := uuid.New(), uuid.New()
	e1 := Event{RunID: run, Second: 1}
	tests := []struct {
		name string
		feed func(h *Hub, c *clock)
		want []Event
	}{
		{"local then its NATS copy", func(h *Hub, _ *clock) { h.Local(e1); h.Remote(e1) }, []Event{e1}},
		{"another replica's event", func(h *Hub, _ *clock) { h.Remote(e1) }, []Event{e1}},
		{"the same second updated twice here", func(h *Hub, _ *clock) {
			h.Local(e1)
			h.Local(e1)
			h.Remote(e1)
			h.Remote(e1)
		}, []Event{e1, e1}},
		{"here and on another replica", func(h *Hub, _ *clock) {
			h.Local(e1)
			h.Remote(e1) // our copy
			h.Remote(e1) // the other replica's
		}, []Event{e1, e1}},
		{"a copy after the echo TTL", func(h *Hub, c *clock) {
			h.Local(e1)
			c.add(11 * time.Second)
			h.Remote(e1)
		}, []Event{e1, e1}},
		{"other runs' events", func(h *Hub, _ *clock) {
			h.Local(Event{RunID: otherRun, Second: 1})
			h.Remote(Event{RunID: otherRun, Final: true})
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := &clock{now: time.Unix(1e9, 0)}
			h := New(Options{Now: c.Now})
			a, b := h.Subscribe(run), h.Subscribe(run)
			tt.feed(h, c)
			for _, s := range []*Subscription{a, b} {
				got := drain(s)
				if len(got) != len(tt.want) {
					t.Fatalf("got %v, want %v", got, tt.want)
				}
				for i := range got {
					if got[i] != tt.want[i] {
						t.Errorf("event %d = %v, want %v", i, got[i], tt.want[i])
					}
				}
			}
		})
	}
}

func TestHubDropsSlowSubscriberWithoutBlocking(t *testing.T) {
	t.Parallel()
	run := uuid.New()
	h := New(Options{Buffer: 4})
	slow, fast := h.Subscribe(run), h.Subscribe(run)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 10 {
			h.Local(Event{RunID: run, Second: i})
			<-fast.C()
		}
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the hub blocked on a full subscriber")
	}
	select {
	case <-slow.Done():
	default:
		t.Fatal("the slow subscriber was not dropped")
	}
	if !slow.Dropped() || fast.Dropped() {
		t.Errorf("dropped: slow %v, fast %v", slow.Dropped(), fast.Dropped())
	}
	if got := len(drain(slow)); got != 4 {
		t.Errorf("slow subscriber kept %d events, want its buffer of 4", got)
	}
	if n := h.Subscribers(run); n != 1 {
		t.Errorf("%d subscribers left, want 1", n)
	}
	fast.Close()
	if n := h.Subscribers(run); n != 0 {
		t.Errorf("%d subscribers after Close", n)
	}
}

func TestHubCloseEndsSubscriptions(t *testing.T) {
	t.Parallel()
	h := New(Options{})
	s := h.Subscribe(uuid.New())
	h.Close()
	select {
	case <-s.Done():
	default:
		t.Fatal("Close left a subscription open")
	}
	if s.Dropped() {
		t.Error("a closed hub's subscription counts as dropped")
	}
	s.Close() // harmless twice
	late := h.Subscribe(uuid.New())
	select {
	case <-late.Done():
	default:
		t.Fatal("a subscription to a closed hub is open")
	}
}

func TestHubFedByNATS(t *testing.T) {
	t.Parallel()
	srv, err := natsembed.Start(natsembed.Options{DataDir: t.TempDir(), Host: "127.0.0.1", Port: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Shutdown)
	nc, err := nats.Connect(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	h := New(Options{})
	natsSub, err := h.SubscribeNATS(nc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = natsSub.Unsubscribe() })
	run := uuid.New()
	s := h.Subscribe(run)
	// Another replica's ingester publishes on its own connection.
	pub, err := nats.Connect(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pub.Close)
	for _, data := range []string{`not json`, `{"run_id":"` + run.String() + `","second":7}`} {
		if err := pub.Publish(wire.NotifySubject, []byte(data)); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case e := <-s.C():
		if e != (Event{RunID: run, Second: 7}) {
			t.Errorf("event %+v", e)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no event from NATS within 5s")
	}
}

// mustNATS starts an embedded NATS server and returns n connections to it.
func mustNATS(tb testing.TB, n int) []*nats.Conn {
	tb.Helper()
	srv, err := natsembed.Start(natsembed.Options{DataDir: tb.TempDir(), Host: "127.0.0.1", Port: -1})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(srv.Shutdown)
	conns := make([]*nats.Conn, n)
	for i := range conns {
		if conns[i], err = nats.Connect(srv.URL()); err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(conns[i].Close)
	}
	return conns
}

// mustHub returns a hub fed by NATS on nc that publishes there.
func mustHub(tb testing.TB, nc *nats.Conn) *Hub {
	tb.Helper()
	h := New(Options{Conn: nc})
	sub, err := h.SubscribeNATS(nc)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = sub.Unsubscribe() })
	return h
}

func TestHubPublishReachesEveryReplicaOnce(t *testing.T) {
	t.Parallel()
	conns := mustNATS(t, 2)
	here, there := mustHub(t, conns[0]), mustHub(t, conns[1])
	run, marker := uuid.New(), uuid.New()
	subHere, subThere, markerHere := here.Subscribe(run), there.Subscribe(run), here.Subscribe(marker)
	moved := runs.Run{ID: run, Status: runs.Dispatching, ShardCount: 3}
	here.RunMoved(moved)
	want := Event{RunID: run, Status: runs.Dispatching, Shards: 3}
	select {
	case e := <-subThere.C():
		if e != want {
			t.Fatalf("the other replica got %+v, want %+v", e, want)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the other replica heard nothing within 5s")
	}
	// NATS keeps one publisher's order: once a later broadcast is back
	// here, so is the copy of the status event, which must be skipped.
	if err := Broadcast(conns[0], Event{RunID: marker}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-markerHere.C():
	case <-time.After(5 * time.Second):
		t.Fatal("the marker did not come back within 5s")
	}
	if got := drain(subHere); len(got) != 1 || got[0] != want {
		t.Fatalf("this replica got %+v, want the status event once", got)
	}
}

func TestHubResyncsItsStreamsWhenNATSReconnects(t *testing.T) {
	t.Parallel()
	nc := mustNATS(t, 1)[0]
	logged := 0
	nc.SetReconnectHandler(func(*nats.Conn) { logged++ }) // the app's logging handler
	h := mustHub(t, nc)
	a, b := uuid.New(), uuid.New()
	subA, subB := h.Subscribe(a), h.Subscribe(b)
	h.Local(Event{RunID: a, Second: 4})
	nc.ReconnectHandler()(nc) // as nats.go calls it after a reconnect
	if logged != 1 {
		t.Errorf("the connection's own reconnect handler ran %d times, want 1", logged)
	}
	if got := drain(subA); len(got) != 2 || got[1] != (Event{RunID: a, Final: true}) {
		t.Errorf("run a got %+v, want its interval then a final to read the run again", got)
	}
	if got := drain(subB); len(got) != 1 || got[0] != (Event{RunID: b, Final: true}) {
		t.Errorf("run b got %+v, want one final", got)
	}
}
