// Package engine runs one load: it opens a Client per connection, sends requests
// when the pacing says so, records service time, response time from the intended
// send time (so coordinated omission is measured, not hidden) and lag in HDR
// histograms, and hands a Snapshot to a Sink every interval and at the end. It
// knows no protocol (see package request) and no output format (see the sinks).
package engine

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/barrage-dev/barrage/services/agent/internal/pacer"
	"github.com/barrage-dev/barrage/services/agent/internal/request"
)

// Pacing is how requests are timed.
type Pacing int

const (
	// Open sends on a shared schedule at the target rate; a request waits for a
	// free connection and the wait counts in its response time.
	Open Pacing = iota
	// Closed sends on every connection as fast as it can.
	Closed
	// Fortio gives each connection its own schedule at rate/connections, catching
	// up when late (unless NoCatchUp), like fortio load.
	Fortio
)

// Options describe one load. Zero Count and Duration mean "until ctx is done".
type Options struct {
	// Factory opens the protocol clients; required.
	Factory request.Factory
	// Connections is the number of connections (≥ 1).
	Connections int
	// Pacing selects the loop; QPS > 0 is required for Open without Ramp and for Fortio.
	Pacing Pacing
	// QPS is the target rate of the whole load.
	QPS float64
	// Ramp, for Open pacing, replaces QPS with a linear ramp.
	Ramp *RampOptions
	// Stages, for Open pacing, replaces QPS with a stepped rate from the
	// start; the last stage's rate holds after them.
	Stages []pacer.Stage
	// Duration ends sending after this long.
	Duration time.Duration
	// Count ends sending after this many requests.
	Count int64
	// Jitter moves each send time by up to ±10 % of the interval.
	Jitter bool
	// Uniform spreads the first sends of Fortio-paced connections over one interval.
	Uniform bool
	// NoCatchUp, for Fortio pacing, waits a full interval after a late send
	// instead of catching up.
	NoCatchUp bool
	// AbortOn stops the run at the first result with this code (0 = never).
	AbortOn int32
	// Interval is the snapshot period; default 1 s.
	Interval time.Duration
	// Sink receives snapshots; nil discards them (the final one is returned).
	Sink Sink
	// StartAt delays the start until this instant when it is in the future.
	StartAt time.Time
	// ServerLatency records the latency the target reports
	// (request.Result.ServerTime) in the snapshots' Server histogram; without
	// it Server is nil.
	ServerLatency bool
	// Mix, when set, makes every request one entry of a request mix, in
	// proportion to these weights; the Factory's clients must implement
	// request.EntryClient, and each entry's results are kept in
	// Snapshot.Entries as well as in the total.
	Mix []float64
	// Burst, for Open pacing, sends the schedule in bursts of this many
	// requests due at the same instant; the average rate stays QPS (or the
	// ramp's). 0 or 1 means no bursts.
	Burst int
	// Prefetch reopens a connection right after a response that closed it
	// (server close, HTTP/1.0, a per-connection request limit), outside the
	// measured times, instead of in the next request. Connections are
	// opened before the start in any case.
	Prefetch bool
	// Timeline is the number of requests the final snapshot's timeline
	// samples (Snapshot.Timeline): 0 is timeline.DefaultSize, < 0 keeps none.
	// Each recorder holds a reservoir of that size.
	Timeline int
	// WrittenURLs, when > 0, records the URL of every successful write,
	// at most this many: a request that succeeded (Result.OK) on a client
	// that implements request.WriteReporter and reports a write. Interval
	// snapshots carry them (Snapshot.WrittenURLs); the writes past the
	// bound are counted in the final snapshot's URLsDropped.
	WrittenURLs int
	// URLPrefix goes before the request target of each written URL: the
	// target's scheme and host ("http://shop:8080").
	URLPrefix string
	// MaxURLLength drops written URLs longer than this many bytes
	// (counted in URLsDropped); 0 means no limit.
	MaxURLLength int
	// URLBytesPerSnapshot bounds the bytes of written URLs one snapshot
	// carries, so it stays within a message size; 0 means no bound. The
	// URLs over it wait for the next snapshot, and those still waiting
	// when the run ends are dropped.
	URLBytesPerSnapshot int
}

// RampOptions is a linear rate ramp from From to To requests/s over Over.
type RampOptions struct {
	From, To float64
	Over     time.Duration
}

func (o *Options) normalize() error {
	if o.Factory == nil {
		return errors.New("engine: Factory is required")
	}
	if o.Connections < 1 {
		return fmt.Errorf("engine: %d connections: need at least 1", o.Connections)
	}
	if o.Interval <= 0 {
		o.Interval = time.Second
	}
	if o.Pacing == Fortio && o.QPS <= 0 {
		o.Pacing = Closed // fortio load -qps 0: every connection as fast as it can
	}
	if o.Pacing == Open && o.Ramp == nil && len(o.Stages) == 0 && o.QPS <= 0 {
		return errors.New("engine: open pacing needs a rate > 0, a ramp or stages")
	}
	if len(o.Mix) > 256 {
		return fmt.Errorf("engine: %d mix entries: at most 256", len(o.Mix))
	}
	if o.Sink == nil {
		o.Sink = SinkFunc(func(context.Context, *Snapshot) error { return nil })
	}
	return nil
}

// recorderCount bounds the number of recorders (and so of histograms in memory)
// whatever the connection count.
func recorderCount(conns int) int {
	return min(conns, max(2, 2*runtime.GOMAXPROCS(0)))
}

// run is the state of one Run call.
type run struct {
	opts      Options
	start     time.Time
	schedule  pacer.Schedule // Open pacing
	next      atomic.Int64   // next request index (Open) or requests started (Closed)
	recorders []*recorder
	aborted   atomic.Bool
	dropped   atomic.Int64 // scheduled requests never sent (open and fortio pacing)
	cancel    context.CancelFunc
	mix       *mix    // nil without a request mix
	urls      *urlLog // nil unless written URLs are recorded
}

// Run performs the load and returns the final snapshot. It returns early, with
// what was done so far, when ctx is done or on an AbortOn code. Publishing errors
// from the sink end the run and are returned.
func Run(ctx context.Context, opts Options) (*Snapshot, error) {
	if err := opts.normalize(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	r := &run{opts: opts, cancel: cancel, urls: newURLLog(&opts)}
	if len(opts.Mix) > 0 {
		r.mix = newMix(opts.Mix)
	}
	clients, err := r.openClients(ctx)
	if err != nil {
		return nil, err
	}
	defer closeAll(clients)
	connectAll(ctx, clients)
	if wait := time.Until(opts.StartAt); wait > 0 {
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
		}
	}
	r.start = time.Now()
	r.recorders = make([]*recorder, recorderCount(opts.Connections))
	for i := range r.recorders {
		r.recorders[i] = newRecorder(opts.ServerLatency, len(opts.Mix), r.start, newTimeline(timelineSize(&opts), i))
		r.recorders[i].written = r.urls
	}
	limits := pacer.Limits{Count: opts.Count, End: opts.Duration}
	if opts.Pacing == Open {
		r.schedule = pacer.NewBurst(openSchedule(opts, limits), opts.Burst)
	}
	var wg sync.WaitGroup
	for i, c := range clients {
		wg.Go(func() { r.work(ctx, i, c) })
	}
	stopClose := context.AfterFunc(ctx, func() { closeAll(clients) })
	defer stopClose()
	return r.collect(ctx, &wg)
}

// openSchedule is the send schedule of an open-loop load: a ramp, steps or
// a constant rate.
func openSchedule(o Options, limits pacer.Limits) pacer.Schedule {
	switch {
	case o.Ramp != nil:
		return pacer.NewRamp(o.Ramp.From, o.Ramp.To, o.Ramp.Over, limits)
	case len(o.Stages) > 0:
		return pacer.NewSteps(o.Stages, limits)
	default:
		return pacer.NewConstant(o.QPS, 0, o.Jitter, limits)
	}
}

// maxConnecting bounds the connections set up at once before a run.
const maxConnecting = 64

// connectAll sets up every client that can connect ahead of its first request,
// so handshakes are not measured as request latency (Fortio makes a warm-up
// call per connection for the same reason, Nighthawk with
// --prefetch-connections). A failure is left for the first request to report.
func connectAll(ctx context.Context, clients []request.Client) {
	sem := make(chan struct{}, maxConnecting)
	var wg sync.WaitGroup
	for _, c := range clients {
		conn, ok := c.(request.Connector)
		if !ok {
			continue
		}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			_ = conn.Connect(ctx)
		})
	}
	wg.Wait()
}

func (r *run) openClients(ctx context.Context) ([]request.Client, error) {
	clients := make([]request.Client, r.opts.Connections)
	for i := range clients {
		c, err := r.opts.Factory.NewClient(ctx, i)
		if err != nil {
			closeAll(clients[:i])
			return nil, fmt.Errorf("open connection %d: %w", i, err)
		}
		if _, ok := c.(request.EntryClient); r.mix != nil && !ok {
			closeAll(clients[:i+1])
			return nil, errors.New("engine: a request mix needs clients that send entries")
		}
		clients[i] = c
	}
	return clients, nil
}

func closeAll(clients []request.Client) {
	for _, c := range clients {
		if c != nil {
			_ = c.Close()
		}
	}
}
