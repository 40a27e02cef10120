package hist

import (
	"math"
	"sort"
)

// Layout of the counts array for the fixed configuration, as hdrhistogram-go
// (and every HdrHistogram implementation) computes it: a lowest value of 1
// gives a unit magnitude of 0; 3 significant figures need single-unit
// resolution up to 2000, hence 2048 sub-buckets per bucket, the upper half of
// which (1024) is new in each following bucket; 22 buckets reach 1 h.
// TestLayout checks these against the library.
const (
	subBucketHalfCountMagnitude = 10
	subBucketHalfCount          = 1 << subBucketHalfCountMagnitude
	bucketCount                 = 22
	countsLen                   = (bucketCount + 1) * subBucketHalfCount
)

// bin is one non-empty counts slot: the values lo..hi (inclusive, in
// microseconds) are equivalent at the histogram's precision.
type bin struct {
	slot          int // its index in the counts array
	lo, hi, count int64
}

// distribution is the non-empty bins of a histogram in ascending order, with
// cumulative counts.
type distribution struct {
	bins  []bin
	cum   []int64 // cum[i] is the total count of bins[0..i]
	total int64
}

// distribution reads the histogram's counts once. It copies the counts
// array (about 190 KB) unless the histogram is still only its decoded bins,
// so it belongs on reporting paths, not hot ones.
func (h *Histogram) distribution() distribution {
	if h.h == nil {
		d := distribution{bins: h.bins, cum: make([]int64, len(h.bins))}
		for i, b := range h.bins {
			d.total += b.count
			d.cum[i] = d.total
		}
		return d
	}
	counts := h.h.Export().Counts
	var d distribution
	for i, c := range counts {
		if c <= 0 {
			continue
		}
		lo, hi := slotRange(i)
		d.total += c
		d.bins = append(d.bins, bin{slot: i, lo: lo, hi: hi, count: c})
		d.cum = append(d.cum, d.total)
	}
	return d
}

// slotRange returns the range of values, in microseconds, counted in slot i
// of the counts array.
func slotRange(i int) (lo, hi int64) {
	bucket := (i >> subBucketHalfCountMagnitude) - 1
	sub := (i & (subBucketHalfCount - 1)) + subBucketHalfCount
	if bucket < 0 {
		sub -= subBucketHalfCount
		bucket = 0
	}
	lo = int64(sub) << bucket
	return lo, lo + (int64(1) << bucket) - 1
}

// slotValue is the lowest value counted in slot i.
func slotValue(i int) int64 {
	lo, _ := slotRange(i)
	return lo
}

// valueAt returns the value, in microseconds, at percentile p with
// HdrHistogram's (Java) semantics: the bin holding the ceil(p% of total)-th
// value, at least the first; its lowest value for p = 0, else its highest.
// hdrhistogram-go's own ValueAtPercentile rounds the rank to nearest and
// lets it reach 0, which returns 0 (below Min) for p = 0 and small p.
func (d distribution) valueAt(p float64) int64 {
	if d.total == 0 {
		return 0
	}
	if !(p > 0) { // also NaN
		return d.bins[0].lo
	}
	p = min(p, 100)
	// Step one ulp down so that a product that should be an integer but
	// lands just above it does not skip to the next rank.
	req := math.Nextafter(p, math.Inf(-1))
	rank := max(int64(math.Ceil(req/100*float64(d.total))), 1)
	i := sort.Search(len(d.cum), func(i int) bool { return d.cum[i] >= rank })
	i = min(i, len(d.bins)-1)
	return d.bins[i].hi
}

// CountsAtOrBelow returns, for each bound (microseconds, ascending), how
// many values are at or below it: a value counts by the highest value
// equivalent to it at the histogram's precision, as Percentile reports
// it, so the bucket of Percentile(p) is the first bound at or above it.
// Classic Prometheus histogram buckets (cumulative counts per le) are
// made this way.
func (h *Histogram) CountsAtOrBelow(bounds []int64) []int64 {
	d := h.distribution()
	out := make([]int64, len(bounds))
	i := 0
	var below int64
	for j, b := range bounds {
		for i < len(d.bins) && d.bins[i].hi <= b {
			below = d.cum[i]
			i++
		}
		out[j] = below
	}
	return out
}
