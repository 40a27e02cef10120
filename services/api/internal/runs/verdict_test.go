package runs

import (
	"testing"

	"github.com/barrage-dev/barrage/pkg/threshold"
)

func TestJudge(t *testing.T) {
	t.Parallel()
	pass, fail := threshold.Outcome{Pass: true}, threshold.Outcome{}
	broken := threshold.Outcome{Error: "no baseline"}
	unsure := threshold.Outcome{Inconclusive: true, Note: "run about 3× longer to tell"}
	tests := []struct {
		name     string
		status   Status
		degraded bool
		outcomes []threshold.Outcome
		want     string
	}{
		{name: "completed without thresholds", status: Completed, want: VerdictPass},
		{name: "every threshold passed", status: Completed, outcomes: []threshold.Outcome{pass, pass}, want: VerdictPass},
		{name: "a threshold failed", status: Completed, outcomes: []threshold.Outcome{pass, fail}, want: VerdictFail},
		{name: "a confidence form was inconclusive", status: Completed, outcomes: []threshold.Outcome{pass, unsure}, want: VerdictInconclusive},
		{name: "a failure outweighs an inconclusive", status: Completed, outcomes: []threshold.Outcome{unsure, fail}, want: VerdictFail},
		{name: "a threshold could not be evaluated", status: Completed, outcomes: []threshold.Outcome{broken}, want: VerdictFail},
		{name: "degraded", status: Completed, degraded: true, outcomes: []threshold.Outcome{pass}, want: VerdictError},
		{name: "failed", status: Failed, want: VerdictError},
		{name: "canceled", status: Canceled, outcomes: []threshold.Outcome{fail}, want: ""},
		{name: "still running", status: Running, want: ""},
	}
	for _, tt := range tests {
		if got := Judge(tt.status, tt.degraded, tt.outcomes); got != tt.want {
			t.Errorf("%s: Judge = %q, want %q", tt.name, got, tt.want)
		}
	}
}
