package ingest

import (
	"fmt"
	"math"

	"github.com/barrage-dev/barrage/pkg/hist"
	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/pkg/threshold"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

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
	}
	return runs.Mismatch(run, base, "the baseline run")
}
