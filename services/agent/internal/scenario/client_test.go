package scenario_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/services/agent/internal/echoproc"
	"github.com/barrage-dev/barrage/services/agent/internal/scenario"
)

// TestClientSemanticsAgainstEcho pins what the executor's own HTTP/1.1
// client must keep from net/http, one iteration at a time so that every
// iteration reuses the same worker (its connections, buffers, variables):
//   - each iteration starts with an empty cookie jar (the first step never
//     sends the previous iteration's cookie), and a cookie set by a step is
//     sent by the next;
//   - a redirect is not followed: the step sees the 302 and its Location,
//     extracted by a header name in another case than the echo's;
//   - Connection: close from the server: the next step dials again;
//   - a body larger than the read buffer is read whole (the check looks at
//     its end);
//   - a posted body arrives, a variable extracted by a JSON path goes into
//     the next request, and a JSON path check with equals passes.
func TestClientSemanticsAgainstEcho(t *testing.T) {
	t.Parallel()
	echo := startEcho(t)
	doc := strings.Replace(`
name: semantics
steps:
  - name: fresh jar
    url: http://ECHO/debug?header=Set-Cookie:sid%3D{{.iteration}}
    extract:
      - {var: leaked, regex: 'Cookie: (sid=[0-9]+)'}
    continue_on_failure: true
  - name: cookie
    url: http://ECHO/debug?close=true
    extract:
      - {var: sid, regex: 'Cookie: sid=([0-9]+)'}
    checks:
      - {name: one cookie, body_matches: 'Cookie: sid=[0-9]+\n'}
  - name: redirect
    url: http://ECHO/from?status=302&header=Location:/to/{{.sid}}
    extract:
      - {var: where, header: location}
    checks:
      - {name: not followed, status: [302]}
  - name: post
    method: PUT
    url: http://ECHO{{.where}}
    headers: {Content-Type: application/json}
    body: '{"where":"{{.where}}","n":{{.iteration}},"pad":"0123456789"}'
    extract:
      - {var: back, json_path: $.where}
    checks:
      - {name: n back, json_path: $.n, equals: 0}
    continue_on_failure: true
  - name: large
    url: http://ECHO/large?header=X-Back:{{.back}}
    body: 'PAD'
    extract:
      - {var: back2, header: X-BACK}
    checks:
      - {name: whole body, body_matches: '^xx[x]+END$'}
`, "PAD", strings.Repeat("x", 100000)+"END", 1)
	plan := mustPlan(t, doc, echo)
	res, err := scenario.Run(runCtx(t), scenario.Options{Plan: plan, IterationsPerSecond: 100, MaxIterations: 5, Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Started != 5 || res.Failed != 5 {
		t.Fatalf("started %d failed %d; want 5 and 5 (the first step never finds a cookie)", res.Started, res.Failed)
	}
	want := []struct {
		name   string
		errors int64
		code   string
	}{{"fresh jar", 5, "200"}, {"cookie", 0, "200"}, {"redirect", 0, "302"}, {"post", 4, "200"}, {"large", 0, "200"}}
	for i, w := range want {
		s := res.Steps[i]
		if s.Name != w.name || s.Count != 5 || s.Errors != w.errors || s.RetCodes[w.code] != 5 {
			t.Errorf("step %s: count %d errors %d codes %v checks %v extractions %v transport %v; want 5 requests, %d errors, all %s",
				s.Name, s.Count, s.Errors, s.RetCodes, s.FailedChecks, s.FailedExtractions, s.TransportErrors, w.errors, w.code)
		}
	}
	if got := res.Steps[0].FailedExtractions["leaked"]; got != 5 {
		t.Errorf("a previous iteration's cookie reached the first step: leaked extraction failed %d times, want 5", got)
	}
	// Only iteration 0 posts n: 0.
	if got := res.Steps[3].FailedChecks["n back"]; got != 4 {
		t.Errorf("post: failed checks %v, want n back: 4", res.Steps[3].FailedChecks)
	}
}

// TestTimeoutAndCancel: a step slower than the timeout counts as a
// timeout, and the next iteration on the same worker still gets answers;
// cancelling the run ends a request in flight at once, as a transport
// error.
func TestTimeoutAndCancel(t *testing.T) {
	t.Parallel()
	echo := echoproc.Start(t, "-max-delay", "4s").HTTP
	plan := mustPlan(t, `
name: slow
vars: {d: 400ms}
steps:
  - name: slow
    url: http://ECHO/slow?delay={{.d}}
    continue_on_failure: true
  - name: fast
    url: http://ECHO/fast
`, echo)
	res, err := scenario.Run(runCtx(t), scenario.Options{Plan: plan, IterationsPerSecond: 100, MaxIterations: 2, Concurrency: 1, Timeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	slow, fast := res.Steps[0], res.Steps[1]
	if slow.TransportErrors["timeout"] != 2 || slow.RetCodes["-1"] != 2 || fast.RetCodes["200"] != 2 {
		t.Fatalf("slow %+v fast %+v; want 2 timeouts then 2 answers", slow, fast)
	}
	if slow.Service.Max >= 0.4 { // the echo's delay: it waited for the reply
		t.Errorf("a 100ms timeout took %.3fs", slow.Service.Max)
	}

	plan.Vars = map[string]string{"d": "4s"}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	res, err = scenario.Run(ctx, scenario.Options{Plan: plan, IterationsPerSecond: 100, MaxIterations: 1, Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	// Waiting for the reply would take the echo's 4s and count a 200.
	if took := time.Since(start); took >= 3*time.Second {
		t.Errorf("cancelled run took %v: it waited for the reply", took)
	}
	if s := res.Steps[0]; s.TransportErrors["transport"] != 1 || s.RetCodes["-1"] != 1 {
		t.Errorf("cancelled step: %+v, want one transport error", s)
	}
}
