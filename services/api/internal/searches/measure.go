package searches

import (
	"fmt"
	"time"

	"github.com/barrage-dev/barrage/pkg/hist"
	"github.com/barrage-dev/barrage/pkg/threshold"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// window is the seconds of a step's run that count: [from, from+n).
type window struct{ from, n int }

// merge adds up the intervals of w, the per-second rows merged across all
// the run's shards, into what the objective is judged on. Response time is
// the primary latency: steps are open-loop, so it counts the wait of a late
// request (coordinated omission corrected).
func merge(ivs []runs.Interval, w window) (threshold.Observed, error) {
	obs := threshold.Observed{
		Codes: map[string]int64{}, Primary: threshold.Response,
		Response: hist.New(), Service: hist.New(), Lag: hist.New(),
	}
	for i := range ivs {
		iv := &ivs[i]
		if iv.Second < w.from || iv.Second >= w.from+w.n {
			continue
		}
		obs.Count += iv.Count
		obs.Errors += iv.Errors
		for code, n := range iv.RetCodes {
			obs.Codes[code] += n
		}
		for _, x := range []struct {
			enc []byte
			dst *hist.Histogram
		}{{iv.Response, obs.Response}, {iv.Service, obs.Service}, {iv.Lag, obs.Lag}} {
			if len(x.enc) == 0 {
				continue
			}
			h, err := hist.Decode(x.enc)
			if err != nil {
				return obs, fmt.Errorf("second %d: %w", iv.Second, err)
			}
			if err := x.dst.Merge(h); err != nil {
				return obs, fmt.Errorf("second %d: %w", iv.Second, err)
			}
		}
	}
	if w.n > 0 {
		obs.QPS = float64(obs.Count) / float64(w.n)
	}
	return obs, nil
}

// judge fills the figures and verdict of st from obs and the objective.
func judge(st *Step, obs threshold.Observed, terms []threshold.Expr) {
	st.Count, st.Errors, st.AchievedQPS = obs.Count, obs.Errors, obs.QPS
	r := obs.Response
	if r.Count() > 0 {
		q := r.Percentiles([]float64{50, 90, 99})
		st.P50US, st.P90US, st.P99US = us(q[0].Value), us(q[1].Value), us(q[2].Value)
		st.MaxUS = us(r.Max())
	}
	st.Outcomes = make([]threshold.Outcome, len(terms))
	pass := obs.Count > 0
	for i := range terms {
		st.Outcomes[i] = terms[i].Eval(obs, nil)
		pass = pass && st.Outcomes[i].Pass
	}
	st.Status = StepPassed
	switch {
	case obs.Count == 0:
		st.Status, st.Detail = StepFailed, "no request completed in the measured seconds"
	case !pass:
		st.Status, st.Detail = StepFailed, failedTerms(st.Outcomes)
	}
}

func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
