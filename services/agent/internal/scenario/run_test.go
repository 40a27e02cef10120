package scenario_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/pkg/resultformat"
	spec "github.com/barrage-dev/barrage/pkg/scenario"
	"github.com/barrage-dev/barrage/services/agent/internal/scenario"
)

// loginFlow is a login made from echo parameters: the echo returns the
// posted token (extracted by JSON path), a session id in a response header
// and a cookie; the next step sends the token and the session id in
// headers and checks, through /debug, that they and the cookie arrived; a slow step then fails its check, which ends the
// iteration before the last step.
const loginFlow = `
name: login flow
steps:
  - name: login
    url: http://ECHO/login?header=Set-Cookie:sid%3Dabc&header=X-Session:s-{{.iteration}}
    headers: {Content-Type: application/json}
    body: '{"token":"tok-{{.iteration}}"}'
    extract:
      - {var: token, json_path: $.token}
      - {var: session, header: X-Session}
    checks:
      - {name: login ok, status: [200]}
  - name: read
    url: http://ECHO/debug
    headers: {Authorization: 'Bearer {{.token}}', X-Session: '{{.session}}'}
    checks:
      - {name: read ok, status: [200]}
      - {name: session sent, body_matches: 'X-Session: s-[0-9]+'}
      - {name: token sent, body_matches: 'Authorization: Bearer tok-[0-9]+'}
      - {name: cookie sent, body_contains: sid=abc}
  - name: slow
    url: http://ECHO/slow?delay=20ms
    checks:
      - {name: created, status: [201]}
  - name: never
    url: http://ECHO/never
`

func mustPlan(t *testing.T, doc, echo string) *spec.Plan {
	t.Helper()
	p, err := spec.Parse([]byte(strings.ReplaceAll(doc, "ECHO", echo)))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func runCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestLoginFlowAgainstEcho(t *testing.T) {
	t.Parallel()
	echo := startEcho(t)
	plan := mustPlan(t, loginFlow, echo)
	// 50 iterations/s for 1s: intended starts at 0, 20ms, ... 980ms.
	res, err := scenario.Run(runCtx(t), scenario.Options{Plan: plan, IterationsPerSecond: 50, Duration: time.Second, Concurrency: 16})
	if err != nil {
		t.Fatal(err)
	}
	if res.Started != 50 || res.Failed != 50 || res.Completed != 0 || res.Iteration.Count != 50 {
		t.Fatalf("iterations: started %d failed %d completed %d recorded %d", res.Started, res.Failed, res.Completed, res.Iteration.Count)
	}
	if res.ElapsedSeconds < 0.98 || res.ElapsedSeconds > 5 {
		t.Fatalf("elapsed %.3fs", res.ElapsedSeconds)
	}
	want := []struct {
		name           string
		count, skipped int64
		errors         int64
	}{{"login", 50, 0, 0}, {"read", 50, 0, 0}, {"slow", 50, 0, 50}, {"never", 0, 50, 0}}
	for i, w := range want {
		s := res.Steps[i]
		if s.Name != w.name || s.Count != w.count || s.Skipped != w.skipped || s.Errors != w.errors {
			t.Errorf("step %d: %s count %d skipped %d errors %d checks %v extractions %v transport %v; want %+v",
				i, s.Name, s.Count, s.Skipped, s.Errors, s.FailedChecks, s.FailedExtractions, s.TransportErrors, w)
		}
		if s.Count > 0 && (s.RetCodes["200"] != s.Count || s.Response.Count != s.Count || s.Service.Count != s.Count) {
			t.Errorf("step %s: codes %v, %d response and %d service samples", s.Name, s.RetCodes, s.Response.Count, s.Service.Count)
		}
	}
	if got := res.Steps[2].FailedChecks; len(got) != 1 || got["created"] != 50 {
		t.Errorf("slow: failed checks %v, want created: 50", got)
	}
	if p50 := percentile(t, res.Steps[2].Response.Percentiles, 50); p50 < 0.020 {
		t.Errorf("slow step p50 %.4fs, below the echo's 20ms delay", p50)
	}
	if p50 := percentile(t, res.Iteration.Percentiles, 50); p50 < 0.020 {
		t.Errorf("iteration p50 %.4fs, below the slow step's 20ms", p50)
	}
}

// TestStalledStepIsNotHidden: one iteration in flight at a time, each
// taking at least 50ms, asked for at 50/s: the iterations fall behind
// their schedule, and the response times (from the intended starts) show
// the wait that the service times do not. A failed check with
// continue_on_failure goes on to the next step.
func TestStalledStepIsNotHidden(t *testing.T) {
	t.Parallel()
	echo := startEcho(t)
	plan := mustPlan(t, `
name: stall
steps:
  - name: stall
    url: http://ECHO/stall?delay=50ms
    checks: [{name: wrong status, status: [500]}]
    continue_on_failure: true
  - name: after
    url: http://ECHO/after
    think: {kind: fixed, duration: 1ms}
`, echo)
	res, err := scenario.Run(runCtx(t), scenario.Options{Plan: plan, IterationsPerSecond: 50, MaxIterations: 10, Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	stall, after := res.Steps[0], res.Steps[1]
	if res.Started != 10 || res.Failed != 10 || stall.Count != 10 || after.Count != 10 || after.Skipped != 0 ||
		stall.FailedChecks["wrong status"] != 10 || after.Errors != 0 {
		t.Fatalf("counts: started %d failed %d, stall %+v, after %+v", res.Started, res.Failed, stall, after)
	}
	// The 10th iteration was due at 180ms and starts after nine others of
	// at least 50ms each: its stall step waited at least 450-180 = 270ms.
	if stall.Response.Max < 0.25 {
		t.Errorf("stall response max %.3fs: the wait behind the schedule is hidden", stall.Response.Max)
	}
	if p99 := percentile(t, stall.Service.Percentiles, 99); p99 >= stall.Response.Max || stall.Service.Min < 0.050 {
		t.Errorf("stall service p99 %.3fs min %.3fs, response max %.3fs", p99, stall.Service.Min, stall.Response.Max)
	}
	if stall.Lag.Count != 10 || stall.Lag.Max < 0.25 {
		t.Errorf("stall lag: %d samples, max %.3fs; want 10 and the wait behind the schedule", stall.Lag.Count, stall.Lag.Max)
	}
	if res.Iteration.Max < stall.Response.Max {
		t.Errorf("iteration max %.3fs below its stall step's %.3fs", res.Iteration.Max, stall.Response.Max)
	}
}

func percentile(t *testing.T, ps []resultformat.Percentile, p float64) float64 {
	t.Helper()
	for _, q := range ps {
		if q.P == p {
			return q.Value
		}
	}
	t.Fatalf("no p%g in %v", p, ps)
	return 0
}
