// Package scenario runs multi-step scenarios (pkg/scenario) at an open-loop
// rate of iteration starts: the iterations' intended starts come from a
// constant pacer schedule, at most Concurrency iterations are in flight, and
// every step's response time counts from its intended start (the
// iteration's scheduled start for the first step; the previous step's end
// plus think time after that), so a stalled step or a full set of
// iterations shows in the latencies instead of slowing the schedule
// (no coordinated omission). Without a rate it runs a closed loop:
// Concurrency virtual users each start their next iteration when their
// last one ended. It records per-step HDR histograms and counts.
//
// It is not the engine of single-request runs (internal/engine); the
// worker (services/agent/internal/worker/scenario.go) runs it for one shard
// of a distributed run, draining its figures each second (live.go).
package scenario

import (
	"context"
	"crypto/tls"
	"errors"
	"maps"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/barrage-dev/barrage/pkg/delay"
	"github.com/barrage-dev/barrage/pkg/reqtemplate"
	spec "github.com/barrage-dev/barrage/pkg/scenario"
	"github.com/barrage-dev/barrage/services/agent/internal/pacer"
)

// MaxBody is the most bytes of a response body read for extractions and
// checks; the rest is discarded.
const MaxBody = 4 << 20

// Options configure Run.
type Options struct {
	// Plan is the compiled scenario.
	Plan *spec.Plan
	// IterationsPerSecond is the rate of iteration starts; 0 runs a closed
	// loop of Concurrency virtual users, each starting its next iteration
	// as its last one ends.
	IterationsPerSecond float64
	// Duration is how long iterations start; those in flight then finish.
	Duration time.Duration
	// MaxIterations bounds the iterations started; 0 = Duration only. One
	// of Duration and MaxIterations must be set.
	MaxIterations int64
	// Concurrency is the most iterations in flight (default 8): in a closed
	// loop, the virtual users.
	Concurrency int
	// IterationStart and IterationStride number the iterations in
	// {{.iteration}}: iteration n is IterationStart + n × IterationStride
	// (default 0 and 1), so the shards of a run (start = shard, stride =
	// shards) never share a number.
	IterationStart, IterationStride int64
	// Timeout bounds each request (default 3s).
	Timeout time.Duration
	// DialContext dials connections; nil = net.Dialer.
	DialContext func(ctx context.Context, network, addr string) (net.Conn, error)
	// TLS is the base TLS configuration of the https:// steps (roots,
	// client certificate, SNI, minimum version, session cache); each
	// protocol sets its ALPN. Nil verifies with the system's roots.
	TLS *tls.Config
	// Percentiles are reported (default 50, 90, 99).
	Percentiles []float64
	// Seed seeds think times (iteration n uses the stream Seed, n).
	Seed uint64
	// Live, when set, lets a caller drain the figures as the run goes
	// (live.go).
	Live *Live
}

// Normalize applies the defaults and checks the options.
func (o *Options) Normalize() error {
	if o.Plan == nil {
		return errors.New("scenario: no plan")
	}
	if o.IterationsPerSecond < 0 {
		return errors.New("iterations per second must not be negative")
	}
	if o.Duration <= 0 && o.MaxIterations <= 0 {
		return errors.New("give a duration or a number of iterations")
	}
	if o.Concurrency <= 0 {
		o.Concurrency = 8
	}
	if o.IterationStride <= 0 {
		o.IterationStride = 1
	}
	if o.Timeout <= 0 {
		o.Timeout = 3 * time.Second
	}
	if len(o.Percentiles) == 0 {
		o.Percentiles = []float64{50, 90, 99}
	}
	return nil
}

// runner is one Run's state.
type runner struct {
	opts    *Options
	dial    func(ctx context.Context, network, addr string) (net.Conn, error)
	methods grpcMethods // the gRPC steps' methods
	steps   []*stepStats
	iter    iterStats
	seq     *reqtemplate.Seq // {seq}: IterationStart + 1, in steps of IterationStride
}

// job is an iteration handed to a worker.
type job struct {
	n        int64
	intended time.Time
}

// Run runs the scenario until Duration or MaxIterations ends the schedule
// (or ctx is done) and every started iteration has finished. Concurrency
// workers run the iterations, each with its own connections; the schedule
// waits for a free worker, as it waited for a free slot when every
// iteration had a goroutine of its own.
func Run(ctx context.Context, opts Options) (*Result, error) {
	if err := opts.Normalize(); err != nil {
		return nil, err
	}
	r := &runner{opts: &opts, seq: reqtemplate.NewSeq(uint64(opts.IterationStart)+1, uint64(opts.IterationStride)), dial: opts.DialContext}
	if r.dial == nil {
		r.dial = (&net.Dialer{}).DialContext
	}
	var err error
	if r.methods, err = resolveGRPC(ctx, &opts, r.dial); err != nil {
		return nil, err
	}
	for range opts.Plan.Steps {
		r.steps = append(r.steps, newStepStats())
	}
	r.iter.init()
	if opts.Live != nil {
		opts.Live.attach(r)
	}
	start := time.Now()
	var wg sync.WaitGroup
	if opts.IterationsPerSecond == 0 {
		r.closedLoop(ctx, start, &wg)
	} else {
		r.openLoop(ctx, start, &wg)
	}
	wg.Wait()
	if opts.Live != nil {
		opts.Live.detach()
	}
	return r.result(time.Since(start))
}

// openLoop hands the iterations to Concurrency workers at their scheduled
// starts, waiting for a free worker when all are busy (the wait counts in
// the latencies), and returns when the schedule ended.
func (r *runner) openLoop(ctx context.Context, start time.Time, wg *sync.WaitGroup) {
	opts := r.opts
	sched := pacer.NewConstant(opts.IterationsPerSecond, 0, false, pacer.Limits{Count: opts.MaxIterations, End: opts.Duration})
	jobs := make(chan job)
	for range opts.Concurrency {
		w := r.newWorker()
		wg.Go(func() {
			defer w.close()
			for j := range jobs {
				w.iteration(ctx, j.n, j.intended)
			}
		})
	}
	sl := delay.NewTimerSleeper() // as the engine paces: never holds a P; lateness is measured
	for i := int64(0); ; i++ {
		at, ok := sched.At(i)
		if !ok {
			break
		}
		intended := start.Add(at)
		if !sl.Until(ctx, intended) || ctx.Err() != nil {
			break
		}
		select {
		case jobs <- job{n: i, intended: intended}:
			r.iter.started.Add(1)
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
	}
	close(jobs)
}

// closedLoop starts Concurrency virtual users, each running iterations
// back to back, an iteration's intended start being the instant it starts,
// until Duration from start or MaxIterations started. The users take the
// iteration numbers in the order they start them.
func (r *runner) closedLoop(ctx context.Context, start time.Time, wg *sync.WaitGroup) {
	opts := r.opts
	var end time.Time
	if opts.Duration > 0 {
		end = start.Add(opts.Duration)
	}
	var next atomic.Int64
	for range opts.Concurrency {
		w := r.newWorker()
		wg.Go(func() {
			defer w.close()
			for ctx.Err() == nil {
				now := time.Now()
				if !end.IsZero() && !now.Before(end) {
					return
				}
				n := next.Add(1) - 1
				if opts.MaxIterations > 0 && n >= opts.MaxIterations {
					return
				}
				r.iter.started.Add(1)
				w.iteration(ctx, n, now)
			}
		})
	}
}

// worker runs iterations one at a time, reusing its client, buffers,
// variables map and random source between them.
type worker struct {
	r      *runner
	client *h1client
	h2     *h2client   // the h2 steps'; nil until one runs
	grpc   *grpcClient // the gRPC steps'; nil until one runs
	vars   map[string]string
	req    spec.Rendered
	gen    spec.Gen       // the placeholders' draws: its Rand is its own, not the think times'
	jar    *cookiejar.Jar // the iteration's; nil until a response sets a cookie
	pcg    *rand.PCG
	rng    *rand.Rand
	sl     *delay.Sleeper

	// The once steps' outcome, which the worker's later iterations start
	// from: set when an iteration got past them.
	onceDone    bool
	onceVars    map[string]string
	onceCookies []urlCookies
}

// urlCookies are cookies a response to u set.
type urlCookies struct {
	u       *url.URL
	cookies []*http.Cookie
}

func (r *runner) newWorker() *worker {
	pcg := rand.NewPCG(0, 0)
	return &worker{
		r: r, client: newH1Client(r.dial, r.opts.TLS, r.opts.Timeout), vars: make(map[string]string, len(r.opts.Plan.Vars)+4),
		pcg: pcg, rng: rand.New(pcg), sl: delay.NewTimerSleeper(), //nolint:gosec // think times, not secrets
		gen: spec.Gen{Rand: reqtemplate.NewRand()},
	}
}

// iteration runs the steps of iteration n, scheduled at intended. Its
// variables and cookie jar start afresh, from the scenario's variables or,
// once the worker's once steps have run, from their variables and cookies
// (and without them), then the row it reads of the data file; its think
// times (and a random row) come from the stream (Seed, n).
func (w *worker) iteration(ctx context.Context, n int64, intended time.Time) {
	plan := w.r.opts.Plan
	once := plan.OnceSteps()
	first := 0
	clear(w.vars)
	w.jar = nil
	if w.onceDone {
		first = once
		maps.Copy(w.vars, w.onceVars)
		for _, c := range w.onceCookies {
			w.setCookies(c.u, c.cookies)
		}
	} else {
		maps.Copy(w.vars, plan.Vars)
		w.onceCookies = w.onceCookies[:0]
	}
	global := w.r.opts.IterationStart + n*w.r.opts.IterationStride
	w.vars[spec.IterationVar] = strconv.FormatInt(global, 10)
	w.pcg.Seed(w.r.opts.Seed, uint64(n))
	if t := plan.Data; t != nil { // a row of the data file, after the once steps' variables
		for i, v := range t.Row(n, global, w.rng) {
			w.vars[t.Columns[i]] = v
		}
	}
	due, end := intended, intended
	failed := false
	for i := first; i < len(plan.Steps); i++ {
		st := plan.Steps[i]
		if i == once && once > 0 && !w.onceDone {
			w.onceDone, w.onceVars = true, maps.Clone(w.vars)
		}
		if !w.sl.Until(ctx, due) {
			w.r.skip(i)
			failed = true
			break
		}
		var ok bool
		end, ok = w.step(ctx, st, due)
		if !ok {
			failed = true
			if !st.ContinueOnFailure {
				w.r.skip(i + 1)
				break
			}
		}
		due = end.Add(st.Think(w.rng))
	}
	w.r.iter.record(end.Sub(intended), failed)
}

// skip counts steps from..end as skipped.
func (r *runner) skip(from int) {
	for _, s := range r.steps[from:] {
		s.skipped.Add(1)
	}
}

// step sends one step's request, due at due, evaluates the response and
// records it; it returns when it ended and whether it passed.
func (w *worker) step(ctx context.Context, st *spec.PlanStep, due time.Time) (time.Time, bool) {
	stats := w.r.steps[st.Index]
	w.gen.Seq = 0
	if st.UsesSeq() {
		w.gen.Seq = w.r.seq.Next()
	}
	if err := st.RenderInto(&w.req, w.vars, &w.gen); err != nil {
		end := time.Now()
		stats.recordError("render", end.Sub(due), 0, 0)
		return end, false
	}
	sent := time.Now()
	resp, cookies, err := w.send(ctx, st)
	end := time.Now()
	if err != nil {
		kind := errorKind(err)
		if ctx.Err() != nil {
			kind = "transport" // cancelled, not timed out
		}
		stats.recordError(kind, end.Sub(due), end.Sub(sent), sent.Sub(due))
		return end, false
	}
	resp.Latency = end.Sub(due)
	out := st.Evaluate(resp, w.vars)
	stats.record(resp.Status, resp.Latency, end.Sub(sent), sent.Sub(due), &out)
	if len(cookies) > 0 {
		u := w.client.urls[st.Index].u
		w.setCookies(u, cookies)
		if st.Once {
			w.onceCookies = append(w.onceCookies, urlCookies{u: u, cookies: cookies})
		}
	}
	return end, !out.Failed()
}

// setCookies stores cookies from a response to u in the iteration's jar.
func (w *worker) setCookies(u *url.URL, cookies []*http.Cookie) {
	if w.jar == nil {
		w.jar, _ = cookiejar.New(nil) // cannot fail without options
	}
	w.jar.SetCookies(u, cookies)
}

// send sends the rendered request of st, over HTTP/2 when its protocol
// is h2.
func (w *worker) send(ctx context.Context, st *spec.PlanStep) (*spec.Response, []*http.Cookie, error) {
	if st.GRPC != nil {
		if w.grpc == nil {
			w.grpc = newGRPCClient(w.r.dial, w.r.opts.TLS, w.r.opts.Timeout, w.r.methods)
		}
		resp, err := w.grpc.do(ctx, st, &w.req)
		return resp, nil, err
	}
	p, err := w.client.target(st.Index, w.req.URL)
	if err != nil {
		return nil, nil, err
	}
	if st.H2 {
		if w.h2 == nil {
			w.h2 = newH2Client(w.client.dial, w.r.opts.TLS, w.r.opts.Timeout)
		}
		return w.h2.do(ctx, p, &w.req, w.jar)
	}
	return w.client.do(ctx, p, &w.req, w.jar, st.HeaderExtractions())
}

// close closes the worker's connections.
func (w *worker) close() {
	w.client.close()
	if w.h2 != nil {
		w.h2.close()
	}
	if w.grpc != nil {
		w.grpc.close()
	}
}

func errorKind(err error) string {
	if errors.Is(err, errGRPCRequest) {
		return "render"
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return "timeout"
	}
	return "transport"
}
