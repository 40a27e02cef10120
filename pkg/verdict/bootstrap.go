package verdict

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/barrage-dev/barrage/pkg/hist"
)

// MaxUnits bounds the seconds a run is resampled in: a longer run is cut
// into MaxUnits runs of consecutive seconds of equal length (the last
// shorter), each treated as one unit. Blocks of units are blocks of
// seconds, so the method is the same; the cost of a resample stays bounded.
const MaxUnits = 120

// unit is one resampled piece of a run: its counts, and its latency
// histogram as a cumulative distribution over the comparison's values.
// Sparse: cum[k] of its latencies lie at or below values[idx[k]], idx
// ascending. Dense (when the comparison is small enough, see denseLimit):
// dense[v] of them lie at or below values[v].
type unit struct {
	count, errors int64
	idx           []int32
	cum           []int64
	dense         []int64
}

// denseLimit bounds units × values of a series for which units keep dense
// cumulative distributions (8 bytes each): a lookup is then one read
// instead of a binary search. 10 s runs need about 10 × 2,000.
const denseLimit = 1 << 20

// total returns the unit's latencies.
func (u *unit) total() int64 {
	if len(u.cum) == 0 {
		return 0
	}
	return u.cum[len(u.cum)-1]
}

// atOrBelow returns how many of u's latencies lie at or below values[v].
func (u *unit) atOrBelow(v int32) int64 {
	if u.dense != nil {
		return u.dense[v]
	}
	lo, hi := 0, len(u.idx) // the first k with idx[k] > v lies in [lo, hi]
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if u.idx[m] <= v {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == 0 {
		return 0
	}
	return u.cum[lo-1]
}

// densify fills u.dense over nvalues values.
func (u *unit) densify(nvalues int) {
	u.dense = make([]int64, nvalues)
	var at, cum int64
	for k, idx := range u.idx {
		for ; at < int64(idx); at++ {
			u.dense[at] = cum
		}
		cum = u.cum[k]
	}
	for ; at < int64(nvalues); at++ {
		u.dense[at] = cum
	}
}

// series is one run prepared for resampling.
type series struct {
	units   []unit
	seconds int // measured seconds, for qps
	block   int
}

// Compare estimates each metric of run against base, each a run's
// seconds in order. It returns ErrTooShort (wrapped, saying which run)
// when either has fewer than MinSeconds measured seconds.
func Compare(run, base []Second, o Options) (Comparison, error) {
	if err := o.normalize(); err != nil {
		return Comparison{}, err
	}
	rs, bs := measured(run, o.Warmup), measured(base, o.Warmup)
	if o.BaseRuns != nil {
		bs = base
	}
	switch {
	case len(rs) < MinSeconds:
		return Comparison{}, fmt.Errorf("the run has %d measured seconds, at least %d needed: %w", len(rs), MinSeconds, ErrTooShort)
	case len(bs) < MinSeconds:
		return Comparison{}, fmt.Errorf("the baseline has %d measured seconds, at least %d needed: %w", len(bs), MinSeconds, ErrTooShort)
	}
	rb, bb := binsOf(rs), binsOf(bs)
	values, index := valueIndex(rb, bb)
	r, b := prepare(rs, rb, index, o.Block, denseLimit), prepare(bs, bb, index, o.Block, denseLimit)
	c := Comparison{RunSeconds: len(rs), BaseSeconds: len(bs), Block: r.block}
	metrics := make([]Metric, 0, len(o.Percentiles)+2)
	for _, p := range o.Percentiles {
		metrics = append(metrics, Metric{Name: "p(" + formatP(p) + ")", P: p})
	}
	metrics = append(metrics, Metric{Name: ErrorRate, P: -1}, Metric{Name: QPS, P: -1})
	c.Estimates = make([]Estimate, len(metrics))
	nb := min(blocks(r), blocks(b))
	var tau []float64
	var k int
	if o.BaseRuns != nil {
		var err error
		if tau, k, err = spreads(bs, bb, o.BaseRuns, values, index, metrics, o.Seed); err != nil {
			return Comparison{}, err
		}
	}
	rp, bp := make([]float64, len(metrics)), make([]float64, len(metrics))
	rd, bd := r.all(), b.all()
	r.stats(rd, values, metrics, rp)
	b.stats(bd, values, metrics, bp)
	for i, m := range metrics {
		c.Estimates[i] = Estimate{
			Metric: m, Run: rp[i], Base: bp[i], seconds: min(len(rs), len(bs)), blocks: nb,
			runB: make([]float64, o.Resamples), baseB: make([]float64, o.Resamples),
		}
		if k > 0 {
			c.Estimates[i].spread, c.Estimates[i].spreadRuns = tau[i], k
		}
	}
	rng := rand.New(rand.NewPCG(o.Seed, o.Seed^0x9e3779b97f4a7c15)) //nolint:gosec // a seeded statistical resampler must be reproducible, not secret
	for k := range o.Resamples {
		r.resample(rng, &rd)
		b.resample(rng, &bd)
		r.stats(rd, values, metrics, rp)
		b.stats(bd, values, metrics, bp)
		for i := range metrics {
			c.Estimates[i].runB[k], c.Estimates[i].baseB[k] = rp[i], bp[i]
		}
	}
	return c, nil
}

// formatP writes a percentile as the threshold grammar does: 99, 99.9.
func formatP(p float64) string { return strconv.FormatFloat(p, 'f', -1, 64) }

// blocks returns the number of blocks a resample of s is drawn in.
func blocks(s series) float64 { return float64(len(s.units)) / float64(s.block) }

// binsOf reads each second's histogram once.
func binsOf(s []Second) [][]hist.Bin {
	out := make([][]hist.Bin, len(s))
	for i, sec := range s {
		if sec.Latency != nil {
			out[i] = sec.Latency.Bins()
		}
	}
	return out
}

// valueIndex returns the distinct latency values (each slot's highest
// value, as hist.Percentile reports) of both runs' seconds' bins in
// ascending order, and each value's index.
func valueIndex(runs ...[][]hist.Bin) ([]float64, map[int64]int) {
	seen := map[int64]bool{}
	for _, s := range runs {
		for _, bins := range s {
			for _, b := range bins {
				seen[b.Hi] = true
			}
		}
	}
	keys := make([]int64, 0, len(seen))
	for v := range seen {
		keys = append(keys, v)
	}
	slices.Sort(keys)
	values := make([]float64, len(keys))
	index := make(map[int64]int, len(keys))
	for i, v := range keys {
		values[i], index[v] = float64(v), i
	}
	return values, index
}

// prepare turns seconds, with their bins, into units (at most MaxUnits)
// and picks the block length in units. The units are dense when there are
// at most dense units × values.
func prepare(s []Second, bins [][]hist.Bin, index map[int64]int, block, dense int) series {
	nvalues := len(index)
	per := (len(s) + MaxUnits - 1) / MaxUnits
	out := series{seconds: len(s)}
	for at := 0; at < len(s); at += per {
		var u unit
		counts := map[int32]int64{}
		for i := at; i < min(at+per, len(s)); i++ {
			u.count += s[i].Count
			u.errors += s[i].Errors
			for _, b := range bins[i] {
				counts[int32(index[b.Hi])] += b.Count
			}
		}
		u.idx = make([]int32, 0, len(counts))
		for idx := range counts {
			u.idx = append(u.idx, idx)
		}
		slices.Sort(u.idx)
		u.cum = make([]int64, len(u.idx))
		var cum int64
		for k, idx := range u.idx {
			cum += counts[idx]
			u.cum[k] = cum
		}
		out.units = append(out.units, u)
	}
	if len(out.units)*nvalues <= dense {
		for i := range out.units {
			out.units[i].densify(nvalues)
		}
	}
	out.block = block
	if out.block == 0 {
		out.block = BlockLength(len(out.units))
	}
	out.block = min(out.block, len(out.units))
	return out
}

// draw is one bootstrap sample of a series' units: how many times each
// unit was drawn, and the units drawn at least once.
type draw struct {
	times []int64
	drawn []int
}

// all returns the draw of every unit once.
func (s series) all() draw {
	d := draw{times: make([]int64, len(s.units)), drawn: make([]int, len(s.units))}
	for i := range d.times {
		d.times[i], d.drawn[i] = 1, i
	}
	return d
}

// resample draws a circular block bootstrap sample of the units into d:
// blocks of s.block consecutive units (wrapping from the last to the
// first) starting at uniform random units, until there are as many units
// as the run has.
func (s series) resample(rng *rand.Rand, d *draw) {
	n := len(s.units)
	clear(d.times)
	d.drawn = d.drawn[:0]
	for picked := 0; picked < n; {
		start := rng.IntN(n)
		for j := 0; j < s.block && picked < n; j++ {
			u := (start + j) % n
			if d.times[u] == 0 {
				d.drawn = append(d.drawn, u)
			}
			d.times[u]++
			picked++
		}
	}
}

// stats sets out[i] to metrics[i] on the units of d: latency percentiles
// over their merged histograms, the error rate, and qps as requests per
// measured second.
func (s series) stats(d draw, values []float64, metrics []Metric, out []float64) {
	var total, count, errs int64
	for _, i := range d.drawn {
		u, w := &s.units[i], d.times[i]
		count += w * u.count
		errs += w * u.errors
		total += w * u.total()
	}
	for i, m := range metrics {
		switch {
		case m.Name == ErrorRate:
			out[i] = 0
			if count > 0 {
				out[i] = float64(errs) / float64(count)
			}
		case m.Name == QPS:
			out[i] = float64(count) / float64(s.seconds)
		case total == 0:
			out[i] = 0
		default:
			out[i] = values[s.percentile(d, max(int64(ceilRank(m.P, total)), 1), len(values))]
		}
	}
}

// percentile returns the index of the value at rank (1 to the total) of
// the units of d merged, with hist.Percentile's rule: the lowest value at
// or below which rank latencies lie. A binary search over the values,
// each step counting through every drawn unit's cumulative distribution,
// finds it without merging the histograms.
func (s series) percentile(d draw, rank int64, nvalues int) int {
	lo, hi := int32(0), int32(nvalues-1)
	for lo < hi {
		m := int32(uint32(lo+hi) >> 1)
		var n int64
		for _, i := range d.drawn {
			n += d.times[i] * s.units[i].atOrBelow(m)
		}
		if n >= rank {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return int(lo)
}
