package verdict

import (
	"math"
	"slices"
)

// Comparison is the estimates of a run against its baseline.
type Comparison struct {
	// RunSeconds and BaseSeconds are the measured seconds of each run.
	RunSeconds  int
	BaseSeconds int
	// Block is the run's block length, in resampled units (seconds for
	// runs up to MaxUnits seconds).
	Block int
	// Estimates are the latency percentiles in the order asked, then the
	// error rate and qps.
	Estimates []Estimate
}

// Find returns the estimate of the metric named name ("p(99)", ErrorRate,
// QPS).
func (c Comparison) Find(name string) (Estimate, bool) {
	for _, e := range c.Estimates {
		if e.Metric.Name == name {
			return e, true
		}
	}
	return Estimate{}, false
}

// Estimate is one metric of a run against its baseline.
type Estimate struct {
	Metric Metric
	// Run and Base are the metric on each whole run (latencies in
	// microseconds, error rates as fractions, qps in requests per second).
	Run  float64
	Base float64
	// runB and baseB are the metric on each bootstrap resample, drawn
	// independently for the two runs.
	runB, baseB []float64
	seconds     int
	// blocks is the number of blocks the shorter run is resampled in;
	// it sets how much the resampled spread is widened (see widening).
	// 0 leaves the spread as resampled.
	blocks float64
	// spread is the run-to-run standard deviation of the metric's
	// logarithm, estimated from spreadRuns pooled baseline runs
	// (spread.go); 0 when not estimated.
	spread     float64
	spreadRuns int
}

// Spread returns the run-to-run spread of the metric (the standard
// deviation of its logarithm, about its relative spread: 0.02 for 2 %)
// that widens the intervals, and the pooled baseline runs it was
// estimated from; 0 and 0 when it was not estimated.
func (e Estimate) Spread() (tau float64, runs int) { return e.spread, e.spreadRuns }

// Interval is a point estimate with a confidence interval around it.
type Interval struct {
	Point, Low, High float64
}

// Ratio returns Run / Base with its confidence interval at conf (0.95 for
// 95 %), the percentile bootstrap interval of the resampled ratios. ok is
// false when the baseline's metric is 0 on the run or on a resample: the
// ratio is undefined, use Margin.
func (e Estimate) Ratio(conf float64) (iv Interval, ok bool) {
	if e.Base == 0 {
		return Interval{}, false
	}
	r := make([]float64, len(e.runB))
	for i := range r {
		if e.baseB[i] == 0 {
			return Interval{}, false
		}
		r[i] = e.runB[i] / e.baseB[i]
	}
	return e.interval(e.Run/e.Base, r, conf, e.Run/e.Base), true
}

// Margin returns Run - factor*Base, in the metric's unit, with its
// confidence interval at conf: how far the run lies above a limit of
// factor times the baseline. It is defined when the baseline's metric is
// 0 too, which makes it what thresholds judge by.
func (e Estimate) Margin(factor, conf float64) Interval {
	d := make([]float64, len(e.runB))
	for i := range d {
		d[i] = e.runB[i] - factor*e.baseB[i]
	}
	return e.interval(e.Run-factor*e.Base, d, conf, e.Run)
}

// interval returns the percentile interval of the replicates xs at conf
// around point, its bounds' distances from the replicates' median scaled by
// the widening for e.blocks at conf. With a run-to-run spread, each
// distance d becomes sqrt(d² + (q·tau·level)²): the run's own level, a
// relative deviation tau of level (the run's figure, or the ratio), added
// as an independent term (spread.go).
func (e Estimate) interval(point float64, xs []float64, conf, level float64) Interval {
	s := slices.Clone(xs)
	slices.Sort(s)
	mid := quantile(s, 0.5)
	w := 1.0
	if e.blocks > 0 {
		w = widening(e.blocks, conf)
	}
	below, above := w*(mid-quantile(s, (1-conf)/2)), w*(quantile(s, (1+conf)/2)-mid)
	if x := e.spreadTerm(conf, level); x > 0 {
		below, above = math.Hypot(below, x), math.Hypot(above, x)
	}
	return Interval{Point: point, Low: mid - below, High: mid + above}
}

// spreadTerm returns the run-to-run term of an interval at conf around
// level: 0 without a spread.
func (e Estimate) spreadTerm(conf, level float64) float64 {
	if e.spread <= 0 {
		return 0
	}
	return spreadQuantile(e.spreadRuns, conf) * e.spread * math.Abs(level)
}

// Longer returns how many times longer both runs would need to be for
// the margin to factor at conf to exclude 0, assuming the part of its
// width from within the runs shrinks as 1/sqrt(seconds): 1 when it
// already does, +Inf when the point margin is 0 (no length tells a
// difference that is not there) or within the run-to-run term, which no
// length shrinks. The width that counts is the side of the interval that
// reaches past 0, from the point margin: a lopsided interval needs the
// length its crossing side needs.
func (e Estimate) Longer(factor, conf float64) float64 {
	m := e.Margin(factor, conf)
	if m.Low > 0 || m.High < 0 {
		return 1
	}
	side := m.Point - m.Low
	if m.Point < 0 {
		side = m.High - m.Point
	}
	x, d := e.spreadTerm(conf, e.Run), math.Abs(m.Point)
	if d <= x {
		return math.Inf(1)
	}
	return max(1, (side*side-x*x)/(d*d-x*x))
}

// Seconds returns the measured seconds of the shorter run.
func (e Estimate) Seconds() int { return e.seconds }

// quantile returns the q quantile of sorted s.
func quantile(s []float64, q float64) float64 {
	if len(s) == 0 {
		return math.NaN()
	}
	pos := q * float64(len(s)-1)
	i := int(math.Floor(pos))
	if i >= len(s)-1 {
		return s[len(s)-1]
	}
	f := pos - float64(i)
	return s[i] + f*(s[i+1]-s[i])
}

// ceilRank returns ceil(p% of total), stepping p one ulp down first so
// that a product that should be an integer does not skip a rank (as
// pkg/hist does).
func ceilRank(p float64, total int64) float64 {
	req := math.Nextafter(min(p, 100), math.Inf(-1))
	return math.Ceil(req / 100 * float64(total))
}
