package scenario

import (
	"sync"

	"github.com/barrage-dev/barrage/pkg/hist"
)

// Live takes a running scenario's figures interval by interval: the
// agent's worker drains it once a second into a snapshot
// (services/agent/internal/worker/scenario.go). Set Options.Live before
// Run; what a Drain takes is gone from the runner. When the last
// iteration has ended Run drains what is left into the Live, for the next
// Drain, so the drains add up to the run and Run's Result is then empty.
type Live struct {
	mu   sync.Mutex
	r    *runner
	rest *Interval // the last drain, taken when the run ended
}

// Interval is what a Drain took: the figures since the previous one.
type Interval struct {
	// Started counts iterations started; Completed and Failed those that
	// ended (so one started in an earlier interval may end in this one).
	Started, Completed, Failed int64
	// Iteration is the duration of the iterations that ended.
	Iteration *hist.Histogram
	// Steps are the steps' figures, in the plan's order.
	Steps []StepInterval
}

// StepInterval is one step's part of an Interval.
type StepInterval struct {
	Count, Errors, Skipped   int64
	Codes                    map[int]int64
	FailedChecks, FailedVars map[string]int64
	Transport                map[string]int64
	Response, Service, Lag   *hist.Histogram
}

// attach is called by Run once its runner is ready.
func (l *Live) attach(r *runner) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.r = r
}

// detach is called by Run when every iteration has ended: it keeps what
// is left for the next Drain.
func (l *Live) detach() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.rest = l.drain()
	l.r = nil
}

// Drain returns the figures recorded since the previous Drain and clears
// them; nil before Run has started and once the run's last figures were
// taken.
func (l *Live) Drain() *Interval {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.r == nil {
		out := l.rest
		l.rest = nil
		return out
	}
	return l.drain()
}

func (l *Live) drain() *Interval {
	r := l.r
	out := &Interval{Started: r.iter.started.Swap(0)}
	r.iter.mu.Lock()
	out.Completed, out.Failed, out.Iteration = r.iter.completed, r.iter.failed, r.iter.duration
	r.iter.completed, r.iter.failed, r.iter.duration = 0, 0, hist.New()
	r.iter.mu.Unlock()
	out.Steps = make([]StepInterval, len(r.steps))
	for i, s := range r.steps {
		out.Steps[i] = s.drain()
	}
	return out
}

// drain takes and clears s's figures.
func (s *stepStats) drain() StepInterval {
	out := StepInterval{Skipped: s.skipped.Swap(0)}
	s.mu.Lock()
	defer s.mu.Unlock()
	out.Count, out.Errors = s.count, s.errors
	out.Codes, out.FailedChecks, out.FailedVars, out.Transport = s.codes, s.failedChecks, s.failedVars, s.transport
	out.Response, out.Service, out.Lag = s.response, s.service, s.lag
	fresh := newStepStats()
	s.count, s.errors = 0, 0
	s.codes, s.failedChecks, s.failedVars, s.transport = fresh.codes, fresh.failedChecks, fresh.failedVars, fresh.transport
	s.response, s.service, s.lag = fresh.response, fresh.service, fresh.lag
	return out
}

// Add adds o's figures to iv (a running total of intervals).
func (iv *Interval) Add(o *Interval) error {
	iv.Started += o.Started
	iv.Completed += o.Completed
	iv.Failed += o.Failed
	if iv.Iteration == nil {
		iv.Iteration = hist.New()
	}
	if err := iv.Iteration.Merge(o.Iteration); err != nil {
		return err
	}
	for len(iv.Steps) < len(o.Steps) {
		iv.Steps = append(iv.Steps, StepInterval{
			Codes: map[int]int64{}, FailedChecks: map[string]int64{}, FailedVars: map[string]int64{}, Transport: map[string]int64{},
			Response: hist.New(), Service: hist.New(), Lag: hist.New(),
		})
	}
	for i := range o.Steps {
		d, s := &iv.Steps[i], &o.Steps[i]
		d.Count += s.Count
		d.Errors += s.Errors
		d.Skipped += s.Skipped
		for k, v := range s.Codes {
			d.Codes[k] += v
		}
		for _, m := range [][2]map[string]int64{{d.FailedChecks, s.FailedChecks}, {d.FailedVars, s.FailedVars}, {d.Transport, s.Transport}} {
			for k, v := range m[1] {
				m[0][k] += v
			}
		}
		for _, h := range [][2]*hist.Histogram{{d.Response, s.Response}, {d.Service, s.Service}, {d.Lag, s.Lag}} {
			if err := h[0].Merge(h[1]); err != nil {
				return err
			}
		}
	}
	return nil
}
