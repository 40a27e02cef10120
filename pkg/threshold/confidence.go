package threshold

import (
	"errors"
	"fmt"
	"math"

	"github.com/barrage-dev/barrage/pkg/hist"
	"github.com/barrage-dev/barrage/pkg/verdict"
)

// Second is one second of a run as confidence forms see it: its counts
// and its latency histograms, merged across shards; a nil histogram is
// empty.
type Second struct {
	Count, Errors          int64
	Response, Service, Lag *hist.Histogram
}

// MaxLonger caps Outcome.Longer: beyond it the report says the difference
// is too small to tell.
const MaxLonger = 1000

// Estimate is what a confidence form measured.
type Estimate struct {
	// Confidence is the level, in percent.
	Confidence float64
	// Ratio is the run's metric over the baseline's, with its interval;
	// all 0 when the baseline's metric is 0 (an error rate with no
	// errors), where only the margin is defined.
	Ratio, RatioLow, RatioHigh float64
	// MarginLow and MarginHigh bound the run's metric minus the limit,
	// in the metric's unit: the interval the verdict is read from.
	MarginLow, MarginHigh float64
	// Longer is how many times longer both runs would need to be to
	// resolve an inconclusive outcome (1 when resolved); 0 when no length
	// would (no difference at all, or more than MaxLonger).
	Longer float64
	// Seconds is the measured seconds of the shorter run.
	Seconds int
	// Spread is the run-to-run spread of the metric estimated from a
	// pooled baseline's runs (about its relative standard deviation: 0.02
	// for 2 %), which widens the interval, and SpreadRuns the runs it was
	// estimated from; 0 and 0 when it was not (one baseline run, too few
	// pooled, or the error rate).
	Spread     float64
	SpreadRuns int
}

// secondsOf returns the seconds of obs as pkg/verdict compares them, for
// the latency kind of e.
func (e Expr) secondsOf(obs Observed) []verdict.Second {
	kind := e.resolved(obs.Primary).Kind
	out := make([]verdict.Second, len(obs.Seconds))
	for i, s := range obs.Seconds {
		h := s.Service
		switch kind {
		case Response:
			h = s.Response
		case Lag:
			h = s.Lag
		}
		out[i] = verdict.Second{Count: s.Count, Errors: s.Errors, Latency: h}
	}
	return out
}

// evalConfident judges a confidence form: out has the point values set.
func (e Expr) evalConfident(obs, base Observed, out *Outcome) {
	p := []float64{50}
	if e.Stat == Percentile {
		p = []float64{e.P}
	}
	o := verdict.Options{Percentiles: p, Warmup: max(obs.Warmup, base.Warmup)}
	baseSeconds := e.secondsOf(base)
	if len(base.Parts) > 0 {
		parts := make([]verdict.Part, len(base.Parts))
		for i := range base.Parts {
			parts[i] = verdict.Part{Seconds: e.secondsOf(base.Parts[i]), Warmup: base.Parts[i].Warmup}
		}
		baseSeconds, o.BaseRuns = verdict.Pool(parts)
		o.Warmup = obs.Warmup
	}
	c, err := verdict.Compare(e.secondsOf(obs), baseSeconds, o)
	if errors.Is(err, verdict.ErrTooShort) {
		out.Inconclusive, out.Note = true, err.Error()
		return
	}
	if err != nil {
		out.Error = "estimate: " + err.Error()
		return
	}
	name := string(e.Stat)
	if e.Stat == Percentile {
		name = "p(" + formatNumber(e.P) + ")"
	}
	est, ok := c.Find(name)
	if !ok {
		out.Error = "estimate: no " + name
		return
	}
	conf := e.Confidence / 100
	m := est.Margin(e.Factor, conf)
	x := &Estimate{Confidence: e.Confidence, MarginLow: m.Low, MarginHigh: m.High, Seconds: est.Seconds()}
	x.Spread, x.SpreadRuns = est.Spread()
	if r, ok := est.Ratio(conf); ok {
		x.Ratio, x.RatioLow, x.RatioHigh = r.Point, r.Low, r.High
	}
	out.Estimate = x
	pass, fail := judgeInterval(e.Op, m.Low, m.High)
	out.Pass, out.Inconclusive = pass, !pass && !fail
	if out.Inconclusive {
		if l := est.Longer(e.Factor, conf); !math.IsInf(l, 1) && l <= MaxLonger {
			x.Longer = l
		}
		out.Note = e.describeUnresolved(x)
	} else {
		x.Longer = 1
	}
}

// describeUnresolved says how much longer the runs would need to be.
func (e Expr) describeUnresolved(x *Estimate) string {
	if x.Longer == 0 {
		return fmt.Sprintf("the %v %% interval straddles the limit and the runs show no difference a longer run would tell", x.Confidence)
	}
	return fmt.Sprintf("run about %.1f× longer to tell", x.Longer)
}

// judgeInterval reads the interval lo..hi of the run's metric minus the
// limit as op reads a single value: pass when op holds across the whole
// interval, fail when it fails across the whole interval.
func judgeInterval(op Op, lo, hi float64) (pass, fail bool) {
	return op.holds(hi, 0) && op.holds(lo, 0), !op.holds(hi, 0) && !op.holds(lo, 0)
}

// NeedsSeconds reports whether any of the expressions is a confidence
// form, which needs the runs' seconds; expressions that do not parse are
// skipped.
func NeedsSeconds(exprs []string) bool {
	for _, s := range exprs {
		if e, err := Parse(s); err == nil && e.Confidence > 0 {
			return true
		}
	}
	return false
}
