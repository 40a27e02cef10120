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
