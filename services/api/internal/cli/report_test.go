package cli

import (
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/client"
)

// TestConfidenceReports checks that the terminal summary and the Markdown
// summary state each confidence form's interval and verdict in one line,
// and the terminal's the run-to-run spread of a pooled baseline.
func TestConfidenceReports(t *testing.T) {
	t.Parallel()
	v := client.Inconclusive
	unsure := client.ThresholdResult{Expression: "p(99) < baseline * 1.1 @ 95%", Metric: "response.p(99)", Unit: client.UnitMicros,
		Observed: 21_000, Limit: 22_000, Inconclusive: ptr(true), Note: ptr("run about 3.2× longer to tell"),
		Estimate: &client.ThresholdEstimate{Confidence: 95, Ratio: 1.05, RatioLow: 0.98, RatioHigh: 1.12, Longer: 3.2, Seconds: 10}}
	regressed := client.ThresholdResult{Expression: "p(50) < baseline @ 95%", Metric: "response.p(50)", Unit: client.UnitMicros,
		Observed: 5600, Limit: 5000, Estimate: &client.ThresholdEstimate{Confidence: 95, Ratio: 1.12, RatioLow: 1.07, RatioHigh: 1.17, Longer: 1, Seconds: 10,
			Spread: ptr(0.021), SpreadRuns: ptr(3)}}
	short := client.ThresholdResult{Expression: "qps >= baseline @ 95%", Metric: "qps", Inconclusive: ptr(true),
		Note: ptr("the run has 8 measured seconds, at least 10 needed: too few measured seconds")}
	results := []client.ThresholdResult{unsure, regressed, short}
	note := "pooled 3 runs: the test has 3 earlier passing runs of the 5 asked for"
	run := client.Run{Id: uuid.New(), Name: "checkout", Status: client.Completed, Verdict: &v, ThresholdResults: &results,
		Summary: &client.RunSummary{Count: 2000, Errors: 0}, BaselineLast: ptr(5),
		BaselinePool: &client.BaselinePool{Runs: []uuid.UUID{uuid.New(), uuid.New(), uuid.New()}, Note: &note}}
	text := formatSummary(run, nil)
	md := markdownSummary(run, nil, "http://x/runs/1")
	for _, want := range []string{
		"INCONCLUSIVE  p(99) < baseline * 1.1 @ 95%",
		"p(99) +5.0 % (95 % CI -2.0 % to +12.0 %): inconclusive, run about 3.2× longer to tell",
		"p(50) +12.0 % (95 % CI +7.0 % to +17.0 %): regression\n      runs differ by 2.1 % from run to run (3 pooled runs); the interval includes it\n",
		"the run has 8 measured seconds",
		"verdict inconclusive: INCONCLUSIVE",
		"  baseline: " + note + "\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("summary lacks %q:\n%s", want, text)
		}
	}
	for _, want := range []string{
		"### ❔ Barrage: checkout — INCONCLUSIVE",
		"- p(50) +12.0 % (95 % CI +7.0 % to +17.0 %): regression",
		"| `p(99) < baseline * 1.1 @ 95%` | inconclusive |",
		"- `qps >= baseline @ 95%`: inconclusive, the run has 8",
		"Baseline: " + note + ".\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}

// TestReportNotesGeneratorLimited checks that the terminal and Markdown
// summaries print the verdict's note of a run whose agent was the
// bottleneck, and no note for a run without one.
func TestReportNotesGeneratorLimited(t *testing.T) {
	t.Parallel()
	v := client.Pass
	note := "generator_limited: the load generator was the bottleneck for 3 of 4 s: figures measure the agent, not the target"
	run := client.Run{Id: uuid.New(), Name: "hot", Status: client.Completed, Verdict: &v, VerdictNote: &note,
		Summary: &client.RunSummary{Count: 600}}
	if text := formatSummary(run, nil); !strings.Contains(text, "  verdict pass: PASS\n  note: "+note+"\n") {
		t.Errorf("summary lacks the note line:\n%s", text)
	}
	if md := markdownSummary(run, nil, "http://x/runs/1"); !strings.Contains(md, "> ⚠️ generator_limited: the load generator was the bottleneck for 3 of 4 s") {
		t.Errorf("markdown lacks the note:\n%s", md)
	}
	run.VerdictNote = nil
	if text := formatSummary(run, nil); strings.Contains(text, "note:") {
		t.Errorf("summary of a run without a note has one:\n%s", text)
	}
	if md := markdownSummary(run, nil, "http://x/runs/1"); strings.Contains(md, "⚠️") {
		t.Errorf("markdown of a run without a note has one:\n%s", md)
	}
}

// TestBaselineLine says what the baseline forms compared with.
func TestBaselineLine(t *testing.T) {
	t.Parallel()
	id := uuid.MustParse("0b4e6f6c-5a8f-4d7e-9d1c-3f4a5b6c7d8f")
	tests := []struct {
		name string
		run  client.Run
		want string
	}{
		{"no baseline", client.Run{}, ""},
		{"one run", client.Run{BaselineRunId: &id}, "run 0b4e6f6c-5a8f-4d7e-9d1c-3f4a5b6c7d8f"},
		{"all pooled", client.Run{BaselineRunId: &id, BaselinePool: &client.BaselinePool{Runs: []uuid.UUID{id, id, id}}},
			"pooled the last 3 passing runs of the test"},
		{"fewer", client.Run{BaselinePool: &client.BaselinePool{Runs: []uuid.UUID{id}, Note: ptr("pooled 1 run: ...")}}, "pooled 1 run: ..."},
	}
	for _, tt := range tests {
		if got := baselineLine(tt.run); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}
