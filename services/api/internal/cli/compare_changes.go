package cli

import (
	"fmt"
	"math"
	"strings"

	"github.com/barrage-dev/barrage/services/api/client"
)

// formatChanges renders, after the comparison table, each later run's
// change against the first as the API estimated it: per percentile, the
// achieved rate and the error rate, each with its interval and verdict,
// or the note saying why there is none. "" when no run has a change.
func formatChanges(items []client.ComparedRun) string {
	var b strings.Builder
	for i := 1; i < len(items); i++ {
		r := &items[i]
		ch := r.Change
		if ch == nil {
			continue
		}
		if b.Len() == 0 {
			fmt.Fprintf(&b, "\nchanges against %s (%g %% intervals):\n", items[0].Name, ch.Confidence)
		}
		if ch.Note != nil {
			fmt.Fprintf(&b, "  %s: no interval: %s\n", r.Name, *ch.Note)
			continue
		}
		parts := make([]string, 0, len(ch.Estimates)+2)
		for _, e := range ch.Estimates {
			parts = append(parts, fmt.Sprintf("p%g %s (%s to %s) %s", e.Percentile, signedRatio(e.Ratio),
				signedRatio(e.RatioLow), signedRatio(e.RatioHigh), verdictWord(string(e.Verdict))))
		}
		if q := ch.Qps; q != nil {
			parts = append(parts, fmt.Sprintf("qps %s (%s to %s) %s", signedRatio(q.Ratio), signedRatio(q.RatioLow),
				signedRatio(q.RatioHigh), verdictWord(string(q.Verdict))))
		}
		if er := ch.ErrorRate; er != nil {
			parts = append(parts, fmt.Sprintf("errors %s (%s to %s) %s", signedPoints(er.Difference), signedPoints(er.DifferenceLow),
				signedPoints(er.DifferenceHigh), verdictWord(string(er.Verdict))))
		}
		fmt.Fprintf(&b, "  %s: %s\n", r.Name, strings.Join(parts, " · "))
	}
	return b.String()
}

// signedRatio renders a ratio as a signed change: 1.123 → "+12.3%".
func signedRatio(r float64) string {
	if math.IsInf(r, 0) || math.IsNaN(r) {
		return "n/a"
	}
	return fmt.Sprintf("%+.1f%%", 100*(r-1))
}

// signedPoints renders a difference of fractions in percentage points:
// 0.0125 → "+1.25pp".
func signedPoints(d float64) string {
	return fmt.Sprintf("%+.2fpp", 100*d)
}

// verdictWord is a change's verdict as the report prints it.
func verdictWord(v string) string {
	return strings.ReplaceAll(v, "_", " ")
}
