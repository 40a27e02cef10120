package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/barrage-dev/barrage/pkg/threshold"
	"github.com/barrage-dev/barrage/services/api/client"
)

// terminal reports whether a run in status st has ended.
func terminal(st client.RunStatus) bool {
	return st == client.Completed || st == client.Failed || st == client.Canceled
}

// exitCode maps an ended run to the exit code of `barrage run`: 97 when it
// failed, was canceled, was degraded without allow_partial (verdict error) or none of its
// requests succeeded (the target is down: no threshold can vouch for it),
// 99 when a threshold failed, 98 when a confidence form was inconclusive,
// 0 when it passed.
func exitCode(run client.Run) int {
	code, _ := outcome(run)
	return code
}

// outcome returns the exit code of an ended run and why, for the summary.
func outcome(run client.Run) (int, string) {
	sm := run.Summary
	switch {
	case run.Status != client.Completed:
		return ExitRunError, "ERROR (the run " + string(run.Status) + ")"
	case run.Degraded && !deref(run.AllowPartial):
		return ExitRunError, "ERROR (degraded: a shard was lost)"
	case sm == nil || sm.Count == 0:
		return ExitRunError, "ERROR (no request completed)"
	case sm.Errors >= sm.Count:
		return ExitRunError, "ERROR (no request succeeded)"
	case run.Verdict == nil:
		return ExitRunError, "ERROR (the run was not judged)"
	}
	switch *run.Verdict {
	case client.Pass:
		return ExitPass, "PASS"
	case client.Fail:
		return ExitThresholds, "FAIL (a threshold failed)"
	case client.Inconclusive:
		return ExitInconclusive, "INCONCLUSIVE (a confidence form could not tell)"
	default:
		return ExitRunError, "ERROR (run error)"
	}
}

// formatSummary renders the final figures, the verdict and each threshold.
func formatSummary(run client.Run, res *client.RunResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\nrun %s %s", run.Id, run.Status)
	if run.Degraded {
		b.WriteString(" (degraded: a shard was lost)")
	}
	b.WriteString("\n")
	if run.Error != nil && *run.Error != "" {
		fmt.Fprintf(&b, "  error: %s\n", *run.Error)
	}
	if sm := run.Summary; sm != nil {
		fmt.Fprintf(&b, "  count %d  qps %.1f  errors %d (%s)\n", sm.Count, deref(sm.Qps), sm.Errors, formatRate(sm.Errors, sm.Count))
		kind := "service"
		if res != nil {
			kind = string(res.Primary)
		} else if run.Spec.PeakQPS() > 0 {
			kind = "response"
		}
		fmt.Fprintf(&b, "  latency (%s)  p50 %s  p90 %s  p99 %s  max %s\n", kind,
			formatMicros(deref(sm.P50Us)), formatMicros(deref(sm.P90Us)), formatMicros(deref(sm.P99Us)), formatMicros(deref(sm.MaxUs)))
	}
	if res != nil && len(res.RetCodes) > 0 {
		codes := make([]string, 0, len(res.RetCodes))
		for c, n := range res.RetCodes {
			codes = append(codes, fmt.Sprintf("%s: %d", c, n))
		}
		slices.Sort(codes)
		fmt.Fprintf(&b, "  codes  %s\n", strings.Join(codes, "  "))
	}
	b.WriteString(formatSteps(res))
	if run.ThresholdResults != nil && len(*run.ThresholdResults) > 0 {
		b.WriteString("  thresholds\n")
		for i := range *run.ThresholdResults {
			b.WriteString("    " + formatOutcome(&(*run.ThresholdResults)[i]) + "\n")
		}
	}
	if line := baselineLine(run); line != "" {
		fmt.Fprintf(&b, "  baseline: %s\n", line)
	}
	verdict := "none"
	if run.Verdict != nil {
		verdict = string(*run.Verdict)
	}
	_, why := outcome(run)
	fmt.Fprintf(&b, "  verdict %s: %s\n", verdict, why)
	if note := deref(run.VerdictNote); note != "" {
		fmt.Fprintf(&b, "  note: %s\n", note)
	}
	return b.String()
}

// formatOutcome renders one threshold's outcome, e.g.
// "FAIL   p(99) < 1ms   observed 21.3ms, limit 1ms".
func formatOutcome(o *client.ThresholdResult) string {
	unit := threshold.Unit(o.Unit)
	word := "pass"
	switch {
	case o.Error != nil && *o.Error != "":
		return fmt.Sprintf("ERROR  %s  %s", o.Expression, *o.Error)
	case deref(o.Inconclusive):
		word = "INCONCLUSIVE"
	case !o.Pass:
		word = "FAIL "
	}
	line := fmt.Sprintf("%s  %s  observed %s, limit %s", word, o.Expression,
		threshold.FormatValue(o.Observed, unit), threshold.FormatValue(o.Limit, unit))
	if st := outcomeOf(o).Statement(); st != "" {
		line += "\n      " + st
		if x := o.Estimate; x != nil && x.SpreadRuns != nil && *x.SpreadRuns > 0 {
			line += fmt.Sprintf("\n      runs differ by %.1f %% from run to run (%d pooled runs); the interval includes it",
				100*deref(x.Spread), *x.SpreadRuns)
		}
		return line
	}
	if deref(o.Inconclusive) {
		return line + "\n      " + deref(o.Note)
	}
	return line
}

// baselineLine says what the baseline forms compared with: the runs
// pooled (and why fewer than asked), or the one baseline run; "" when
// none was used.
func baselineLine(run client.Run) string {
	switch p := run.BaselinePool; {
	case p != nil && deref(p.Note) != "":
		return deref(p.Note)
	case p != nil:
		return fmt.Sprintf("pooled the last %d passing runs of the test", len(p.Runs))
	case run.BaselineRunId != nil:
		return "run " + run.BaselineRunId.String()
	}
	return ""
}

// outcomeOf maps a threshold result of the API to pkg/threshold's
// outcome, which words confidence forms.
func outcomeOf(o *client.ThresholdResult) threshold.Outcome {
	out := threshold.Outcome{
		Expression: o.Expression, Metric: o.Metric, Unit: threshold.Unit(o.Unit), Observed: o.Observed, Limit: o.Limit,
		Pass: o.Pass, Error: deref(o.Error), Inconclusive: deref(o.Inconclusive), Note: deref(o.Note),
	}
	if x := o.Estimate; x != nil {
		out.Estimate = &threshold.Estimate{
			Confidence: x.Confidence, Ratio: x.Ratio, RatioLow: x.RatioLow, RatioHigh: x.RatioHigh,
			MarginLow: x.MarginLow, MarginHigh: x.MarginHigh, Longer: x.Longer, Seconds: x.Seconds,
			Spread: deref(x.Spread), SpreadRuns: deref(x.SpreadRuns),
		}
	}
	return out
}

// deref returns *p, or the zero value for nil.
func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
