package hist

import (
	"math"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// full returns the library histogram, first making it from the decoded
// bins when the histogram is still only those.
func (h *Histogram) full() *hdrhistogram.Histogram {
	if h.h != nil {
		return h.h
	}
	full := hdrhistogram.New(LowestMicros, HighestMicros, SignificantFigures)
	addBins(full, h.bins)
	h.h, h.bins, h.total = full, nil, 0
	return full
}

// addBins adds the counts of the slots bins to the library histogram dst.
func addBins(dst *hdrhistogram.Histogram, bins []bin) {
	for _, b := range bins {
		// Cannot fail: b.lo is a slot's value, within the range.
		_ = dst.RecordValues(b.lo, b.count)
	}
}

// The figures below read the decoded bins as hdrhistogram-go reads its
// counts array, so a decoded histogram reports exactly what the library
// would after decoding it (TestSparseMatchesTheLibrary): the minimum is
// the lowest value of the first slot, the maximum the highest value of
// the last, and the mean and standard deviation weigh each slot's median
// value (its lowest plus half its width) by its count.

// minMicros is Min in microseconds.
func (h *Histogram) minMicros() int64 {
	if h.h != nil {
		return h.h.Min()
	}
	if len(h.bins) == 0 {
		return 0
	}
	return h.bins[0].lo
}

// maxMicros is Max in microseconds.
func (h *Histogram) maxMicros() int64 {
	if h.h != nil {
		return h.h.Max()
	}
	if len(h.bins) == 0 {
		return 0
	}
	return h.bins[len(h.bins)-1].hi
}

// median is the value hdrhistogram-go takes for every value of slot b.
func (b bin) median() int64 {
	return b.lo + (b.hi-b.lo+1)>>1
}

// sparseMean is MeanMicros over the decoded bins.
func (h *Histogram) sparseMean() float64 {
	if h.total == 0 {
		return 0
	}
	var sum int64
	for _, b := range h.bins {
		sum += b.count * b.median()
	}
	return float64(sum) / float64(h.total)
}

// sparseStdDev is StdDevMicros over the decoded bins.
func (h *Histogram) sparseStdDev() float64 {
	if h.total == 0 {
		return 0
	}
	mean := h.sparseMean()
	var dev2 float64
	for _, b := range h.bins {
		d := float64(b.median()) - mean
		dev2 += d * d * float64(b.count)
	}
	return math.Sqrt(dev2 / float64(h.total))
}

// mergeBins returns the slots of a and b (each ascending) added together,
// in a new slice.
func mergeBins(a, b []bin) []bin {
	out := make([]bin, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i].slot < b[j].slot:
			out = append(out, a[i])
			i++
		case a[i].slot > b[j].slot:
			out = append(out, b[j])
			j++
		default:
			m := a[i]
			m.count += b[j].count
			out = append(out, m)
			i++
			j++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}
