package ingest

import (
	"github.com/barrage-dev/barrage/pkg/scenario"
	"github.com/barrage-dev/barrage/pkg/threshold"
)

// stepsObserved returns a scenario run's steps as thresholds see them, by
// the names sc gives their indexes, each with primary as its primary
// latency, and the run's checks by name: a check is evaluated on each
// response of each step that has it (every request but those without a
// response), and failed as the step counted. nil and nil for a run
// without a scenario.
func stepsObserved(p *scenarioPart, sc *scenario.Scenario, primary threshold.Kind) (map[string]*threshold.Observed, map[string]threshold.CheckCount) {
	if p == nil || sc == nil {
		return nil, nil
	}
	steps, checks := map[string]*threshold.Observed{}, map[string]threshold.CheckCount{}
	for i := range sc.Steps {
		def, s := &sc.Steps[i], p.steps[i]
		if s == nil {
			continue
		}
		steps[def.Name] = &threshold.Observed{
			Count: s.count, Errors: s.errors, Codes: s.codes, Primary: primary,
			Response: s.lat[response], Service: s.lat[service], Lag: s.lat[lag],
		}
		answered := s.count
		for _, n := range s.transport {
			answered -= n
		}
		seen := map[string]bool{}
		for j := range def.Checks {
			c := &def.Checks[j]
			if seen[c.Name] { // two checks of one name on a step count as one
				continue
			}
			seen[c.Name] = true
			cc := checks[c.Name]
			cc.Evaluated += answered
			cc.Failed += s.checks[c.Name]
			checks[c.Name] = cc
		}
	}
	return steps, checks
}
