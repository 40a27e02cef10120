package searches

import "math"

// strategy chooses the rate of each step: an exponential probe that
// doubles from min until a rate fails or max passes, then a binary search
// between the highest passing rate and the lowest failing one until they
// are within the resolution (a fraction of the passing rate).
type strategy struct {
	min, max, resolution float64
	// pass is the highest passing rate (0: none), fail the lowest failing
	// one (+Inf: none).
	pass, fail float64
}

func newStrategy(minQPS, maxQPS, resolution float64) *strategy {
	return &strategy{min: minQPS, max: maxQPS, resolution: resolution, fail: math.Inf(1)}
}

// first is the rate of the first step.
func (s *strategy) first() float64 { return s.min }

// record takes the verdict of a step at qps and returns the next rate, or
// done with the outcome.
func (s *strategy) record(qps float64, passed bool) (next float64, done bool, out Outcome) {
	if passed {
		s.pass = math.Max(s.pass, qps)
	} else {
		s.fail = math.Min(s.fail, qps)
	}
	switch {
	case s.fail <= s.min:
		return 0, true, NotMet
	case math.IsInf(s.fail, 1) && s.pass >= s.max:
		return 0, true, AboveMax
	case math.IsInf(s.fail, 1):
		return math.Min(s.pass*2, s.max), false, ""
	case s.fail-s.pass <= s.resolution*s.pass:
		return 0, true, Found
	}
	return roundQPS((s.pass + s.fail) / 2), false, ""
}

// roundQPS keeps two decimals, so rates read well and repeat exactly.
func roundQPS(v float64) float64 { return math.Round(v*100) / 100 }
