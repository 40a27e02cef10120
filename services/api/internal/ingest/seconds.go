package ingest

import (
	"fmt"
	"math"

	"github.com/barrage-dev/barrage/pkg/hist"
	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/pkg/threshold"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// rateTolerance is how far apart, relatively, the rates of a run and its
// baseline may be for a confidence form to compare them.
const rateTolerance = 0.01

// secondsObserved decodes stored seconds for confidence forms.
func secondsObserved(ivs []runs.Interval) ([]threshold.Second, error) {
	out := make([]threshold.Second, len(ivs))
	for i := range ivs {
		iv := &ivs[i]
		s := threshold.Second{Count: iv.Count, Errors: iv.Errors}
		for _, x := range []struct {
			enc []byte
			dst **hist.Histogram
		}{{iv.Response, &s.Response}, {iv.Service, &s.Service}, {iv.Lag, &s.Lag}} {
			if len(x.enc) == 0 {
				continue
			}
			h, err := hist.Decode(x.enc)
			if err != nil {
				return nil, fmt.Errorf("decode second %d of run %s: %w", iv.Second, iv.RunID, err)
			}
			*x.dst = h
		}
		out[i] = s
	}
	return out, nil
}

// warmup is the seconds of a run's ramp, left out of its comparison.
func warmup(s spec.Spec) int {
	if s.Ramp == nil {
		return 0
	}
	return int(math.Ceil(s.Ramp.Over.Std().Seconds()))
}

// incomparable says why a confidence form cannot compare run with
// baseline base, or "" when it can: docs/verdicts.md states the
// assumptions (same rate, same protocol, a constant rate, a whole run).
func incomparable(run, base runs.Run) string {
	switch {
	case base.Degraded:
		return "the baseline run is degraded (it lost a shard): compare with a whole run"
	case base.Status != runs.Completed:
		return fmt.Sprintf("the baseline run is %s, not completed", base.Status)
	case run.Spec.Protocol() != base.Spec.Protocol():
		return fmt.Sprintf("the baseline run used %s, this run %s", protocolName(base.Spec), protocolName(run.Spec))
	case len(run.Spec.Stages) > 0 || len(base.Spec.Stages) > 0:
		return "a stepped load shape (stages) has no single rate to compare at"
	}
	r, b := run.Spec.PeakQPS(), base.Spec.PeakQPS()
	if (r == 0) != (b == 0) || (r > 0 && math.Abs(r-b) > rateTolerance*b) {
		return fmt.Sprintf("the baseline run asked for %s, this run %s: compare runs at the same rate", rateName(b), rateName(r))
	}
	return ""
}

func protocolName(s spec.Spec) string {
	if p := s.Protocol(); p != spec.ProtocolUnknown {
		return string(p)
	}
	return "an unknown protocol"
}

func rateName(qps float64) string {
	if qps == 0 {
		return "no set rate (as fast as it can)"
	}
	return fmt.Sprintf("%g qps", qps)
}
