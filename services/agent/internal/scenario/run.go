// Package scenario runs multi-step scenarios (pkg/scenario) at an open-loop
// rate of iteration starts: the iterations' intended starts come from a
// constant pacer schedule, at most Concurrency iterations are in flight, and
// every step's response time counts from its intended start (the
// iteration's scheduled start for the first step; the previous step's end
// plus think time after that), so a stalled step or a full set of
// iterations shows in the latencies instead of slowing the schedule
// (no coordinated omission). It records per-step HDR histograms and counts.
//
// It is not the engine of single-request runs (internal/engine), and it
// has no sinks, phases or distribution across agents yet.
package scenario

import (
	"context"
	"errors"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/barrage-dev/barrage/pkg/delay"
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
	// IterationsPerSecond is the rate of iteration starts (> 0).
	IterationsPerSecond float64
	// Duration is how long iterations start; those in flight then finish.
	Duration time.Duration
	// MaxIterations bounds the iterations started; 0 = Duration only. One
	// of Duration and MaxIterations must be set.
	MaxIterations int64
	// Concurrency is the most iterations in flight (default 8).
	Concurrency int
	// Timeout bounds each request (default 3s).
	Timeout time.Duration
	// DialContext dials connections; nil = net.Dialer.
	DialContext func(ctx context.Context, network, addr string) (net.Conn, error)
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
	if o.IterationsPerSecond <= 0 {
		return errors.New("iterations per second must be positive")
	}
	if o.Duration <= 0 && o.MaxIterations <= 0 {
		return errors.New("give a duration or a number of iterations")
	}
	if o.Concurrency <= 0 {
		o.Concurrency = 8
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
	opts  *Options
	tr    *http.Transport
	steps []*stepStats
	iter  iterStats
}

// Run runs the scenario until Duration or MaxIterations ends the schedule
// (or ctx is done) and every started iteration has finished.
func Run(ctx context.Context, opts Options) (*Result, error) {
	if err := opts.Normalize(); err != nil {
		return nil, err
	}
	r := &runner{opts: &opts, tr: newTransport(&opts)}
	defer r.tr.CloseIdleConnections()
	for range opts.Plan.Steps {
		r.steps = append(r.steps, newStepStats())
	}
	r.iter.init()
	if opts.Live != nil {
		opts.Live.attach(r)
	}
	sched := pacer.NewConstant(opts.IterationsPerSecond, 0, false, pacer.Limits{Count: opts.MaxIterations, End: opts.Duration})
	start := time.Now()
	slots := make(chan struct{}, opts.Concurrency)
	var wg sync.WaitGroup
	sl := delay.NewTimerSleeper() // as the engine paces: never holds a P; lateness is measured
	for i := int64(0); ; i++ {
		at, ok := sched.At(i)
		if !ok {
			break
		}
		intended := start.Add(at)
		if !sl.Until(ctx, intended) {
			break
		}
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		r.iter.started.Add(1)
		wg.Go(func() {
			defer func() { <-slots }()
			r.iteration(ctx, i, intended)
		})
	}
	wg.Wait()
	if opts.Live != nil {
		opts.Live.detach()
	}
	return r.result(time.Since(start))
}

// newTransport is net/http's keep-alive transport sized for Concurrency.
// The agent's own HTTP/1.1 client (internal/httpclient) sends one
// pre-rendered request template per connection to one host; scenario steps
// change method, host, headers and body on every request and need cookies,
// which net/http gives.
func newTransport(o *Options) *http.Transport {
	dial := o.DialContext
	if dial == nil {
		dial = (&net.Dialer{Timeout: o.Timeout}).DialContext
	}
	return &http.Transport{
		DialContext:         dial,
		MaxIdleConns:        o.Concurrency * 2,
		MaxIdleConnsPerHost: o.Concurrency,
		IdleConnTimeout:     30 * time.Second,
		DisableCompression:  true,
	}
}

// iteration runs the steps of iteration n, scheduled at intended.
func (r *runner) iteration(ctx context.Context, n int64, intended time.Time) {
	plan := r.opts.Plan
	vars := make(map[string]string, len(plan.Vars)+4)
	for k, v := range plan.Vars {
		vars[k] = v
	}
	vars[spec.IterationVar] = strconv.FormatInt(n, 10)
	client := newClient(r.tr, r.opts.Timeout)
	rng := rand.New(rand.NewPCG(r.opts.Seed, uint64(n))) //nolint:gosec // think times, not secrets
	sl := delay.NewTimerSleeper()
	due, end := intended, intended
	failed := false
	for i, st := range plan.Steps {
		if !sl.Until(ctx, due) {
			r.skip(i)
			failed = true
			break
		}
		var ok bool
		end, ok = r.step(ctx, client, st, vars, due)
		if !ok {
			failed = true
			if !st.ContinueOnFailure {
				r.skip(i + 1)
				break
			}
		}
		due = end.Add(st.Think(rng))
	}
	r.iter.record(end.Sub(intended), failed)
}

// skip counts steps from..end as skipped.
func (r *runner) skip(from int) {
	for _, s := range r.steps[from:] {
		s.skipped.Add(1)
	}
}

// step sends one step's request, due at due, evaluates the response and
// records it; it returns when it ended and whether it passed.
func (r *runner) step(ctx context.Context, client *http.Client, st *spec.PlanStep, vars map[string]string, due time.Time) (time.Time, bool) {
	stats := r.steps[st.Index]
	req, err := st.Render(vars)
	if err != nil {
		end := time.Now()
		stats.recordError("render", end.Sub(due), 0, 0)
		return end, false
	}
	sent := time.Now()
	resp, err := send(ctx, client, &req)
	end := time.Now()
	if err != nil {
		stats.recordError(errorKind(err), end.Sub(due), end.Sub(sent), sent.Sub(due))
		return end, false
	}
	resp.Latency = end.Sub(due)
	out := st.Evaluate(resp, vars)
	stats.record(resp.Status, resp.Latency, end.Sub(sent), sent.Sub(due), &out)
	return end, !out.Failed()
}

func errorKind(err error) string {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return "timeout"
	}
	return "transport"
}
