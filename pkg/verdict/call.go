package verdict

// Call is the word a latency change is read as, from the interval of its
// ratio (run over baseline): a higher latency is worse.
type Call string

// Calls of a latency ratio.
const (
	// Regression: the whole interval lies above 1, the run is slower.
	Regression Call = "regression"
	// Improvement: the whole interval lies below 1, the run is faster.
	Improvement Call = "improvement"
	// NoChange: the interval holds 1 and lies within the band around it:
	// any change there is smaller than the band.
	NoChange Call = "no_change"
	// Inconclusive: the interval holds 1 and reaches past the band: the
	// runs cannot tell.
	Inconclusive Call = "inconclusive"
)

// NoChangeBand is the relative change, either way, that CallLatency
// calls no change when the whole interval lies within it.
const NoChangeBand = 0.05

// CallLatency reads the ratio interval iv of a latency: regression when
// it lies wholly above 1 (as `p(N) < baseline @ conf` fails), improvement
// when wholly below, no change when it holds 1 within ±band, else
// inconclusive.
func CallLatency(iv Interval, band float64) Call {
	switch {
	case iv.Low > 1:
		return Regression
	case iv.High < 1:
		return Improvement
	case iv.Low >= 1-band && iv.High <= 1+band:
		return NoChange
	}
	return Inconclusive
}

// ErrorRateBand is the difference of error rates, either way (a fraction:
// 0.001 is 0.1 percentage point), that CallErrorRate calls no change when
// the whole interval lies within it.
const ErrorRateBand = 0.001

// CallQPS reads the ratio interval iv of the achieved rate (run over
// baseline): a lower rate is worse, so regression when it lies wholly
// below 1, improvement when wholly above, and otherwise as CallLatency.
func CallQPS(iv Interval, band float64) Call {
	// The reciprocal turns a rate into a time per request, read as a
	// latency; a bound of 0 becomes +Inf, as float division does.
	return CallLatency(Interval{Point: 1 / iv.Point, Low: 1 / iv.High, High: 1 / iv.Low}, band)
}

// CallErrorRate reads the interval iv of the difference of error rates
// (run minus baseline, as fractions): regression when it lies wholly
// above 0, improvement when wholly below, no change when it holds 0
// within ±band, else inconclusive.
func CallErrorRate(iv Interval, band float64) Call {
	switch {
	case iv.Low > 0:
		return Regression
	case iv.High < 0:
		return Improvement
	case iv.Low >= -band && iv.High <= band:
		return NoChange
	}
	return Inconclusive
}
