// Package live is the API's home of live run events: the Event type, the
// Hub that fans events out to the streams of this replica, and the Stream
// engine that serves one client's server-sent events (replay, catch-up,
// bursts, the run's end), with the render cache and the sent log its
// streams share.
//
// Events are published, after their change committed, by the layers that
// make them: the ingester (an interval merged, a final stored, a run
// ended) and every writer of a run's status (the dispatcher, the runs
// service's stop and the aborter), through Hub.Publish or Hub.RunMoved.
// Each event reaches this replica's hub in-process and every replica's hub
// over core NATS (wire.NotifySubject), so a client sees the events of
// whatever replica made them; an event that arrives both ways is delivered
// once. Streams therefore never poll for their run's status: every writer
// of a status publishes it, and when this replica's NATS connection comes
// back after events may have been lost, the hub tells each stream once to
// read its run (Resync).
//
// The hub never blocks its feeders: each subscriber has a bounded buffer,
// and a subscriber whose buffer is full is dropped (its Done channel
// closes); its client reconnects and resumes from the database.
//
// It is not the place for reading measurements (streams read them through
// a Source when told something changed), for access checks or for the
// API's wire types (package httpapi adapts a Stream to its route and
// renders the JSON through an Encoder).
package live

import (
	"encoding/json"
	"log/slog"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go"

	"github.com/barrage-dev/barrage/pkg/wire"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// Options configure a Hub.
type Options struct {
	// Buffer is the events a subscriber may have pending before it is
	// dropped; default 2048.
	Buffer int
	// EchoTTL is how long an event delivered in-process waits for its copy
	// from NATS, which is then skipped; default 10 s.
	EchoTTL time.Duration
	// Conn, when set, carries what Publish is given to the other
	// replicas' hubs (Broadcast); nil keeps events in this process.
	Conn *nats.Conn
	// Log gets one line per dropped subscriber; nil discards.
	Log *slog.Logger
	// Now is the clock of the echo bookkeeping; time.Now when nil.
	Now func() time.Time
}

// Normalize fills the zero fields of o with the defaults.
func (o *Options) Normalize() {
	if o.Buffer <= 0 {
		// A second boundary brings one event per shard at once; the
		// stream reads a burst as one, so this only has to hold one.
		o.Buffer = 2048
	}
	if o.EchoTTL <= 0 {
		o.EchoTTL = 10 * time.Second
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
}

// maxPendingEchoes bounds the in-process events remembered while their
// NATS copy is awaited; past it the oldest are forgotten (their copy, if
// it comes, is delivered: a duplicate, which streams tolerate).
const maxPendingEchoes = 4096

// Hub fans run events out to subscribers. It is safe for concurrent use.
type Hub struct {
	opts Options

	mu     sync.Mutex
	subs   map[uuid.UUID]map[*Subscription]struct{}
	echoes map[Event][]time.Time // in-process events whose NATS copy is due
	closed bool
}

// New returns a Hub.
func New(opts Options) *Hub {
	opts.Normalize()
	return &Hub{opts: opts, subs: map[uuid.UUID]map[*Subscription]struct{}{}, echoes: map[Event][]time.Time{}}
}

// Subscription receives the events of one run.
type Subscription struct {
	hub   *Hub
	run   uuid.UUID
	c     chan Event
	done  chan struct{}
	once  sync.Once
	slow  bool
	owned bool // guarded by hub.mu: still in hub.subs
}

// C delivers the run's events.
func (s *Subscription) C() <-chan Event { return s.c }

// Done is closed when the subscription ends: Close, the hub closed, or the
// subscriber fell behind (Dropped).
func (s *Subscription) Done() <-chan struct{} { return s.done }

// Dropped reports whether the hub ended the subscription because its
// buffer was full. Valid once Done is closed.
func (s *Subscription) Dropped() bool {
	s.hub.mu.Lock()
	defer s.hub.mu.Unlock()
	return s.slow
}

// Close ends the subscription.
func (s *Subscription) Close() {
	s.hub.mu.Lock()
	defer s.hub.mu.Unlock()
	s.hub.removeLocked(s)
}

// Subscribe returns a subscription to the events of run. On a closed hub
// it is already done.
func (h *Hub) Subscribe(run uuid.UUID) *Subscription {
	s := &Subscription{hub: h, run: run, c: make(chan Event, h.opts.Buffer), done: make(chan struct{})}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		close(s.done)
		return s
	}
	set := h.subs[run]
	if set == nil {
		set = map[*Subscription]struct{}{}
		h.subs[run] = set
	}
	set[s] = struct{}{}
	s.owned = true
	return s
}

// removeLocked takes s out of the hub and closes its Done channel.
func (h *Hub) removeLocked(s *Subscription) {
	if !s.owned {
		return
	}
	s.owned = false
	if set := h.subs[s.run]; set != nil {
		delete(set, s)
		if len(set) == 0 {
			delete(h.subs, s.run)
		}
	}
	s.once.Do(func() { close(s.done) })
}

// Publish delivers e here and broadcasts it to every replica on
// Options.Conn. It never blocks.
func (h *Hub) Publish(e Event) {
	if h.opts.Conn == nil {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.deliverLocked(e)
		return
	}
	h.Local(e)
	if err := Broadcast(h.opts.Conn, e); err != nil {
		h.opts.Log.Debug("live: broadcast event", slog.String("run", e.RunID.String()), slog.Any("error", err))
	}
}

// RunMoved publishes the status r just moved to: writers of a run's
// status call it after the change committed.
func (h *Hub) RunMoved(r runs.Run) { h.Publish(StatusEvent(r)) }

// Local delivers an event of this replica (the ingester's OnInterval hook,
// or Publish) and remembers it, so that its copy from NATS is skipped. It
// never blocks.
func (h *Hub) Local(e Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	now := h.opts.Now()
	h.pruneLocked(now)
	if len(h.echoes) < maxPendingEchoes {
		h.echoes[e] = append(h.echoes[e], now)
	}
	h.deliverLocked(e)
}

// Remote delivers an event received from NATS, unless it is the copy of
// an event Local delivered. It never blocks.
func (h *Hub) Remote(e Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.pruneLocked(h.opts.Now())
	if pending := h.echoes[e]; len(pending) > 0 {
		if len(pending) == 1 {
			delete(h.echoes, e)
		} else {
			h.echoes[e] = pending[1:]
		}
		return
	}
	h.deliverLocked(e)
}

// pruneLocked forgets in-process events whose NATS copy is overdue.
func (h *Hub) pruneLocked(now time.Time) {
	cutoff := now.Add(-h.opts.EchoTTL)
	for e, times := range h.echoes {
		i := 0
		for i < len(times) && times[i].Before(cutoff) {
			i++
		}
		switch {
		case i == len(times):
			delete(h.echoes, e)
		case i > 0:
			h.echoes[e] = times[i:]
		}
	}
}

// deliverLocked hands e to the run's subscribers, dropping those whose
// buffer is full.
func (h *Hub) deliverLocked(e Event) {
	for s := range h.subs[e.RunID] {
		select {
		case s.c <- e:
		default:
			s.slow = true
			h.removeLocked(s)
			h.opts.Log.Info("live: slow subscriber dropped", slog.String("run", e.RunID.String()))
		}
	}
}

// Subscribers returns the number of subscriptions to run.
func (h *Hub) Subscribers(run uuid.UUID) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs[run])
}

// Close ends every subscription, and any made later. Call it when the
// server shuts down, so that live streams end and the server can stop.
func (h *Hub) Close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	for _, set := range h.subs {
		for s := range set {
			h.removeLocked(s)
		}
	}
}

// Resync tells every subscriber that events may have been lost: each gets
// a Final event of its run, on which a stream reads its run once. Core
// NATS delivers at most once, so the events broadcast while this
// replica's connection was down are gone; SubscribeNATS calls Resync when
// the connection comes back, instead of every stream polling its run for
// what it might have missed. It never blocks.
func (h *Hub) Resync() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for run := range h.subs {
		h.deliverLocked(Event{RunID: run, Final: true})
	}
}

// SubscribeNATS feeds the hub from core NATS: every replica broadcasts
// its events on wire.NotifySubject. It also calls Resync each time nc
// reconnects, after nc's own reconnect handler. It returns once the server
// has the subscription, so no broadcast sent after it returns is missed.
// Unsubscribe the returned subscription to stop.
func (h *Hub) SubscribeNATS(nc *nats.Conn) (*nats.Subscription, error) {
	prev := nc.ReconnectHandler()
	nc.SetReconnectHandler(func(c *nats.Conn) {
		if prev != nil {
			prev(c)
		}
		h.Resync()
	})
	sub, err := nc.Subscribe(wire.NotifySubject, func(m *nats.Msg) {
		var e Event
		if err := json.Unmarshal(m.Data, &e); err != nil || e.RunID == uuid.Nil {
			h.opts.Log.Debug("live: unreadable notification", slog.Any("error", err))
			return
		}
		h.Remote(e)
	})
	if err != nil {
		return nil, err //nolint:wrapcheck // the caller says what failed
	}
	if err := nc.Flush(); err != nil {
		_ = sub.Unsubscribe()
		return nil, err //nolint:wrapcheck // the caller says what failed
	}
	return sub, nil
}
