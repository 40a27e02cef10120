package ingest

import (
	"fmt"
	"math"

	"github.com/barrage-dev/barrage/pkg/hist"
	"github.com/barrage-dev/barrage/pkg/scenario"
	barragev1 "github.com/barrage-dev/barrage/proto/barrage/v1"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// scenarioPart is a scenario run's part of a snapshot or of a merge
// (snapshot fields 31 to 35): its iterations and its steps by index. Like
// a request mix's entries, the steps are merged from the shards' final
// snapshots, which hold their whole shard.
type scenarioPart struct {
	started, completed, failed int64
	iteration                  *hist.Histogram
	steps                      map[int]*stepPart
}

// stepPart is one step's figures.
type stepPart struct {
	count, errors, skipped                int64
	codes, checks, extractions, transport map[string]int64
	lat                                   latencies
}

func newStepPart() *stepPart {
	return &stepPart{codes: map[string]int64{}, checks: map[string]int64{}, extractions: map[string]int64{},
		transport: map[string]int64{}, lat: newLatencies()}
}

// scenarioFromProto checks and decodes a snapshot's scenario fields; nil
// when it has none.
func scenarioFromProto(m *barragev1.Snapshot) (*scenarioPart, error) {
	if len(m.GetSteps()) == 0 && len(m.GetIterationHdr()) == 0 && m.GetIterationsStarted() == 0 {
		return nil, nil
	}
	if len(m.GetSteps()) > scenario.MaxSteps {
		return nil, fmt.Errorf("%d steps: at most %d", len(m.GetSteps()), scenario.MaxSteps)
	}
	p := &scenarioPart{steps: map[int]*stepPart{}}
	if err := counters(map[string]struct {
		v   uint64
		dst *int64
	}{
		"iterations_started": {m.GetIterationsStarted(), &p.started}, "iterations_completed": {m.GetIterationsCompleted(), &p.completed},
		"iterations_failed": {m.GetIterationsFailed(), &p.failed},
	}); err != nil {
		return nil, err
	}
	var err error
	if p.iteration, err = decodeHist(m.GetIterationHdr()); err != nil {
		return nil, fmt.Errorf("iteration_hdr: %w", err)
	}
	for _, st := range m.GetSteps() {
		i := int(st.GetIndex())
		if st.GetIndex() >= scenario.MaxSteps || p.steps[i] != nil {
			return nil, fmt.Errorf("step index %d out of range or repeated", st.GetIndex())
		}
		s := newStepPart()
		if err := counters(map[string]struct {
			v   uint64
			dst *int64
		}{"count": {st.GetCount(), &s.count}, "errors": {st.GetErrors(), &s.errors}, "skipped": {st.GetSkipped(), &s.skipped}}); err != nil {
			return nil, fmt.Errorf("step %d: %w", i, err)
		}
		for _, c := range []struct {
			src map[string]uint64
			dst map[string]int64
		}{{st.GetRetCodes(), s.codes}, {st.GetFailedChecks(), s.checks}, {st.GetFailedExtractions(), s.extractions}, {st.GetTransportErrors(), s.transport}} {
			for k, n := range c.src {
				if n > math.MaxInt64 {
					return nil, fmt.Errorf("step %d: count of %q out of range", i, k)
				}
				c.dst[k] = int64(n)
			}
		}
		for j, b := range [3][]byte{st.GetResponseHdr(), st.GetServiceHdr(), st.GetLagHdr()} {
			if s.lat[j], err = decodeHist(b); err != nil {
				return nil, fmt.Errorf("step %d %s: %w", i, latencyName(j), err)
			}
		}
		p.steps[i] = s
	}
	return p, nil
}

// counters checks that each value fits an int64 and stores it.
func counters(list map[string]struct {
	v   uint64
	dst *int64
}) error {
	for name, c := range list {
		if c.v > math.MaxInt64 {
			return fmt.Errorf("%s %d out of range", name, c.v)
		}
		*c.dst = int64(c.v)
	}
	return nil
}

// mergeScenario adds o into dst, which may be nil, and returns it.
func mergeScenario(dst, o *scenarioPart) (*scenarioPart, error) {
	if o == nil {
		return dst, nil
	}
	if dst == nil {
		dst = &scenarioPart{iteration: hist.New(), steps: map[int]*stepPart{}}
	}
	dst.started += o.started
	dst.completed += o.completed
	dst.failed += o.failed
	if err := dst.iteration.Merge(o.iteration); err != nil {
		return nil, err
	}
	for i, s := range o.steps {
		d := dst.steps[i]
		if d == nil {
			d = newStepPart()
			dst.steps[i] = d
		}
		d.count += s.count
		d.errors += s.errors
		d.skipped += s.skipped
		addCodes(d.codes, s.codes)
		addCodes(d.checks, s.checks)
		addCodes(d.extractions, s.extractions)
		addCodes(d.transport, s.transport)
		for j := range d.lat {
			if err := d.lat[j].Merge(s.lat[j]); err != nil {
				return nil, fmt.Errorf("step %d: %w", i, err)
			}
		}
	}
	return dst, nil
}

// scenarioResult encodes a merged scenario part, steps in index order.
func scenarioResult(p *scenarioPart) (*runs.ScenarioResult, error) {
	if p == nil {
		return nil, nil
	}
	it, err := p.iteration.Encode()
	if err != nil {
		return nil, err
	}
	out := &runs.ScenarioResult{Started: p.started, Completed: p.completed, Failed: p.failed, Iteration: it}
	for i := range scenario.MaxSteps {
		s := p.steps[i]
		if s == nil {
			continue
		}
		r := runs.StepResult{
			Index: i, Count: s.count, Errors: s.errors, Skipped: s.skipped, RetCodes: s.codes,
			FailedChecks: nonEmpty(s.checks), FailedExtractions: nonEmpty(s.extractions), TransportErrors: nonEmpty(s.transport),
		}
		for j, dst := range [3]*[]byte{&r.Response, &r.Service, &r.Lag} {
			if *dst, err = s.lat[j].Encode(); err != nil {
				return nil, err
			}
		}
		out.Steps = append(out.Steps, r)
	}
	return out, nil
}

func nonEmpty(m map[string]int64) map[string]int64 {
	if len(m) == 0 {
		return nil
	}
	return m
}
