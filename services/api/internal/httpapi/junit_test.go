package httpapi

import (
	"encoding/xml"
	"strings"
	"testing"

	"github.com/barrage-dev/barrage/pkg/threshold"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

func TestJunitOut(t *testing.T) {
	t.Parallel()
	failed := threshold.Outcome{Expression: "p(99) < 1ms", Metric: "response.p(99)", Unit: threshold.Micros, Observed: 23_400, Limit: 1000}
	passed := threshold.Outcome{Expression: "count > 0", Metric: "count", Observed: 5, Pass: true}
	broken := threshold.Outcome{Expression: "qps >= baseline", Metric: "qps", Error: "no baseline: the run has no test"}
	unsure := threshold.Outcome{Expression: "p(99) < baseline * 1.1 @ 95%", Metric: "response.p(99)", Inconclusive: true,
		Note: "run about 3.2× longer to tell", Estimate: &threshold.Estimate{Confidence: 95, Ratio: 1.04, RatioLow: 0.98, RatioHigh: 1.11}}
	regressed := threshold.Outcome{Expression: "p(50) < baseline @ 95%", Metric: "response.p(50)", Unit: threshold.Micros,
		Observed: 5600, Limit: 5000, Estimate: &threshold.Estimate{Confidence: 95, Ratio: 1.12, RatioLow: 1.07, RatioHigh: 1.17}}
	tests := []struct {
		name     string
		run      runs.Run
		cases    []string
		failures int
		errors   int
		skipped  int
		message  string // of the first case's failure, error or skip
	}{
		{name: "inconclusive", run: runs.Run{Status: runs.Completed, Verdict: runs.VerdictInconclusive,
			Thresholds: []string{unsure.Expression, "count > 0"}, ThresholdResults: []threshold.Outcome{unsure, passed}},
			cases: []string{unsure.Expression, "count > 0"}, skipped: 1, message: "inconclusive: run about 3.2× longer to tell"},
		{name: "confident regression", run: runs.Run{Status: runs.Completed, Verdict: runs.VerdictFail,
			Thresholds: []string{regressed.Expression}, ThresholdResults: []threshold.Outcome{regressed}},
			cases: []string{regressed.Expression}, failures: 1, message: "p(50) +12.0 % (95 % CI +7.0 % to +17.0 %): regression"},
		{name: "no thresholds", run: runs.Run{Status: runs.Completed, Verdict: runs.VerdictPass}, cases: []string{"run completed"}},
		{name: "judged", run: runs.Run{Status: runs.Completed, Verdict: runs.VerdictFail,
			Thresholds:       []string{"p(99)<1ms", "count > 0", "qps >= baseline"},
			ThresholdResults: []threshold.Outcome{failed, passed, broken}},
			cases: []string{"p(99) < 1ms", "count > 0", "qps >= baseline"}, failures: 1, errors: 1, message: "observed 23.4ms, limit 1ms"},
		{name: "degraded", run: runs.Run{Status: runs.Completed, Verdict: runs.VerdictError, Degraded: true,
			Thresholds: []string{"count > 0"}, ThresholdResults: []threshold.Outcome{passed}},
			cases: []string{"count > 0", "run completed"}, errors: 1},
		{name: "canceled", run: runs.Run{Status: runs.Canceled, Thresholds: []string{"count > 0"}},
			cases: []string{"count > 0"}, errors: 1, message: "not evaluated: the run is canceled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rep := junitOut(tt.run, runs.Result{Shards: 1, LostShards: 1})
			if len(rep.Suites) != 1 {
				t.Fatalf("%d suites", len(rep.Suites))
			}
			s := rep.Suites[0]
			if s.Tests != len(tt.cases) || s.Failures != tt.failures || s.Errors != tt.errors || s.Skipped != tt.skipped {
				t.Errorf("suite tests %d failures %d errors %d skipped %d; want %d %d %d %d",
					s.Tests, s.Failures, s.Errors, s.Skipped, len(tt.cases), tt.failures, tt.errors, tt.skipped)
			}
			for i, c := range s.Cases {
				if i >= len(tt.cases) || c.Name != tt.cases[i] || c.Classname != junitClass {
					t.Errorf("case %d = %+v, want %q", i, c, tt.cases)
				}
			}
			if tt.message == "" {
				return
			}
			got := ""
			if c := s.Cases[0]; c.Failure != nil {
				got = c.Failure.Message
			} else if c.Error != nil {
				got = c.Error.Message
			} else if c.Skipped != nil {
				got = c.Skipped.Message
				if c.SystemOut != unsure.Statement() {
					t.Errorf("system-out %q, want the statement", c.SystemOut)
				}
			}
			if got != tt.message {
				t.Errorf("first case message %q, want %q", got, tt.message)
			}
		})
	}
}

// TestJunitXMLConfidence checks the XML a CI tool reads for confidence
// forms: each testcase carries the interval and the verdict as properties
// and as the one-line statement, a regression as its failure message and
// an inconclusive form as skipped, and the run-to-run spread of a pooled
// baseline.
func TestJunitXMLConfidence(t *testing.T) {
	t.Parallel()
	regressed := threshold.Outcome{Expression: "p(50) < baseline @ 95%", Metric: "response.p(50)", Unit: threshold.Micros,
		Observed: 5600, Limit: 5000, Estimate: &threshold.Estimate{Confidence: 95, Ratio: 1.12, RatioLow: 1.07, RatioHigh: 1.17,
			MarginLow: 350, MarginHigh: 850, Longer: 1, Seconds: 12, Spread: 0.021, SpreadRuns: 5}}
	unsure := threshold.Outcome{Expression: "p(99) < baseline * 1.1 @ 95%", Metric: "response.p(99)", Unit: threshold.Micros,
		Inconclusive: true, Note: "run about 3.2× longer to tell",
		Estimate: &threshold.Estimate{Confidence: 95, Ratio: 1.05, RatioLow: 0.98, RatioHigh: 1.12, MarginLow: -2400, MarginHigh: 400, Seconds: 10}}
	run := runs.Run{Name: "checkout", Status: runs.Completed, Verdict: runs.VerdictFail,
		Thresholds: []string{regressed.Expression, unsure.Expression}, ThresholdResults: []threshold.Outcome{regressed, unsure}}
	b, err := xml.MarshalIndent(junitOut(run, runs.Result{Shards: 1}), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got := string(b)
	for _, want := range []string{
		`<testsuite name="checkout" tests="2" failures="1" errors="0" skipped="1"`,
		`<failure message="p(50) +12.0 % (95 % CI +7.0 % to +17.0 %): regression">`,
		`<property name="verdict" value="regression"></property>`,
		`<property name="confidence" value="95"></property>`,
		`<property name="ratio" value="1.12"></property>`,
		`<property name="ratio_low" value="1.07"></property>`,
		`<property name="ratio_high" value="1.17"></property>`,
		`<property name="seconds" value="12"></property>`,
		`<property name="spread" value="0.021"></property>`,
		`<property name="spread_runs" value="5"></property>`,
		`<system-out>p(50) +12.0 % (95 % CI +7.0 % to +17.0 %): regression</system-out>`,
		`<skipped message="inconclusive: run about 3.2× longer to tell">`,
		`<property name="verdict" value="inconclusive"></property>`,
		`<system-out>p(99) +5.0 % (95 % CI -2.0 % to +12.0 %): inconclusive, run about 3.2× longer to tell</system-out>`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("JUnit XML lacks %s:\n%s", want, got)
		}
	}
	if n := strings.Count(got, `name="spread"`); n != 1 {
		t.Errorf("JUnit XML has %d spread properties, want 1 (only the pooled estimate has one):\n%s", n, got)
	}
}
