// Package verdict estimates how a run differs from a baseline run, with a
// confidence interval, from the two runs' per-second measurements: the
// ratio of each latency percentile, of the error rate and of the achieved
// rate (qps), by a circular block bootstrap over seconds
// (docs/verdicts.md explains the method and its assumptions).
//
// It holds the statistics only: it does not read runs, parse thresholds
// (pkg/threshold does, and asks it for intervals) nor choose the baseline.
package verdict

import (
	"errors"
	"fmt"
	"math"

	"github.com/barrage-dev/barrage/pkg/hist"
)

// Second is one measured second of a run, merged across its shards.
type Second struct {
	// Count and Errors are the requests completed, and failed, in the
	// second.
	Count  int64
	Errors int64
	// Latency is the second's histogram of the latency being compared;
	// nil when nothing was recorded.
	Latency *hist.Histogram
}

// MinSeconds is the fewest measured seconds (after the warm-up) each run
// needs: below it a block bootstrap has too few blocks to say anything.
const MinSeconds = 10

// Defaults of Options.
const (
	// DefaultResamples is the number of bootstrap resamples: enough for
	// the 2.5th and 97.5th percentiles of the resampled statistic to move
	// by well under 1 % between seeds (TestSeedStability).
	DefaultResamples = 2000
	// DefaultSeed seeds the resampling so that a run's verdict is the same
	// each time it is computed.
	DefaultSeed = 30
)

// ErrTooShort reports a run with fewer than MinSeconds measured seconds.
var ErrTooShort = errors.New("too few measured seconds")

// Options tune a comparison. The zero value takes the defaults.
type Options struct {
	// Percentiles are the latency percentiles estimated, from 0 to 100;
	// default 50, 90, 99 and 99.9.
	Percentiles []float64
	// Resamples is the number of bootstrap resamples; default
	// DefaultResamples, at most 100000.
	Resamples int
	// Seed seeds the resampling; 0 means DefaultSeed.
	Seed uint64
	// Warmup is the seconds dropped from the start of each run (a ramp).
	Warmup int
	// Block is the block length in seconds; 0 chooses BlockLength(n).
	Block int
	// BaseRuns, when set, says the baseline's seconds come from Pool:
	// they are measured seconds already, of runs this many seconds long in
	// order, and Warmup applies to the run only. With at least
	// MinSpreadRuns of them, each of at least MinSeconds, their spread from
	// run to run widens the intervals (spread.go).
	BaseRuns []int
}

// normalize fills the defaults and checks the values.
func (o *Options) normalize() error {
	if len(o.Percentiles) == 0 {
		o.Percentiles = []float64{50, 90, 99, 99.9}
	}
	for _, p := range o.Percentiles {
		if !(p >= 0 && p <= 100) {
			return fmt.Errorf("percentile %v is not from 0 to 100", p)
		}
	}
	if o.Resamples == 0 {
		o.Resamples = DefaultResamples
	}
	if o.Resamples < 100 || o.Resamples > 100_000 {
		return fmt.Errorf("resamples %d: give 100 to 100000", o.Resamples)
	}
	if o.Seed == 0 {
		o.Seed = DefaultSeed
	}
	if o.Warmup < 0 || o.Block < 0 {
		return errors.New("warm-up and block length are not negative")
	}
	return nil
}

// BlockLength is the block length, in seconds, used for a run of n
// measured seconds: the cube root of n rounded up, at least 2. Hall,
// Horowitz and Jing (1995) show that the block length minimising the error
// of a bootstrap variance grows as n^(1/3); at least 2 keeps the
// dependence between neighbouring seconds in every block.
func BlockLength(n int) int {
	return max(2, int(math.Ceil(math.Cbrt(float64(n)))))
}

// Metric names what an Estimate measures.
type Metric struct {
	// Name is "p(99)", "error_rate" or "qps".
	Name string
	// P is the percentile of a latency metric; -1 otherwise.
	P float64
}

// Metrics other than percentiles.
const (
	ErrorRate = "error_rate"
	QPS       = "qps"
)

// Part is one baseline run's seconds in order, with its warm-up, for Pool.
type Part struct {
	Seconds []Second
	Warmup  int
}

// Pool joins the measured seconds of baseline runs (each without its
// warm-up and its trailing partial second) in the order given, into one
// baseline sample, and returns each run's measured seconds: a run
// compared with the last N passing runs of its test is compared with
// their pooled seconds (Options.BaseRuns). It is sound when the runs are
// alike (docs/verdicts.md, "A baseline of several runs"): resampled in
// blocks, the joined seconds carry both the variation within each run and
// the differences between the runs.
func Pool(parts []Part) (seconds []Second, runs []int) {
	for _, p := range parts {
		m := measured(p.Seconds, p.Warmup)
		seconds = append(seconds, m...)
		runs = append(runs, len(m))
	}
	return seconds, runs
}

// measured trims the warm-up and a trailing partial second from s.
func measured(s []Second, warmup int) []Second {
	if warmup >= len(s) {
		return nil
	}
	s = s[warmup:]
	// The last second of a run is cut short where the run ends: drop it
	// when it counted under half of the one before it.
	if n := len(s); n >= 2 && 2*s[n-1].Count < s[n-2].Count {
		s = s[:n-1]
	}
	return s
}
