package verdict

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/barrage-dev/barrage/pkg/hist"
)

// MinSpreadRuns is the fewest pooled baseline runs, each of at least
// MinSeconds measured seconds, from which the spread of a figure from run
// to run is estimated: two runs give one difference, three the first
// estimate of a variance worth the name.
const MinSpreadRuns = 3

// spreadResamples is the bootstrap resamples of each pooled run, enough
// for the variance of its figure (not the tails an interval needs).
const spreadResamples = 400

// Two runs of the same build, at the same rate on the same host, settle
// at levels of their own: on the quiet host of
// bench/results/verdicts-2026-11-27-idle-10s.md a run's p90 moved by
// about 2 % from run to run, which no resampling of one run's seconds can
// see. A pooled baseline holds several runs, so the differences between
// their figures measure it. This is the random-effects model of
// meta-analysis: the figure of run i is its system's level, plus a level
// of the run drawn with variance tau², plus the noise within the run with
// variance v_i. The variance of the runs' figures then estimates
// tau² + mean(v_i), and the moment estimator
//
//	tau² = max(0, var(y_i) - mean(v_i))
//
// (on the logarithm y_i of each run's figure, v_i its bootstrap variance
// with Bessel's correction over its blocks) is the unweighted estimator
// of Hedges (1983) for runs of unequal precision. The run compared is one
// more run, so its own level adds tau² to the variance of the comparison,
// read on Student's t with k - 1 degrees of freedom for k pooled runs, as
// the prediction interval of Higgins, Thompson & Spiegelhalter (2009)
// reads the spread of a new study. The pooled baseline's side already
// carries the differences between its runs: its resamples draw blocks of
// every run (Pool).

// spreads returns, for each metric, the run-to-run standard deviation of
// its logarithm (tau) estimated from the pooled runs of base, and the runs
// it was estimated from: 0 and 0 when there are too few runs of enough
// seconds, or for a metric that is 0 on one of them or is the error rate
// (whose differences are absolute, not relative). runs are the lengths
// of base's pooled runs in order.
func spreads(base []Second, bins [][]hist.Bin, runs []int, values []float64, index map[int64]int,
	metrics []Metric, seed uint64,
) (tau []float64, k int, err error) {
	total := 0
	for _, n := range runs {
		total += n
	}
	if total != len(base) {
		return nil, 0, fmt.Errorf("pooled runs of %d seconds in all, but the baseline has %d", total, len(base))
	}
	var parts []series
	at := 0
	for _, n := range runs {
		if n >= MinSeconds {
			parts = append(parts, prepare(base[at:at+n], bins[at:at+n], index, 0, denseLimit))
		}
		at += n
	}
	tau = make([]float64, len(metrics))
	if len(parts) < MinSpreadRuns {
		return tau, 0, nil
	}
	k = len(parts)
	// y[i][m] is metric m's logarithm on part i, v[i][m] its variance.
	y, v := make([][]float64, k), make([][]float64, k)
	rng := rand.New(rand.NewPCG(seed, seed^0x5851f42d4c957f2d)) //nolint:gosec // reproducible resampling, not a secret
	for i, s := range parts {
		y[i], v[i] = logMoments(s, values, metrics, rng)
	}
	for m, metric := range metrics {
		if metric.Name == ErrorRate {
			continue
		}
		var mean, within float64
		for i := range parts {
			mean += y[i][m]
			within += v[i][m]
		}
		mean /= float64(k)
		within /= float64(k)
		var between float64
		for i := range parts {
			between += (y[i][m] - mean) * (y[i][m] - mean)
		}
		between /= float64(k - 1)
		if t2 := between - within; t2 > 0 && !math.IsNaN(t2) {
			tau[m] = math.Sqrt(t2)
		}
	}
	return tau, k, nil
}

// logMoments returns each metric's logarithm on the whole of s, and its
// variance over spreadResamples block-bootstrap resamples of s, with
// Bessel's correction over its blocks.
func logMoments(s series, values []float64, metrics []Metric, rng *rand.Rand) (y, v []float64) {
	y, v = make([]float64, len(metrics)), make([]float64, len(metrics))
	out := make([]float64, len(metrics))
	d := s.all()
	s.stats(d, values, metrics, out)
	for m := range metrics {
		y[m] = logOrNaN(out[m])
	}
	sum, sq := make([]float64, len(metrics)), make([]float64, len(metrics))
	for range spreadResamples {
		s.resample(rng, &d)
		s.stats(d, values, metrics, out)
		for m := range metrics {
			l := logOrNaN(out[m])
			sum[m] += l
			sq[m] += l * l
		}
	}
	b := blocks(s)
	for m := range metrics {
		mean := sum[m] / spreadResamples
		v[m] = (sq[m]/spreadResamples - mean*mean) * b / max(b-1, 1)
	}
	return y, v
}

// logOrNaN returns ln x, NaN for x <= 0: a figure of 0 has no relative
// spread, and the NaN keeps its metric's spread at 0.
func logOrNaN(x float64) float64 {
	if x <= 0 {
		return math.NaN()
	}
	return math.Log(x)
}

// spreadQuantile returns the quantile of Student's t with k - 1 degrees
// of freedom that the run-to-run spread is read on at conf, for k pooled
// runs.
func spreadQuantile(k int, conf float64) float64 {
	return tQuantile((1+conf)/2, float64(k-1))
}
