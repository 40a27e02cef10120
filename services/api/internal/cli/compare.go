package cli

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"text/tabwriter"

	"github.com/barrage-dev/barrage/services/api/client"
)

// Bounds of `barrage runs compare` (the API's).
const (
	minCompare = 2
	maxCompare = 20
)

// runsCompare is `barrage runs compare ID ID [ID...]`.
func (e *env) runsCompare(ctx context.Context, ids []string) int {
	if len(ids) < minCompare || len(ids) > maxCompare {
		e.out.errorf("usage: barrage runs compare ID ID [ID...] (%d to %d run ids)", minCompare, maxCompare)
		return ExitUsage
	}
	for _, id := range ids {
		if !isID(id) {
			e.out.errorf("barrage runs compare: %q is not a run id", id)
			return ExitUsage
		}
	}
	var cmp client.RunComparison
	if _, err := call(ctx, &cmp, func() (*http.Response, error) {
		return e.api.CompareRuns(ctx, &client.CompareRunsParams{Ids: strings.Join(ids, ",")})
	}); err != nil {
		return e.out.fail("compare runs", err)
	}
	e.out.printf("%s%s", formatComparison(cmp.Items), formatChanges(cmp.Items))
	return ExitPass
}

// compareRow is one figure of the comparison table.
type compareRow struct {
	name  string
	value func(r *client.ComparedRun) *float64
	kind  figureKind
}

// figureKind says how a figure is rendered.
type figureKind int

const (
	// countFigure is a whole number.
	countFigure figureKind = iota
	// rateFigure has one decimal.
	rateFigure
	// latencyFigure is microseconds rendered as a duration.
	latencyFigure
)

// compareRows returns the rows of the comparison, Fortio's N-run view.
func compareRows() []compareRow {
	i2f := func(p *int64) *float64 {
		if p == nil {
			return nil
		}
		return ptr(float64(*p))
	}
	return []compareRow{
		{name: "count", value: func(r *client.ComparedRun) *float64 { return i2f(r.Count) }},
		{name: "qps", value: func(r *client.ComparedRun) *float64 { return r.Qps }, kind: rateFigure},
		{name: "errors", value: func(r *client.ComparedRun) *float64 { return i2f(r.Errors) }},
		{name: "min", value: func(r *client.ComparedRun) *float64 { return r.MinUs }, kind: latencyFigure},
		{name: "p50", value: func(r *client.ComparedRun) *float64 { return r.P50Us }, kind: latencyFigure},
		{name: "avg", value: func(r *client.ComparedRun) *float64 { return r.AvgUs }, kind: latencyFigure},
		{name: "p75", value: func(r *client.ComparedRun) *float64 { return r.P75Us }, kind: latencyFigure},
		{name: "p90", value: func(r *client.ComparedRun) *float64 { return r.P90Us }, kind: latencyFigure},
		{name: "p99", value: func(r *client.ComparedRun) *float64 { return r.P99Us }, kind: latencyFigure},
		{name: "p99.9", value: func(r *client.ComparedRun) *float64 { return r.P999Us }, kind: latencyFigure},
		{name: "max", value: func(r *client.ComparedRun) *float64 { return r.MaxUs }, kind: latencyFigure},
	}
}

// formatComparison renders the runs side by side: a column per run (its
// name, id and status on top), a row per figure, and after each
// figure of the second and later runs its change against the first run,
// e.g. "1.25ms (+12.3%)". A run without a result shows "-".
func formatComparison(items []client.ComparedRun) string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', tabwriter.AlignRight)
	header := func(f func(r *client.ComparedRun) string) {
		for i := range items {
			fmt.Fprintf(tw, "\t%s", f(&items[i]))
		}
		fmt.Fprint(tw, "\t\n")
	}
	fmt.Fprint(tw, "run")
	header(func(r *client.ComparedRun) string { return r.Name })
	fmt.Fprint(tw, "id")
	header(func(r *client.ComparedRun) string { return r.Id.String() })
	fmt.Fprint(tw, "status")
	header(func(r *client.ComparedRun) string { return string(r.Status) })
	for _, row := range compareRows() {
		fmt.Fprint(tw, row.name)
		var base *float64
		for i := range items {
			v := row.value(&items[i])
			if i == 0 {
				base = v
			}
			fmt.Fprintf(tw, "\t%s", formatFigure(v, base, i > 0, row.kind))
		}
		fmt.Fprint(tw, "\t\n")
	}
	_ = tw.Flush()
	return b.String()
}

// formatFigure renders one cell: the value, and its change against base
// when delta is set and both are known.
func formatFigure(v, base *float64, delta bool, kind figureKind) string {
	if v == nil {
		return "-"
	}
	var s string
	switch kind {
	case latencyFigure:
		s = formatMicros(*v)
	case rateFigure:
		s = fmt.Sprintf("%.1f", *v)
	default:
		s = fmt.Sprintf("%.0f", *v)
	}
	if !delta || base == nil {
		return s
	}
	switch {
	case *base == 0 && *v == 0:
		return s + " (+0%)"
	case *base == 0:
		return s + " (n/a)"
	}
	return s + fmt.Sprintf(" (%+.1f%%)", 100*(*v-*base)/(*base))
}
