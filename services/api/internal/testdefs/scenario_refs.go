package testdefs

import (
	"fmt"
	"slices"
	"strings"

	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/pkg/threshold"
)

// scenarioRefs says why threshold e cannot judge a run of sp: it names a
// step (step("NAME")) or a check (checks("NAME")) that sp's scenario does
// not have, or sp is no scenario; "" when it can.
func scenarioRefs(sp spec.Spec, e threshold.Expr) string {
	if !e.Scoped() {
		return ""
	}
	if sp.Scenario == nil {
		return "step and checks thresholds judge a scenario's steps, and the spec has no scenario"
	}
	var steps, checks []string
	for i := range sp.Scenario.Steps {
		st := &sp.Scenario.Steps[i]
		steps = append(steps, st.Name)
		for j := range st.Checks {
			if name := st.Checks[j].Name; !slices.Contains(checks, name) {
				checks = append(checks, name)
			}
		}
	}
	switch {
	case e.Step != "" && !slices.Contains(steps, e.Step):
		return fmt.Sprintf("the scenario has no step named %q (its steps: %s)", e.Step, quoted(steps))
	case e.Stat == threshold.Checks && !slices.Contains(checks, e.Check):
		if len(checks) == 0 {
			return fmt.Sprintf("the scenario has no check named %q: its steps have no checks", e.Check)
		}
		return fmt.Sprintf("the scenario has no check named %q (its checks: %s)", e.Check, quoted(checks))
	}
	return ""
}

// quoted lists names as "a", "b".
func quoted(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}
