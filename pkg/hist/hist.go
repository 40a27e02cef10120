// Package hist records request latencies in an HdrHistogram with the one
// configuration every Barrage component shares (1 µs to 1 h, 3 significant
// figures), so that histograms from any number of agents, connections and
// intervals merge without loss.
//
// It provides the recording hot path (Record allocates nothing), summary
// figures and percentiles, a snapshot codec (the standard HdrHistogram V2
// compressed, base64 encoding) that rejects snapshots of any other
// configuration, and a read-only view shaped like Fortio's DurationHistogram
// JSON object for export.
//
// It is not a general-purpose histogram: the range and precision are fixed,
// values are latencies, and a Histogram is not safe for concurrent use (give
// each goroutine its own and merge them). It does not parse Fortio's JSON,
// whose fixed buckets cannot be merged losslessly.
package hist

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// The fixed histogram configuration. Every Histogram in Barrage uses it; a
// snapshot with any other configuration is rejected by Decode.
const (
	// LowestMicros is the lowest trackable value, in microseconds.
	LowestMicros int64 = 1
	// HighestMicros is the highest trackable value, in microseconds (1 h).
	HighestMicros int64 = 3_600_000_000
	// SignificantFigures is the number of significant decimal digits kept:
	// values are recorded with a relative error of at most 0.1 %.
	SignificantFigures = 3
)

// Histogram is a latency histogram with the fixed configuration (see
// LowestMicros, HighestMicros, SignificantFigures). Create one with New or
// Decode; the zero value is not ready for use. It is not safe for
// concurrent use.
//
// A decoded histogram starts as its non-empty slots only (sparse.go): the
// ingest and live paths decode thousands of snapshots a second to merge
// them or read their percentiles, and the full counts array (about 190 KB)
// is made only when the histogram is recorded into or merged into.
type Histogram struct {
	h *hdrhistogram.Histogram // nil while the histogram is only its bins
	// bins and total hold a decoded histogram's non-empty slots in
	// ascending order and their count, while h is nil.
	bins  []bin
	total int64
}

// Quantile is the value at percentile P (0 to 100) of a Histogram.
type Quantile struct {
	P     float64
	Value time.Duration
}

// New returns an empty Histogram.
func New() *Histogram {
	return &Histogram{h: hdrhistogram.New(LowestMicros, HighestMicros, SignificantFigures)}
}

// Record adds one latency, truncated to whole microseconds. Values below
// 1 µs (including zero and negative durations) are recorded as 1 µs and
// values above 1 h as 1 h. It does not allocate.
func (h *Histogram) Record(d time.Duration) {
	h.RecordMicros(int64(d / time.Microsecond))
}

// RecordMicros adds one latency of v microseconds, clamped to
// [LowestMicros, HighestMicros] like Record. It does not allocate.
func (h *Histogram) RecordMicros(v int64) {
	v = min(max(v, LowestMicros), HighestMicros)
	// Cannot fail: v is within the trackable range.
	_ = h.full().RecordValue(v)
}

// Reset removes every recorded value.
func (h *Histogram) Reset() {
	if h.h == nil {
		h.bins, h.total = nil, 0
		return
	}
	h.h.Reset()
}

// Merge adds every value recorded in other to h. The merge is lossless; it
// fails with ErrConfigMismatch if other somehow has a different
// configuration. Merging a nil Histogram is a no-op; h may be other.
func (h *Histogram) Merge(other *Histogram) error {
	if other == nil {
		return nil
	}
	if other.h == nil && h.h == nil { // both decoded: they stay slots
		h.bins, h.total = mergeBins(h.bins, other.bins), h.total+other.total
		if len(h.bins) > maxSparseBins {
			h.full()
		}
		return nil
	}
	if other.h == nil { // decoded: add its slots, not a walk of every slot
		addBins(h.full(), other.bins)
		return nil
	}
	if err := checkConfig(other.h); err != nil {
		return fmt.Errorf("merge histogram: %w", err)
	}
	src := other.h
	if other == h {
		src = hdrhistogram.Import(h.h.Export())
	}
	if dropped := h.full().Merge(src); dropped != 0 {
		return fmt.Errorf("merge histogram: %d values out of range: %w", dropped, ErrConfigMismatch)
	}
	return nil
}

// Count returns the number of recorded values.
func (h *Histogram) Count() int64 {
	if h.h == nil {
		return h.total
	}
	return h.h.TotalCount()
}

// Min returns the smallest recorded value (the lowest value equivalent to it
// at the histogram's precision), or 0 if the histogram is empty.
func (h *Histogram) Min() time.Duration {
	return micros(h.minMicros())
}

// Max returns the largest recorded value (the highest value equivalent to it
// at the histogram's precision), or 0 if the histogram is empty.
func (h *Histogram) Max() time.Duration {
	return micros(h.maxMicros())
}

// MeanMicros returns the mean of the recorded values in microseconds, or 0
// if the histogram is empty.
func (h *Histogram) MeanMicros() float64 {
	if h.h == nil {
		return h.sparseMean()
	}
	return h.h.Mean()
}

// StdDevMicros returns the population standard deviation of the recorded
// values in microseconds, or 0 if the histogram is empty.
func (h *Histogram) StdDevMicros() float64 {
	if h.h == nil {
		return h.sparseStdDev()
	}
	return h.h.StdDev()
}

// Mean returns the mean of the recorded values, rounded to the nanosecond,
// or 0 if the histogram is empty.
func (h *Histogram) Mean() time.Duration {
	return microsFloat(h.MeanMicros())
}

// StdDev returns the population standard deviation of the recorded values,
// rounded to the nanosecond, or 0 if the histogram is empty.
func (h *Histogram) StdDev() time.Duration {
	return microsFloat(h.StdDevMicros())
}

// Percentile returns the value at percentile p (0 to 100; clamped into that
// range, NaN counts as 0): the highest value equivalent to the smallest
// recorded value that at least p % of the values are less than or equal to.
// Percentile(0) equals Min and Percentile(100) equals Max. It returns 0 if
// the histogram is empty.
func (h *Histogram) Percentile(p float64) time.Duration {
	return h.Percentiles([]float64{p})[0].Value
}

// Percentiles returns the value at each of ps, in the order given, with the
// semantics of Percentile. It reads the histogram once, so prefer it to
// repeated Percentile calls.
func (h *Histogram) Percentiles(ps []float64) []Quantile {
	out := make([]Quantile, len(ps))
	d := h.distribution()
	for i, p := range ps {
		out[i] = Quantile{P: p, Value: micros(d.valueAt(p))}
	}
	return out
}

// ErrConfigMismatch reports a histogram or snapshot whose configuration
// differs from the fixed one.
var ErrConfigMismatch = errors.New("histogram configuration mismatch")

// checkConfig returns an error wrapping ErrConfigMismatch unless h has the
// fixed configuration.
func checkConfig(h *hdrhistogram.Histogram) error {
	lo, hi, sig := h.LowestTrackableValue(), h.HighestTrackableValue(), h.SignificantFigures()
	if lo != LowestMicros || hi != HighestMicros || sig != SignificantFigures {
		return fmt.Errorf("lowest %d, highest %d, %d significant figures (want %d, %d, %d): %w",
			lo, hi, sig, LowestMicros, HighestMicros, SignificantFigures, ErrConfigMismatch)
	}
	return nil
}

// micros converts whole microseconds to a Duration.
func micros(v int64) time.Duration {
	return time.Duration(v) * time.Microsecond
}

// microsFloat converts fractional microseconds to a Duration, rounding to
// the nanosecond.
func microsFloat(v float64) time.Duration {
	return time.Duration(math.Round(v * float64(time.Microsecond)))
}
