package runs

import (
	"context"
	"errors"
	"fmt"

	"github.com/barrage-dev/barrage/pkg/netguard"
	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/services/api/internal/apperr"
)

// checkSteps checks the target of every step of a scenario run as
// checkTarget checks a plain run's url: an Invalid error on
// spec.scenario.steps[i].url naming the refused target. The run's url
// names its target only for people (it defaults to the first step's
// origin) and is not dialed, so it is not checked.
func (tp TargetPolicy) checkSteps(ctx context.Context, g netguard.Guard, sp spec.Spec) error {
	checked := map[string]bool{}
	for i := range sp.Scenario.Steps {
		field := fmt.Sprintf("spec.scenario.steps[%d].url", i)
		_, addr, err := spec.StepTarget(sp.Scenario.Steps[i].URL)
		if err != nil { // Validate checked it
			return apperr.Invalidf(field, "%s", err.Error())
		}
		if checked[addr] {
			continue
		}
		checked[addr] = true
		err = g.CheckAddr(ctx, "tcp", addr)
		var refused *netguard.RefusedError
		switch {
		case err == nil:
		case errors.As(err, &refused):
			return apperr.Invalidf(field, "target %s refused: %s", addr, refused.Error())
		case ctx.Err() != nil:
			return fmt.Errorf("check target %s: %w", addr, err)
		default:
			return apperr.Invalidf(field, "target %s cannot be resolved: %s", addr, lookupFailure(err))
		}
	}
	return nil
}
