package verdict

import (
	"cmp"
	"fmt"
	"math"
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
// histogram as (value index, count) pairs over the comparison's values.
type unit struct {
	count, errors int64
	slots         []slot
}

type slot struct {
	idx int
	n   int64
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
	switch {
	case len(rs) < MinSeconds:
		return Comparison{}, fmt.Errorf("the run has %d measured seconds, at least %d needed: %w", len(rs), MinSeconds, ErrTooShort)
	case len(bs) < MinSeconds:
		return Comparison{}, fmt.Errorf("the baseline has %d measured seconds, at least %d needed: %w", len(bs), MinSeconds, ErrTooShort)
	}
	rb, bb := binsOf(rs), binsOf(bs)
	values, index := valueIndex(rb, bb)
	r, b := prepare(rs, rb, index, o.Block), prepare(bs, bb, index, o.Block)
	c := Comparison{RunSeconds: len(rs), BaseSeconds: len(bs), Block: r.block}
	metrics := make([]Metric, 0, len(o.Percentiles)+2)
	for _, p := range o.Percentiles {
		metrics = append(metrics, Metric{Name: "p(" + formatP(p) + ")", P: p})
	}
	metrics = append(metrics, Metric{Name: ErrorRate, P: -1}, Metric{Name: QPS, P: -1})
	c.Estimates = make([]Estimate, len(metrics))
	widen := widening(min(blocks(r), blocks(b)))
	rp, bp := r.stats(r.all(), values, metrics), b.stats(b.all(), values, metrics)
	for i, m := range metrics {
		c.Estimates[i] = Estimate{
			Metric: m, Run: rp[i], Base: bp[i], seconds: min(len(rs), len(bs)), widen: widen,
			runB: make([]float64, o.Resamples), baseB: make([]float64, o.Resamples),
		}
	}
	rng := rand.New(rand.NewPCG(o.Seed, o.Seed^0x9e3779b97f4a7c15)) //nolint:gosec // a seeded statistical resampler must be reproducible, not secret
	pick := make([]int, 0, max(len(r.units), len(b.units)))
	for k := range o.Resamples {
		rv := r.stats(r.resample(rng, pick[:0]), values, metrics)
		bv := b.stats(b.resample(rng, pick[:0]), values, metrics)
		for i := range metrics {
			c.Estimates[i].runB[k], c.Estimates[i].baseB[k] = rv[i], bv[i]
		}
	}
	return c, nil
}

// formatP writes a percentile as the threshold grammar does: 99, 99.9.
func formatP(p float64) string { return strconv.FormatFloat(p, 'f', -1, 64) }

// blocks returns the number of blocks a resample of s is drawn in.
func blocks(s series) float64 { return float64(len(s.units)) / float64(s.block) }

// widening returns the factor a percentile interval from b blocks is
// widened by: sqrt(b/(b-2)), the standard deviation of Student's t with b
// degrees of freedom over the normal's. With few blocks a bootstrap
// interval is too narrow (it cannot see the variation between blocks it
// never drew); the factor is 1.58 for the 3.3 blocks of a 10 s run, 1.12
// at 60 s, and tends to 1. TestCampaignAA measures the coverage it gives.
func widening(b float64) float64 {
	b = max(b, 3)
	return math.Sqrt(b / (b - 2))
}

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
// and picks the block length in units.
func prepare(s []Second, bins [][]hist.Bin, index map[int64]int, block int) series {
	per := (len(s) + MaxUnits - 1) / MaxUnits
	out := series{seconds: len(s)}
	for at := 0; at < len(s); at += per {
		var u unit
		counts := map[int]int64{}
		for i := at; i < min(at+per, len(s)); i++ {
			u.count += s[i].Count
			u.errors += s[i].Errors
			for _, b := range bins[i] {
				counts[index[b.Hi]] += b.Count
			}
		}
		for idx, n := range counts {
			u.slots = append(u.slots, slot{idx: idx, n: n})
		}
		out.units = append(out.units, u)
	}
	out.block = block
	if out.block == 0 {
		out.block = BlockLength(len(out.units))
	}
	out.block = min(out.block, len(out.units))
	return out
}

// all returns every unit once, in order.
func (s series) all() []int {
	out := make([]int, len(s.units))
	for i := range out {
		out[i] = i
	}
	return out
}

// resample draws a circular block bootstrap sample of the units into
// pick: blocks of s.block consecutive units (wrapping from the last to the
// first) starting at uniform random units, until there are as many units
// as the run has.
func (s series) resample(rng *rand.Rand, pick []int) []int {
	n := len(s.units)
	for len(pick) < n {
		start := rng.IntN(n)
		for j := 0; j < s.block && len(pick) < n; j++ {
			pick = append(pick, (start+j)%n)
		}
	}
	return pick
}

// stats computes each metric on the units picked: latency percentiles
// over their merged histograms, the error rate, and qps as requests per
// measured second.
func (s series) stats(pick []int, values []float64, metrics []Metric) []float64 {
	counts := make([]int64, len(values))
	var total, count, errs int64
	for _, i := range pick {
		u := s.units[i]
		count += u.count
		errs += u.errors
		for _, sl := range u.slots {
			counts[sl.idx] += sl.n
			total += sl.n
		}
	}
	out := make([]float64, len(metrics))
	for i, m := range metrics {
		switch m.Name {
		case ErrorRate:
			if count > 0 {
				out[i] = float64(errs) / float64(count)
			}
		case QPS:
			out[i] = float64(count) / float64(s.seconds)
		}
	}
	percentiles(counts, total, values, metrics, out)
	return out
}

// percentiles sets out[i] to the value at metrics[i].P of the
// distribution counts over values for every latency metric, with
// hist.Percentile's rank rule (the ceil(p% of total)-th value, at least the
// first), in one pass over counts; 0 when empty.
func percentiles(counts []int64, total int64, values []float64, metrics []Metric, out []float64) {
	if total == 0 {
		return
	}
	type want struct {
		rank int64
		i    int
	}
	var ws []want
	for i, m := range metrics {
		if m.P >= 0 {
			ws = append(ws, want{rank: max(int64(ceilRank(m.P, total)), 1), i: i})
		}
	}
	slices.SortFunc(ws, func(a, b want) int { return cmp.Compare(a.rank, b.rank) })
	var cum int64
	k := 0
	for v, c := range counts {
		cum += c
		for k < len(ws) && cum >= ws[k].rank {
			out[ws[k].i] = values[v]
			k++
		}
	}
	for ; k < len(ws); k++ {
		out[ws[k].i] = values[len(values)-1]
	}
}
