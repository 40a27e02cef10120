package threshold

import (
	"fmt"
	"strconv"
	"strings"
)

// Statement says in one line what a confidence form found, for reports:
// "p(99) +12 % (95 % CI +7 % to +17 %): regression". It is "" for an
// outcome of any other form, or one that was not estimated (then Note
// says why).
func (o Outcome) Statement() string {
	x := o.Estimate
	if x == nil {
		return ""
	}
	conf := strconv.FormatFloat(x.Confidence, 'f', -1, 64)
	var b strings.Builder
	b.WriteString(shortMetric(o.Metric) + " ")
	if x.Ratio > 0 {
		fmt.Fprintf(&b, "%s (%s %% CI %s to %s)", change(x.Ratio), conf, change(x.RatioLow), change(x.RatioHigh))
	} else {
		fmt.Fprintf(&b, "%s against %s (%s %% CI of the excess %s to %s)", FormatValue(o.Observed, o.Unit),
			FormatValue(o.Limit, o.Unit), conf, signed(x.MarginLow, o.Unit), signed(x.MarginHigh, o.Unit))
	}
	switch {
	case o.Inconclusive:
		b.WriteString(": inconclusive")
		if o.Note != "" {
			b.WriteString(", " + o.Note)
		}
	case o.Pass:
		b.WriteString(": pass")
	default:
		b.WriteString(": regression")
	}
	return b.String()
}

// shortMetric drops the latency kind: "response.p(99)" is "p(99)".
func shortMetric(m string) string {
	if _, after, ok := strings.Cut(m, "."); ok {
		return after
	}
	return m
}

// change writes a ratio as a signed percent change: 1.12 is "+12 %".
func change(r float64) string {
	return fmt.Sprintf("%+.1f %%", (r-1)*100)
}

// signed writes v of unit u with its sign.
func signed(v float64, u Unit) string {
	if v < 0 {
		return "-" + FormatValue(-v, u)
	}
	return "+" + FormatValue(v, u)
}
