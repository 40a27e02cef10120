package httpapi

import (
	"fmt"

	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// scenarioOut maps a scenario run's result: its iterations and a row per
// step, named from the run's (redacted) spec.
func scenarioOut(run runs.Run, sc *runs.ScenarioResult) (*ScenarioResult, error) {
	it, err := runs.LatencyOf(sc.Iteration)
	if err != nil {
		return nil, fmt.Errorf("result of run %s: iteration: %w", run.ID, err)
	}
	out := &ScenarioResult{Started: sc.Started, Completed: sc.Completed, Failed: sc.Failed, Iteration: latencyOut(it), Steps: []StepResult{}}
	for i := range sc.Steps {
		s := &sc.Steps[i]
		o := StepResult{
			Index: s.Index, Name: fmt.Sprintf("step %d", s.Index), Count: s.Count, Errors: s.Errors, Skipped: s.Skipped,
			RetCodes: codesOf(s.RetCodes), FailedChecks: s.FailedChecks,
		}
		if o.FailedChecks == nil {
			o.FailedChecks = map[string]int64{}
		}
		if sp := run.Spec.Scenario; sp != nil && s.Index < len(sp.Steps) {
			o.Name = sp.Steps[s.Index].Name
		}
		if len(s.FailedExtractions) > 0 {
			m := s.FailedExtractions
			o.FailedExtractions = &m
		}
		if len(s.TransportErrors) > 0 {
			m := s.TransportErrors
			o.TransportErrors = &m
		}
		for _, k := range []struct {
			enc []byte
			dst *LatencySummary
		}{{s.Response, &o.Response}, {s.Service, &o.Service}, {s.Lag, &o.Lag}} {
			l, err := runs.LatencyOf(k.enc)
			if err != nil {
				return nil, fmt.Errorf("result of run %s step %d: %w", run.ID, s.Index, err)
			}
			*k.dst = latencyOut(l)
		}
		out.Steps = append(out.Steps, o)
	}
	return out, nil
}
