package hist

// FortioHistogram is a Histogram in the shape of Fortio's DurationHistogram
// JSON object (fortio.org/fortio/stats.HistogramData). Keys are the Go field
// names, as in Fortio; every value is in seconds. It is a lossy view for
// export and display: keep the Histogram (or its snapshot) for merging.
type FortioHistogram struct {
	// Count is the number of recorded values.
	Count int64
	// Min is the smallest recorded value.
	Min float64
	// Max is the largest recorded value.
	Max float64
	// Sum is the sum of the recorded values (Avg × Count; HdrHistogram
	// does not keep an exact sum).
	Sum float64
	// Avg is the mean of the recorded values.
	Avg float64
	// StdDev is the population standard deviation of the recorded values.
	StdDev float64
	// Data holds the non-empty buckets in ascending order (empty, not
	// null, when Count is 0).
	Data []FortioBucket
	// Percentiles holds the requested percentiles, computed from the
	// HdrHistogram rather than interpolated from Data as Fortio does;
	// omitted when none were requested or Count is 0, as in Fortio.
	Percentiles []FortioPercentile `json:",omitempty"`
}

// FortioBucket is one bucket of a FortioHistogram: Count values in
// (Start, End], seconds (the first bucket includes Start, which is Min).
type FortioBucket struct {
	// Start is the bucket's lower boundary, or Min for the first bucket.
	Start float64
	// End is the bucket's upper boundary, or Max for the last bucket.
	End float64
	// Percent is the cumulative percentage of values up to this bucket's
	// end; 100 for the last bucket.
	Percent float64
	// Count is the number of values in the bucket.
	Count int64
}

// FortioPercentile is the value, in seconds, at one percentile.
type FortioPercentile struct {
	// Percentile is the requested percentile, 0 to 100.
	Percentile float64
	// Value is the value at Percentile, in seconds.
	Value float64
}

// fortioBoundaryCount is the number of bucket boundaries; a view has at most
// one more bucket than that.
const fortioBoundaryCount = 70

// fortioBoundaries returns the upper boundaries, in microseconds, of the
// view's buckets (the last bucket, above the last boundary, ends at Max).
// From 1 ms to 100 s they are exactly Fortio's own boundaries, so the two
// tools' buckets line up there; below 1 ms, where Fortio has a single
// bucket, they step by 100 µs down to 100 µs and then 50, 20, 10 µs; above
// 100 s they are 5, 10 and 30 minutes. Values are assigned to the bucket
// whose range (previous boundary, boundary] holds the lowest value of their
// HdrHistogram bin, which is exact below 2.048 ms.
func fortioBoundaries() [fortioBoundaryCount]int64 {
	const ms, s = 1000, 1_000_000
	return [...]int64{
		10, 20, 50, 100, 200, 300, 400, 500, 600, 700, 800, 900,
		1 * ms, 2 * ms, 3 * ms, 4 * ms, 5 * ms, 6 * ms, 7 * ms, 8 * ms, 9 * ms, 10 * ms, 11 * ms,
		12 * ms, 14 * ms, 16 * ms, 18 * ms, 20 * ms,
		25 * ms, 30 * ms, 35 * ms, 40 * ms, 45 * ms, 50 * ms,
		60 * ms, 70 * ms, 80 * ms, 90 * ms, 100 * ms,
		120 * ms, 140 * ms, 160 * ms, 180 * ms, 200 * ms,
		250 * ms, 300 * ms, 350 * ms, 400 * ms, 450 * ms, 500 * ms,
		600 * ms, 700 * ms, 800 * ms, 900 * ms, 1000 * ms,
		2 * s, 3 * s, 4 * s, 5 * s, 7500 * ms, 10 * s,
		20 * s, 30 * s, 40 * s, 50 * s, 75 * s, 100 * s,
		300 * s, 600 * s, 1800 * s,
	}
}

// Fortio returns the Fortio-shaped view of h with the given percentiles
// (0 to 100, e.g. 50, 75, 90, 99, 99.9).
func (h *Histogram) Fortio(percentiles []float64) FortioHistogram {
	d := h.distribution()
	count := h.Count()
	mean := h.MeanMicros()
	f := FortioHistogram{
		Count:  count,
		Min:    seconds(h.minMicros()),
		Max:    seconds(h.maxMicros()),
		Sum:    mean * float64(count) / 1e6,
		Avg:    mean / 1e6,
		StdDev: h.StdDevMicros() / 1e6,
		Data:   fortioBuckets(d),
	}
	if count == 0 {
		return f
	}
	if len(percentiles) > 0 {
		f.Percentiles = make([]FortioPercentile, len(percentiles))
		for i, p := range percentiles {
			f.Percentiles[i] = FortioPercentile{Percentile: p, Value: seconds(d.valueAt(p))}
		}
	}
	return f
}

// fortioBuckets groups the distribution's bins into the fixed buckets,
// omitting empty ones.
func fortioBuckets(d distribution) []FortioBucket {
	out := []FortioBucket{}
	if d.total == 0 {
		return out
	}
	bounds := fortioBoundaries()
	var cum int64
	for i, k := 0, 0; i < len(d.bins); {
		for k < len(bounds) && d.bins[i].lo > bounds[k] {
			k++
		}
		b := FortioBucket{Start: seconds(d.bins[i].lo)}
		if len(out) > 0 {
			b.Start = seconds(bounds[k-1])
		}
		for ; i < len(d.bins) && (k == len(bounds) || d.bins[i].lo <= bounds[k]); i++ {
			b.Count += d.bins[i].count
		}
		cum += b.Count
		b.Percent = 100 * float64(cum) / float64(d.total)
		if i < len(d.bins) {
			b.End = seconds(bounds[k])
		} else {
			b.End = seconds(d.bins[len(d.bins)-1].hi)
			b.Percent = 100
		}
		out = append(out, b)
	}
	return out
}

// seconds converts microseconds to seconds.
func seconds(us int64) float64 {
	return float64(us) / 1e6
}
