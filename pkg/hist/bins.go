package hist

// Bin is one non-empty slot of a histogram: Count values from Lo to Hi
// microseconds (inclusive), which are equivalent at its precision.
type Bin struct {
	Lo, Hi, Count int64
}

// Bins returns the histogram's non-empty slots in ascending order. Like
// Percentiles it reads the whole counts array, so it belongs on reporting
// and analysis paths (pkg/verdict resamples seconds from them).
func (h *Histogram) Bins() []Bin {
	d := h.distribution()
	out := make([]Bin, len(d.bins))
	for i, b := range d.bins {
		out[i] = Bin{Lo: b.lo, Hi: b.hi, Count: b.count}
	}
	return out
}
