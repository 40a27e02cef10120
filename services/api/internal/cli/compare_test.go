package cli

import (
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/client"
)

func TestFormatFigure(t *testing.T) {
	t.Parallel()
	f := func(v float64) *float64 { return &v }
	tests := []struct {
		name    string
		v, base *float64
		delta   bool
		kind    figureKind
		want    string
	}{
		{"count of the first run", f(500), f(500), false, countFigure, "500"},
		{"count up", f(550), f(500), true, countFigure, "550 (+10.0%)"},
		{"qps down", f(49.5), f(50), true, rateFigure, "49.5 (-1.0%)"},
		{"latency", f(1250), f(1000), true, latencyFigure, "1.25ms (+25.0%)"},
		{"no errors either", f(0), f(0), true, countFigure, "0 (+0%)"},
		{"errors from none", f(3), f(0), true, countFigure, "3 (n/a)"},
		{"no result", nil, f(1), true, latencyFigure, "-"},
		{"first run has no result", f(1), nil, true, countFigure, "1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := formatFigure(tt.v, tt.base, tt.delta, tt.kind); got != tt.want {
				t.Errorf("formatFigure = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestFormatComparison(t *testing.T) {
	t.Parallel()
	f := func(v float64) *float64 { return &v }
	n := func(v int64) *int64 { return &v }
	items := []client.ComparedRun{
		{Id: uuid.MustParse("11111111-0000-0000-0000-000000000000"), Name: "before", Status: client.Completed,
			Count: n(100), Qps: f(50), Errors: n(0), MinUs: f(100), P50Us: f(200), AvgUs: f(250), P75Us: f(300),
			P90Us: f(400), P99Us: f(1000), P999Us: f(2000), MaxUs: f(3000)},
		{Id: uuid.MustParse("22222222-0000-0000-0000-000000000000"), Name: "after", Status: client.Completed,
			Count: n(100), Qps: f(50), Errors: n(1), MinUs: f(100), P50Us: f(220), AvgUs: f(250), P75Us: f(300),
			P90Us: f(400), P99Us: f(1500), P999Us: f(2000), MaxUs: f(3000)},
		{Id: uuid.MustParse("33333333-0000-0000-0000-000000000000"), Name: "going", Status: client.Running},
	}
	got := formatComparison(items)
	lines := strings.Split(strings.TrimRight(got, "\n"), "\n")
	wantRows := []string{"run", "id", "status", "count", "qps", "errors", "min", "p50", "avg", "p75", "p90", "p99", "p99.9", "max"}
	if len(lines) != len(wantRows) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(wantRows), got)
	}
	for i, row := range wantRows {
		if fields := strings.Fields(lines[i]); fields[0] != row || len(fields) < 4 {
			t.Errorf("line %d %q, want row %s with 3 columns", i, lines[i], row)
		}
	}
	for _, want := range []string{"11111111-0000-0000-0000-000000000000", "before", "after", "running", "220us (+10.0%)", "1.5ms (+50.0%)", "1 (n/a)", "100 (+0.0%)"} {
		if !strings.Contains(got, want) {
			t.Errorf("table lacks %q:\n%s", want, got)
		}
	}
	if p99 := strings.Fields(lines[11]); p99[len(p99)-1] != "-" {
		t.Errorf("p99 of the run without a result: %q, want -", lines[11])
	}
}

func TestFormatChanges(t *testing.T) {
	t.Parallel()
	note := "the reference asked for 50 qps, this run 100 qps"
	items := []client.ComparedRun{
		{Name: "before"},
		{Name: "after", Change: &client.ComparedChange{Confidence: 95, Estimates: []client.PercentileChange{
			{Percentile: 99, Ratio: 1.123, RatioLow: 1.07, RatioHigh: 1.171, Verdict: client.ChangeRegression},
		},
			Qps:       &client.QPSChange{Ratio: 0.995, RatioLow: 0.99, RatioHigh: 1.002, Verdict: client.QPSNoChange},
			ErrorRate: &client.ErrorRateChange{Difference: 0.0125, DifferenceLow: 0.008, DifferenceHigh: 0.017, Verdict: client.ErrorRateRegression},
		}},
		{Name: "other", Change: &client.ComparedChange{Confidence: 95, Note: &note}},
		{Name: "going"},
	}
	want := "\nchanges against before (95 % intervals):\n" +
		"  after: p99 +12.3% (+7.0% to +17.1%) regression · qps -0.5% (-1.0% to +0.2%) no change · errors +1.25pp (+0.80pp to +1.70pp) regression\n" +
		"  other: no interval: " + note + "\n"
	if got := formatChanges(items); got != want {
		t.Errorf("formatChanges =\n%q\nwant\n%q", got, want)
	}
	if got := formatChanges(items[:1]); got != "" {
		t.Errorf("a lone run's changes = %q, want none", got)
	}
}
