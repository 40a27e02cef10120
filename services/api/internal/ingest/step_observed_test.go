package ingest

import (
	"testing"

	"github.com/barrage-dev/barrage/pkg/scenario"
	"github.com/barrage-dev/barrage/pkg/threshold"
)

// TestStepsObserved checks what step and checks thresholds judge: each
// step by its name, and a check shared by two steps over the responses of
// both (requests without a response are not checked).
func TestStepsObserved(t *testing.T) {
	t.Parallel()
	sc := &scenario.Scenario{Steps: []scenario.Step{
		{Name: "login", Checks: []scenario.Check{{Name: "ok"}, {Name: "token"}}},
		{Name: "read", Checks: []scenario.Check{{Name: "ok"}}},
		{Name: "never ran", Checks: []scenario.Check{{Name: "ok"}}},
	}}
	login, read := newStepPart(), newStepPart()
	login.count, login.errors, login.transport["timeout"] = 50, 7, 5
	login.checks["ok"], login.checks["token"] = 1, 2
	read.count, read.errors = 30, 3
	read.checks["ok"] = 3
	p := &scenarioPart{steps: map[int]*stepPart{0: login, 1: read}}
	steps, checks := stepsObserved(p, sc, threshold.Response)
	if len(steps) != 2 || steps["login"].Count != 50 || steps["login"].Errors != 7 || steps["read"].Count != 30 ||
		steps["read"].Primary != threshold.Response || steps["login"].Response != login.lat[response] {
		t.Errorf("steps %+v, want login (50, 7) and read (30) with their histograms", steps)
	}
	want := map[string]threshold.CheckCount{"ok": {Evaluated: 45 + 30, Failed: 1 + 3}, "token": {Evaluated: 45, Failed: 2}}
	if len(checks) != len(want) || checks["ok"] != want["ok"] || checks["token"] != want["token"] {
		t.Errorf("checks %+v, want %+v", checks, want)
	}
	if s, c := stepsObserved(nil, sc, threshold.Response); s != nil || c != nil {
		t.Errorf("a run without a scenario part: %v %v, want nil", s, c)
	}
}
