package cli

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/pkg/threshold"
	"github.com/barrage-dev/barrage/services/api/client"
)

// markdownSummary renders an ended run for a CI job's summary or a merge
// request's comment: the verdict as a heading, the figures and the
// thresholds as tables, and a link to the run's page.
func markdownSummary(run client.Run, res *client.RunResult, link string) string {
	var b strings.Builder
	code, why := outcome(run)
	mark := "✅"
	switch code {
	case ExitPass:
	case ExitInconclusive:
		mark = "❔"
	default:
		mark = "❌"
	}
	name := run.Name
	if name == "" {
		name = run.Id.String()
	}
	fmt.Fprintf(&b, "### %s Barrage: %s — %s\n\n", mark, mdEscape(name), why)
	fmt.Fprintf(&b, "Run [`%s`](%s) %s against `%s`.\n\n", run.Id, link, run.Status, mdEscape(run.Target))
	if note := deref(run.VerdictNote); note != "" {
		fmt.Fprintf(&b, "> ⚠️ %s\n\n", mdEscape(note))
	}
	if sm := run.Summary; sm != nil {
		kind := "service"
		if res != nil {
			kind = string(res.Primary)
		}
		b.WriteString("| requests | qps | errors | p50 | p90 | p99 | max |\n|---:|---:|---:|---:|---:|---:|---:|\n")
		fmt.Fprintf(&b, "| %d | %.1f | %d (%s) | %s | %s | %s | %s |\n\n", sm.Count, deref(sm.Qps), sm.Errors, formatRate(sm.Errors, sm.Count),
			formatMicros(deref(sm.P50Us)), formatMicros(deref(sm.P90Us)), formatMicros(deref(sm.P99Us)), formatMicros(deref(sm.MaxUs)))
		fmt.Fprintf(&b, "Latency is %s time.\n\n", kind)
	}
	if run.ThresholdResults != nil && len(*run.ThresholdResults) > 0 {
		b.WriteString("| threshold | result | observed | limit |\n|---|---|---:|---:|\n")
		for _, o := range *run.ThresholdResults {
			unit := threshold.Unit(o.Unit)
			result, observed, limit := "pass", threshold.FormatValue(o.Observed, unit), threshold.FormatValue(o.Limit, unit)
			switch {
			case o.Error != nil && *o.Error != "":
				result, observed, limit = "error: "+mdEscape(*o.Error), "", ""
			case deref(o.Inconclusive):
				result = "inconclusive"
			case !o.Pass:
				result = "**FAIL**"
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", mdEscape(o.Expression), result, observed, limit)
		}
		b.WriteString("\n")
		for i := range *run.ThresholdResults {
			o := &(*run.ThresholdResults)[i]
			if st := outcomeOf(o).Statement(); st != "" {
				fmt.Fprintf(&b, "- %s\n", mdEscape(st))
			} else if deref(o.Inconclusive) {
				fmt.Fprintf(&b, "- `%s`: inconclusive, %s\n", mdEscape(o.Expression), mdEscape(deref(o.Note)))
			}
		}
		b.WriteString("\n")
	}
	if line := baselineLine(run); line != "" {
		fmt.Fprintf(&b, "Baseline: %s.\n\n", mdEscape(line))
	}
	return b.String()
}

// mdEscape keeps s from breaking a table cell or a code span.
func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "`", "'", "\n", " ").Replace(s)
}

// runLink is the dashboard page of run id on the API at base.
func runLink(base string, id uuid.UUID) string {
	u, err := url.Parse(base)
	if err != nil {
		return "/runs/" + id.String()
	}
	u.Path = strings.TrimSuffix(strings.TrimSuffix(u.Path, "/"), "/api/v1") + "/runs/" + id.String()
	u.RawQuery, u.Fragment = "", ""
	return u.String()
}
