// Package changepoint finds where the level of a series of positive
// figures changed: on a test's trend, the runs from which its p99 (or
// another latency) stayed higher or lower than before.
//
// The method (docs/verdicts.md, "Changes across a test's history") is a
// penalised segmentation of the series' logarithms into segments of
// constant mean, found exactly by optimal partitioning (Jackson et al.
// 2005), the objective PELT (Killick, Fearnhead & Eckley 2012) solves, with
// the noise's scale estimated robustly from the differences of
// neighbouring values (as in Fryzlewicz 2014) and each value held within
// ClipSigmas of the median of the values around it, so that one odd run
// does not make a level of its own (the clipped loss of Fearnhead &
// Rigaill 2019). Changes smaller than Options.MinChange are merged away.
//
// It holds the statistics only: it does not read runs nor choose which
// runs make a series.
package changepoint

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// Defaults of Options.
const (
	// DefaultMinSegment is the fewest values a level spans: a single odd
	// run is an outlier, not a change.
	DefaultMinSegment = 3
	// DefaultMinChange is the smallest relative change between two levels
	// reported: 0.05 is 5 %.
	DefaultMinChange = 0.05
	// DefaultPenaltyFactor times ln(n) is the cost of one more change
	// (Options.Penalty): the Schwarz criterion's 2 ln(n) for a change's
	// two parameters (its place and its new level), tripled because the
	// noise's scale is itself estimated from a few dozen runs, so that
	// flat series of noisy figures give no change (TestFlatSeries).
	DefaultPenaltyFactor = 6
	// ClipSigmas bounds how far, in noise standard deviations, a value is
	// taken to lie from the median of the ClipWindow values around it.
	ClipSigmas = 3
	// ClipWindow is the number of values whose median a value is held
	// near: a median of 5 ignores 2 odd runs in a row and keeps a step's
	// edge where it is.
	ClipWindow = 5
	// NoiseFloor is the least noise assumed, on the log scale (1 %): a
	// series of identical figures has no measured noise, and any change
	// in it would otherwise weigh infinitely.
	NoiseFloor = 0.01
	// MaxLen bounds the series' length: the search is quadratic.
	MaxLen = 5000
)

// Options tune a detection. The zero value takes the defaults.
type Options struct {
	// MinSegment is the fewest values between changes, and before the
	// first and after the last; default DefaultMinSegment.
	MinSegment int
	// MinChange is the smallest |after/before − 1| reported; default
	// DefaultMinChange; a negative value reports every change found.
	MinChange float64
	// Penalty is the cost of one more change, in units of the noise's
	// variance; 0 takes DefaultPenaltyFactor × ln(n).
	Penalty float64
}

// Point is one change of level.
type Point struct {
	// Index is the first value at the new level.
	Index int
	// Before and After are the levels of the segments either side: the
	// medians of their values.
	Before, After float64
}

// Change is After/Before − 1: 0.18 is a rise of 18 %.
func (p Point) Change() float64 { return p.After/p.Before - 1 }

// ErrNotPositive reports a value that is not a positive finite number.
var ErrNotPositive = errors.New("values must be positive and finite")

// Detect returns the changes of level of xs, oldest first. A series
// shorter than two segments has none.
func Detect(xs []float64, o Options) ([]Point, error) {
	if o.MinSegment == 0 {
		o.MinSegment = DefaultMinSegment
	}
	if o.MinChange == 0 {
		o.MinChange = DefaultMinChange
	}
	switch {
	case o.MinSegment < 1:
		return nil, fmt.Errorf("minimum segment %d: give at least 1", o.MinSegment)
	case o.Penalty < 0:
		return nil, fmt.Errorf("penalty %v is negative", o.Penalty)
	case len(xs) > MaxLen:
		return nil, fmt.Errorf("%d values: at most %d", len(xs), MaxLen)
	}
	logs := make([]float64, len(xs))
	for i, x := range xs {
		if !(x > 0) || math.IsInf(x, 1) {
			return nil, fmt.Errorf("value %d (%v): %w", i, x, ErrNotPositive)
		}
		logs[i] = math.Log(x)
	}
	n := len(logs)
	if n < 2*o.MinSegment {
		return nil, nil
	}
	beta := o.Penalty
	if beta == 0 {
		beta = DefaultPenaltyFactor * math.Log(float64(n))
	}
	sigma := max(Noise(logs), NoiseFloor)
	starts := partition(newSums(clip(logs, ClipSigmas*sigma)), n, o.MinSegment, beta*sigma*sigma)
	starts = mergeSmall(logs, starts, o.MinChange)
	out := make([]Point, 0, len(starts))
	for k, at := range starts {
		prev, next := bounds(starts, k, n)
		out = append(out, Point{Index: at, Before: math.Exp(median(logs[prev:at])), After: math.Exp(median(logs[at:next]))})
	}
	return out, nil
}

// bounds returns the start of the segment before change k of starts and
// the end of the segment after it, in a series of n values.
func bounds(starts []int, k, n int) (prev, next int) {
	prev, next = 0, n
	if k > 0 {
		prev = starts[k-1]
	}
	if k+1 < len(starts) {
		next = starts[k+1]
	}
	return prev, next
}

// clip returns xs with each value held within c of the median of the
// ClipWindow values centred on it (fewer at the ends).
func clip(xs []float64, c float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		lo, hi := max(0, i-ClipWindow/2), min(len(xs), i+ClipWindow/2+1)
		m := median(xs[lo:hi])
		out[i] = min(max(x, m-c), m+c)
	}
	return out
}

// median returns the median of xs (the mean of the middle two for an even
// count); xs is not changed.
func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// Noise estimates the standard deviation of the noise around a piecewise
// constant level in xs: the median absolute difference of neighbours,
// scaled to a normal's standard deviation (a difference of two values has
// sqrt(2) times their spread; the median absolute deviation of a normal
// is 0.6745 of it). A change of level moves only one difference, so it
// barely moves this estimate. 0 for fewer than two values.
func Noise(xs []float64) float64 {
	if len(xs) < 2 {
		return 0
	}
	d := make([]float64, len(xs)-1)
	for i := range d {
		d[i] = math.Abs(xs[i+1] - xs[i])
	}
	return median(d) / (0.6745 * math.Sqrt2)
}

// sums holds prefix sums of a series and of its squares, so that a
// segment's mean and cost take constant time.
type sums struct{ s, s2 []float64 }

func newSums(xs []float64) sums {
	out := sums{s: make([]float64, len(xs)+1), s2: make([]float64, len(xs)+1)}
	for i, x := range xs {
		out.s[i+1] = out.s[i] + x
		out.s2[i+1] = out.s2[i] + x*x
	}
	return out
}

// cost is the sum of squared deviations of values [a, b) from their mean.
func (s sums) cost(a, b int) float64 {
	sum := s.s[b] - s.s[a]
	return max(0, s.s2[b]-s.s2[a]-sum*sum/float64(b-a))
}

// partition returns the starts of the segments after the first that
// minimise the sum of the segments' costs plus beta per change, every
// segment at least minSeg long: optimal partitioning by dynamic
// programming over the end of the last segment, O(n²).
func partition(s sums, n, minSeg int, beta float64) []int {
	best := make([]float64, n+1) // best[t]: the least cost of values [0, t)
	last := make([]int, n+1)     // last[t]: the start of its last segment
	for t := 1; t <= n; t++ {
		best[t], last[t] = math.Inf(1), -1
		if t < minSeg {
			continue
		}
		best[t], last[t] = s.cost(0, t), 0
		for a := minSeg; a <= t-minSeg; a++ {
			if last[a] < 0 {
				continue
			}
			if c := best[a] + beta + s.cost(a, t); c < best[t] {
				best[t], last[t] = c, a
			}
		}
	}
	var starts []int
	for t := n; last[t] > 0; t = last[t] {
		starts = append(starts, last[t])
	}
	slices.Reverse(starts)
	return starts
}

// mergeSmall drops, one at a time, the change of the log series logs whose
// levels (medians) either side differ least while that is under minChange
// (relatively), and returns the starts left.
func mergeSmall(logs []float64, starts []int, minChange float64) []int {
	for len(starts) > 0 && minChange >= 0 {
		at, least := -1, math.Inf(1)
		for k := range starts {
			prev, next := bounds(starts, k, len(logs))
			if d := math.Abs(math.Expm1(median(logs[starts[k]:next]) - median(logs[prev:starts[k]]))); d < least {
				at, least = k, d
			}
		}
		if least >= minChange {
			break
		}
		starts = slices.Delete(starts, at, at+1)
	}
	return starts
}
