package cli

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/barrage-dev/barrage/services/api/client"
)

// formatSteps renders a scenario run's iterations and a row per step
// (docs/scenarios.md); "" for other runs.
func formatSteps(res *client.RunResult) string {
	if res == nil || res.Scenario == nil {
		return ""
	}
	sc := res.Scenario
	var b strings.Builder
	fmt.Fprintf(&b, "  iterations %d started, %d completed, %d failed  duration p50 %s  p90 %s  p99 %s\n",
		sc.Started, sc.Completed, sc.Failed, formatMicros(sc.Iteration.P50Us), formatMicros(sc.Iteration.P90Us), formatMicros(sc.Iteration.P99Us))
	fmt.Fprintf(&b, "  %-20s %8s %8s %8s  %s\n", "step", "count", "errors", "skipped", "response time")
	for i := range sc.Steps {
		s := &sc.Steps[i]
		fmt.Fprintf(&b, "  %-20s %8d %8d %8d  p50 %s  p90 %s  p99 %s\n", s.Name, s.Count, s.Errors, s.Skipped,
			formatMicros(s.Response.P50Us), formatMicros(s.Response.P90Us), formatMicros(s.Response.P99Us))
		writeStepCounts(&b, "failed check", s.FailedChecks)
		if s.FailedExtractions != nil {
			writeStepCounts(&b, "failed extraction", *s.FailedExtractions)
		}
		if s.TransportErrors != nil {
			writeStepCounts(&b, "no response", *s.TransportErrors)
		}
		writeStepCounts(&b, "code", s.RetCodes)
	}
	return b.String()
}

func writeStepCounts(b *strings.Builder, what string, m map[string]int64) {
	for _, k := range slices.Sorted(maps.Keys(m)) {
		fmt.Fprintf(b, "      %s %q: %d\n", what, k, m[k])
	}
}
