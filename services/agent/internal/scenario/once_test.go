package scenario_test

import (
	"testing"

	"github.com/barrage-dev/barrage/services/agent/internal/scenario"
)

// TestOnceStepsAgainstEcho: a once login runs once per worker, before its
// first iteration; every later iteration of that worker sends the token it
// extracted (tok-0 or tok-1: the workers' first iterations) and the
// cookie it got, while a cookie set by a looping step does not reach the
// next iteration.
func TestOnceStepsAgainstEcho(t *testing.T) {
	t.Parallel()
	echo := startEcho(t)
	plan := mustPlan(t, `
name: once
steps:
  - name: login
    once: true
    url: http://ECHO/login?header=Set-Cookie:sid%3Dabc
    body: '{"token":"tok-{{.iteration}}"}'
    extract:
      - {var: token, json_path: $.token}
  - name: read
    url: http://ECHO/debug?header=Set-Cookie:loop%3D{{.iteration}}
    headers: {Authorization: 'Bearer {{.token}}'}
    checks:
      - {name: login token, body_matches: 'Authorization: Bearer tok-[01]\n'}
      - {name: login cookie, body_matches: 'Cookie: sid=abc\n'}
`, echo)
	if plan.OnceSteps() != 1 {
		t.Fatalf("OnceSteps %d, want 1", plan.OnceSteps())
	}
	res, err := scenario.Run(runCtx(t), scenario.Options{Plan: plan, IterationsPerSecond: 200, MaxIterations: 20, Concurrency: 2})
	if err != nil {
		t.Fatal(err)
	}
	login, read := res.Steps[0], res.Steps[1]
	if res.Started != 20 || res.Completed != 20 || read.Count != 20 || read.Errors != 0 || login.Skipped != 0 {
		t.Fatalf("started %d completed %d; login %+v; read %+v (checks %v)", res.Started, res.Completed, login, read, read.FailedChecks)
	}
	if login.Count < 1 || login.Count > 2 || login.Errors != 0 {
		t.Errorf("login ran %d times (%d errors), want once per worker used (1 or 2)", login.Count, login.Errors)
	}

	// A failing once step runs again in the next iteration, and the steps
	// after it are skipped.
	plan = mustPlan(t, `
name: once fails
steps:
  - name: login
    once: true
    url: http://ECHO/login?status=503
    checks: [{name: ok, status: [200]}]
  - name: read
    url: http://ECHO/read
`, echo)
	res, err = scenario.Run(runCtx(t), scenario.Options{Plan: plan, IterationsPerSecond: 200, MaxIterations: 6, Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	if login, read := res.Steps[0], res.Steps[1]; res.Failed != 6 || login.Count != 6 || login.RetCodes["503"] != 6 || read.Count != 0 || read.Skipped != 6 {
		t.Errorf("failed %d; login %+v; read %+v; want the login 6 times and the read skipped 6 times", res.Failed, login, read)
	}
}
