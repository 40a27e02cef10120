package ingest

import (
	"fmt"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/pkg/hist"
	"github.com/barrage-dev/barrage/pkg/threshold"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// Outcome errors of baseline forms without a baseline run.
const (
	noBaselineTest = "no baseline: the run has no test"
	noBaselineRun  = "no baseline: the test has no earlier passing run"
	noBaselineGone = "no baseline: the requested baseline run is gone"
)

// judge evaluates the run's thresholds on its merged result and sets f's
// outcomes, baseline and verdict. A canceled run is not judged; a failed
// one is judged error without outcomes.
func judge(st runs.Settlement, m *merged, f *runs.Finish) {
	if f.Status == runs.Completed {
		obs := m.observed(st.Run.Spec.PeakQPS() > 0, f.Summary)
		obs.Warmup = warmup(st.Run.Spec)
		obs.Steps, obs.Checks = stepsObserved(m.scenario, st.Run.Spec.Scenario, obs.Primary)
		var secErr error
		if threshold.NeedsSeconds(st.Run.Thresholds) && st.Baseline != nil {
			obs.Seconds, secErr = secondsObserved(st.Seconds)
		}
		f.Thresholds, f.BaselineRunID, f.BaselinePool = evaluate(st, obs, secErr)
	}
	if by := st.Run.AbortedBy; by != "" {
		markAborted(f.Thresholds, by)
	}
	f.Verdict = runs.Judge(f.Status, f.Degraded && !st.Run.AllowPartial, f.Thresholds)
	if f.Verdict != "" && f.Result != nil {
		f.VerdictNote = limitedNote(f.Result.GeneratorLimitedSeconds, f.Result.Duration)
	}
}

// markAborted fails the outcome of the abort threshold that stopped the
// run, whatever the whole run shows: the run was cut short because of it
// (the run's error says what was observed then).
func markAborted(outcomes []threshold.Outcome, by string) {
	for i := range outcomes {
		if outcomes[i].Expression == by {
			outcomes[i].Pass = false
		}
	}
}

// evaluate returns the outcome of each threshold of st.Run (never nil),
// the baseline run when one was used, and what was pooled when the run
// asked for its test's last N passing runs. secErr is why the run's seconds could
// not be read: confidence forms then cannot be evaluated.
func evaluate(st runs.Settlement, obs threshold.Observed, secErr error) ([]threshold.Outcome, uuid.UUID, *runs.BaselinePool) {
	out := make([]threshold.Outcome, 0, len(st.Run.Thresholds))
	var (
		base    *threshold.Observed
		baseErr string
		baseID  uuid.UUID
		pool    *runs.BaselinePool
		used    bool
	)
	switch {
	case st.Baseline == nil && st.Run.BaselineRequest != uuid.Nil:
		baseErr = noBaselineGone
	case st.Baseline == nil && st.Run.TestID == uuid.Nil:
		baseErr = noBaselineTest
	case st.Baseline == nil:
		baseErr = noBaselineRun
	default:
		b, id, p, err := baselineFor(st)
		if err == nil && secErr != nil {
			err = secErr
		}
		if err != nil {
			baseErr = "baseline: " + err.Error()
		} else {
			base, baseID, pool = &b, id, p
		}
	}
	for _, text := range st.Run.Thresholds {
		e, err := threshold.Parse(text)
		if err != nil { // stored before expressions were checked
			out = append(out, threshold.Outcome{Expression: text, Error: "invalid expression " + err.Error()})
			continue
		}
		o := e.Eval(obs, base)
		if e.Baseline {
			used = true
			if o.Error == threshold.ErrNoBaseline {
				o.Error = baseErr
			}
		}
		out = append(out, o)
	}
	if !used {
		baseID, pool = uuid.Nil, nil
	}
	return out, baseID, pool
}

// observed returns the merged result as thresholds see it, with the
// summary's rate.
func (m *merged) observed(open bool, sm *runs.Summary) threshold.Observed {
	obs := threshold.Observed{
		Count: m.count, Errors: m.errors, Codes: m.codes,
		Response: m.lat[response], Service: m.lat[service], Lag: m.lat[lag], Primary: threshold.Service,
	}
	if open {
		obs.Primary = threshold.Response
	}
	if sm != nil {
		obs.QPS = sm.QPS
	}
	return obs
}

// baselineObserved decodes a baseline run's stored result.
func baselineObserved(b *runs.Baseline) (threshold.Observed, error) {
	r := b.Result
	obs := threshold.Observed{Count: r.Count, Errors: r.Errors, Codes: r.RetCodes, Primary: threshold.Service}
	if b.Run.Spec.PeakQPS() > 0 {
		obs.Primary = threshold.Response
	}
	if b.Run.Summary != nil {
		obs.QPS = b.Run.Summary.QPS
	} else if r.Duration > 0 {
		obs.QPS = float64(r.Count) / r.Duration.Seconds()
	}
	if len(b.Seconds) > 0 {
		s, err := secondsObserved(b.Seconds)
		if err != nil {
			return threshold.Observed{}, err
		}
		obs.Seconds, obs.Warmup = s, warmup(b.Run.Spec)
	}
	for _, x := range []struct {
		enc []byte
		dst **hist.Histogram
	}{{r.Response, &obs.Response}, {r.Service, &obs.Service}, {r.Lag, &obs.Lag}} {
		if len(x.enc) == 0 {
			continue
		}
		h, err := hist.Decode(x.enc)
		if err != nil {
			return threshold.Observed{}, fmt.Errorf("decode histogram of run %s: %w", b.Run.ID, err)
		}
		*x.dst = h
	}
	return obs, nil
}
