package app

import (
	"encoding/csv"
	"encoding/json"
	"maps"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/pkg/fortiojson"
	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/services/api/client"
	echoserver "github.com/barrage-dev/barrage/services/echo/echo"
)

// loginScenario is a login then a read (docs/scenarios.md) against the real
// echo at base: the login's response carries a token in a header set by
// echo's header= parameter, the read sends it back (its /debug page shows
// the request's headers), and a third step's check fails on every
// iteration by name.
func loginScenario(base string) map[string]any {
	return map[string]any{
		"name": "login flow",
		"vars": map[string]any{"user": "ann"},
		"steps": []any{
			map[string]any{
				"name": "login", "method": "POST", "url": base + "/login?header=X-Token:tok-{{.iteration}}",
				"headers": map[string]any{"Content-Type": "application/json"}, "body": `{"user":"{{.user}}"}`,
				"extract": []any{map[string]any{"var": "token", "header": "X-Token"}},
				"checks":  []any{map[string]any{"name": "login ok", "status": []any{200}}},
			},
			map[string]any{
				"name": "profile", "url": base + "/debug", "headers": map[string]any{"Authorization": "Bearer {{.token}}"},
				"checks": []any{
					map[string]any{"name": "profile ok", "status": []any{200}},
					map[string]any{"name": "token sent", "body_matches": "Authorization: Bearer tok-[0-9]+"},
				},
			},
			map[string]any{
				"name": "create", "url": base + "/items", "continue_on_failure": true,
				"checks": []any{map[string]any{"name": "created", "status": []any{201}}},
			},
		},
	}
}

// TestScenarioRunValidation: every bad scenario is a 422 naming its field
// under spec.scenario, and nothing is stored.
func TestScenarioRunValidation(t *testing.T) {
	t.Parallel()
	e := startAPI(t)
	edit := func(f func(sc map[string]any, sp map[string]any)) map[string]any {
		sc := loginScenario("http://127.0.0.1:8088")
		sp := map[string]any{"scenario": sc, "iterations_per_second": 10, "count": 20}
		f(sc, sp)
		return sp
	}
	step := func(sc map[string]any, i int) map[string]any { return sc["steps"].([]any)[i].(map[string]any) }
	tests := []struct {
		name  string
		spec  map[string]any
		field string
		msg   string
	}{
		{"unknown variable", edit(func(sc, _ map[string]any) {
			step(sc, 1)["headers"] = map[string]any{"Authorization": "Bearer {{.tokn}}"}
		}), "spec.scenario.steps[1].headers.Authorization", `unknown variable "tokn"`},
		{"bad json path", edit(func(sc, _ map[string]any) {
			step(sc, 0)["extract"] = []any{map[string]any{"var": "token", "json_path": "$.[["}}
		}), "spec.scenario.steps[0].extract[0].json_path", ""},
		{"bad regex", edit(func(sc, _ map[string]any) {
			step(sc, 1)["checks"] = []any{map[string]any{"name": "x", "body_matches": "(["}}
		}), "spec.scenario.steps[1].checks[0].body_matches", "missing"},
		{"unknown step field", edit(func(sc, _ map[string]any) { step(sc, 2)["colour"] = "red" }), "spec.scenario.steps[2].colour", "unknown field"},
		{"templated host", edit(func(sc, _ map[string]any) { step(sc, 1)["url"] = "http://{{.token}}/debug" }), "spec.scenario.steps[1].url", "may not take variables"},
		{"step target refused", edit(func(sc, _ map[string]any) { step(sc, 2)["url"] = "http://169.254.169.254/latest" }),
			"spec.scenario.steps[2].url", "cloud metadata address"},
		{"open without a rate", edit(func(_, sp map[string]any) { delete(sp, "iterations_per_second"); sp["pacing"] = "open" }),
			"spec.iterations_per_second", "greater than 0"},
		{"closed with a rate", edit(func(_, sp map[string]any) { sp["pacing"] = "closed" }), "spec.iterations_per_second", "has no rate"},
		{"a plain run's field", edit(func(_, sp map[string]any) { sp["qps"] = 100 }), "spec.qps", "does not apply to a scenario run"},
		{"no steps", edit(func(sc, _ map[string]any) { sc["steps"] = []any{} }), "spec.scenario.steps", ""},
		{"a malformed data file", edit(func(sc, _ map[string]any) { sc["data"] = map[string]any{"content": "user\nann\nbob,1\n"} }),
			"spec.scenario.data.content", "line 3: wrong number of fields"},
		{"a data file too large", edit(func(sc, _ map[string]any) {
			sc["data"] = map[string]any{"content": "user\n" + strings.Repeat("a-user-name\n", 50_000)}
		}), "spec.scenario.data.content", "600005 bytes, more than the 524288 a scenario may carry"},
		{"a data file's path", edit(func(sc, _ map[string]any) { sc["data"] = map[string]any{"file": "users.csv"} }),
			"spec.scenario.data.file", "give the file's text in content"},
		{"a data column that is also a var", edit(func(sc, _ map[string]any) { sc["data"] = map[string]any{"content": "user\nbob\n"} }),
			"spec.scenario.data.content", `column "user" is also in vars`},
	}
	refused := func(t *testing.T, body map[string]any, field, want string) {
		t.Helper()
		status, header, raw := e.do(t, http.MethodPost, "/runs", e.AdminToken, body)
		p := wantProblem(t, status, header, raw, http.StatusUnprocessableEntity, "validation")
		if msg, ok := fieldMessage(p, field); !ok || !strings.Contains(msg, want) {
			t.Fatalf("fields %v (want %s with %q): %s", problemFields(p), field, want, raw)
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			refused(t, map[string]any{"project": "default", "spec": tt.spec}, tt.field, tt.msg)
		})
	}
	// Thresholds by step and by check name what the scenario has.
	for _, tt := range []struct {
		name       string
		spec       map[string]any
		thresholds []string
		field, msg string
	}{
		{"a threshold's unknown step", edit(func(_, _ map[string]any) {}), []string{"p(99) < 1s", `step("checkout").p(99) < 300ms`},
			"thresholds[1]", `no step named "checkout" (its steps: "login", "profile", "create")`},
		{"a threshold's unknown check", edit(func(_, _ map[string]any) {}), []string{`checks("status is 200") > 99.9%`},
			"thresholds[0]", `no check named "status is 200" (its checks: "login ok", "profile ok", "token sent", "created")`},
		{"a step threshold without a scenario", map[string]any{"url": "http://127.0.0.1:8088/", "qps": 10, "duration": "1s"},
			[]string{`step("login").count > 0`}, "thresholds[0]", "the spec has no scenario"},
		{"a step threshold with a baseline", edit(func(_, _ map[string]any) {}), []string{`step("login").p(99) < baseline`},
			"thresholds[0]", "takes a fixed limit, not a baseline"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			refused(t, map[string]any{"project": "default", "spec": tt.spec, "thresholds": tt.thresholds}, tt.field, tt.msg)
		})
	}
	t.Run("a valid one is accepted and its secrets redacted", func(t *testing.T) {
		t.Parallel()
		sc := loginScenario("http://127.0.0.1:8088")
		sc["steps"].([]any)[1].(map[string]any)["headers"] = map[string]any{"Authorization": "Bearer s3cret-value"}
		sc["data"] = map[string]any{"content": "order,password\n1,row-s3cret\n2,other-s3cret\n", "split": true}
		run := decode[client.Run](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/runs", e.AdminToken, map[string]any{
			"project": "default", "spec": map[string]any{"scenario": sc, "iterations_per_second": 10, "count": 20},
		}))
		raw := string(e.mustDo(t, http.StatusOK, http.MethodGet, "/runs/"+run.Id.String(), e.AdminToken, nil))
		if strings.Contains(raw, "s3cret-value") || !strings.Contains(raw, `"Authorization":"REDACTED"`) {
			t.Errorf("the run shows the step's secret header, or not redacted: %s", raw)
		}
		if run.Spec.URL != "http://127.0.0.1:8088/" {
			t.Errorf("url %q, want the first step's origin", run.Spec.URL)
		}
		if d := run.Spec.Scenario.Data; d == nil || d.Content != "order,password\n1,REDACTED\n2,REDACTED\n" {
			t.Errorf("the run shows its data as %+v, want the password column redacted", d)
		}
		if n := e.count(t, "SELECT count(*) FROM runs WHERE spec::text LIKE '%s3cret%'"); n != 0 {
			t.Errorf("%d runs store the secret in clear", n)
		}
	})
	t.Cleanup(func() {
		if n := e.count(t, "SELECT count(*) FROM runs"); n != 1 {
			t.Errorf("%d runs stored, want only the valid one", n)
		}
	})
}

// TestScenarioRunOnTwoAgents runs the login flow through `barrage run
// -spec` on two real agents against the real echo: 40 iterations, split
// 20 and 20, every step's count exact and summed across the shards, the
// failed check counted by name, and the CLI printing a row per step.
func TestScenarioRunOnTwoAgents(t *testing.T) { // serial: see heavyTests
	e := startAPI(t, "BARRAGE_DISPATCH_WAIT=10s")
	echo := startEchoWith(t, func(o *echoserver.Options) { o.Debug = true }) // /debug shows the request's headers
	startAgents(t, e.NATSURL, 2)
	runSpec := map[string]any{"scenario": loginScenario(echo), "iterations_per_second": 40, "count": 40, "connections": 4}
	file := filepath.Join(t.TempDir(), "login.json")
	b, err := json.Marshal(runSpec)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, b, 0o600); err != nil {
		t.Fatal(err)
	}
	thresholds := []string{`step("login").count == 40`, `checks("created") > 99%`, `checks("token sent") == 100%`,
		`step("profile").response.p(99) < 10s`, `step("create").error_rate == 1`}
	args := []string{"run", "-project", "default", "-spec", file}
	for _, th := range thresholds {
		args = append(args, "--threshold", th)
	}
	r := runCLI(t, e.URL, e.AdminToken, args...)
	id := regexp.MustCompile(`run ([0-9a-f-]{36}) completed`).FindStringSubmatch(r.stdout)
	if id == nil {
		t.Fatalf("no completed run in the CLI's output (exit %d)", r.code)
	}
	if r.code != 99 {
		t.Errorf("exit %d, want 99: the check \"created\" passed on no response", r.code)
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`iterations 40 started, 0 completed, 40 failed`),
		regexp.MustCompile(`(?m)^ {2}login +40 +0 +0 {2}p50 `),
		regexp.MustCompile(`(?m)^ {2}profile +40 +0 +0 {2}p50 `),
		regexp.MustCompile(`(?m)^ {2}create +40 +40 +0 {2}p50 `),
		regexp.MustCompile(`failed check "created": 40`),
	} {
		if !want.MatchString(r.stdout) {
			t.Errorf("the report lacks %s", want)
		}
	}

	res := decode[client.RunResult](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/runs/"+id[1]+"/result", e.AdminToken, nil))
	if res.Count != 120 || res.Errors != 40 || res.Shards != 2 {
		t.Errorf("result count %d errors %d shards %d, want 120, 40, 2", res.Count, res.Errors, res.Shards)
	}
	sc := res.Scenario
	if sc == nil {
		t.Fatal("no scenario in the result")
	}
	if sc.Started != 40 || sc.Failed != 40 || sc.Iteration.Count != 40 {
		t.Errorf("iterations started %d failed %d durations %d, want 40 each", sc.Started, sc.Failed, sc.Iteration.Count)
	}
	names := []string{}
	for _, s := range sc.Steps {
		names = append(names, s.Name)
		if s.Count != 40 || s.Response.Count != 40 || s.RetCodes["200"] != 40 || s.Skipped != 0 {
			t.Errorf("step %s: count %d response times %d codes %v skipped %d, want 40 200s", s.Name, s.Count, s.Response.Count, s.RetCodes, s.Skipped)
		}
	}
	if !slices.Equal(names, []string{"login", "profile", "create"}) {
		t.Fatalf("steps %v", names)
	}
	if got := sc.Steps[2].FailedChecks; len(got) != 1 || got["created"] != 40 || sc.Steps[2].Errors != 40 {
		t.Errorf("create's failed checks %v errors %d, want created: 40", got, sc.Steps[2].Errors)
	}
	if len(sc.Steps[1].FailedChecks) != 0 || sc.Steps[1].Errors != 0 {
		t.Errorf("profile failed %v: the token did not flow from login", sc.Steps[1].FailedChecks)
	}
	// Each second counts the iterations started and ended in it: over the run's seconds, the 40.
	page := decode[client.IntervalPage](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/runs/"+id[1]+"/intervals?limit=1000", e.AdminToken, nil))
	var its client.IntervalIterations
	for _, iv := range page.Items {
		if iv.Iterations != nil {
			its.Started += iv.Iterations.Started
			its.Completed += iv.Iterations.Completed
			its.Failed += iv.Iterations.Failed
		}
	}
	if its.Started != 40 || its.Failed != 40 || its.Completed != 0 || len(page.Items) < 1 {
		t.Errorf("iterations over %d seconds: %+v, want 40 started and failed", len(page.Items), its)
	}
	// Fortio's JSON counts iterations as its calls; the steps stay native.
	fj := decode[fortiojson.Result](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/runs/"+id[1]+"/result?format=fortio", e.AdminToken, nil))
	if fj.DurationHistogram.Count != 40 || fj.RunType != "Scenario 'login flow'" || len(fj.RetCodes) != 1 || fj.RetCodes["FAILED"] != 40 ||
		fj.ErrorsDurationHistogram.Count != 40 || fj.RequestedQPS != "40" {
		t.Errorf("fortio JSON: %s, %d calls, codes %v, %d errors, requested %s; want the 40 failed iterations at 40/s",
			fj.RunType, fj.DurationHistogram.Count, fj.RetCodes, fj.ErrorsDurationHistogram.Count, fj.RequestedQPS)
	}
	// Fortio's -csv is the same histogram: 40 iterations, not 120 requests.
	rows, err := csv.NewReader(strings.NewReader(string(e.mustDo(t, http.StatusOK, http.MethodGet,
		"/runs/"+id[1]+"/result?format=fortio-csv", e.AdminToken, nil)))).ReadAll()
	calls := int64(0)
	for i := 1; err == nil && i < len(rows); i++ {
		n, perr := strconv.ParseInt(rows[i][3], 10, 64)
		calls, err = calls+n, perr
	}
	if err != nil || len(rows) < 2 || calls != 40 {
		t.Errorf("fortio-csv: %d calls over %d rows (%v), want the 40 iterations", calls, len(rows)-1, err)
	}
	// Thresholds by step and by check judge the steps' own figures.
	run := decode[client.Run](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/runs/"+id[1], e.AdminToken, nil))
	outs := outcomes(t, &run, len(thresholds))
	for i, want := range []struct {
		metric   string
		observed float64
		pass     bool
	}{
		{`step("login").count`, 40, true}, {`checks("created")`, 0, false}, {`checks("token sent")`, 1, true},
		{`step("profile").response.p(99)`, -1, true}, {`step("create").error_rate`, 1, true},
	} {
		o := outs[i]
		if o.Metric != want.metric || o.Pass != want.pass || (want.observed >= 0 && o.Observed != want.observed) || (o.Error != nil && *o.Error != "") {
			t.Errorf("threshold %q: metric %s observed %v pass %v error %v; want %s, %v, pass %v", thresholds[i], o.Metric, o.Observed, o.Pass,
				o.Error, want.metric, want.observed, want.pass)
		}
	}
	if p99, want := outs[3].Observed, sc.Steps[1].Response.P99Us; p99 <= 0 || math.Abs(p99-want) > 0.01*want {
		t.Errorf("step profile's p(99) judged %v µs, want the step's p99 %v µs", p99, want)
	}
	if run.Verdict == nil || *run.Verdict != client.Fail {
		t.Errorf("verdict %v, want fail", run.Verdict)
	}

	// Each shard's final carries its part: 20 iterations each, adding up.
	finals := e.shardFinals(t, id[1])
	if len(finals) != 2 {
		t.Fatalf("%d finals, want 2", len(finals))
	}
	for i, f := range finals {
		if f.GetIterationsStarted() != 20 || len(f.GetSteps()) != 3 || f.GetSteps()[0].GetCount() != 20 || f.GetCount() != 60 {
			t.Errorf("shard %d final: %d iterations, %d steps, login %d, count %d; want 20, 3, 20, 60", i,
				f.GetIterationsStarted(), len(f.GetSteps()), f.GetSteps()[0].GetCount(), f.GetCount())
		}
	}
	closed := checkClosedLoopRun(t, e)
	checkStoredScenarioTest(t, e, echo)
	checkSplitDataFile(t, e)

	// The compare view gets each run's iterations and steps.
	cmp := decode[client.RunComparison](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/runs/compare?ids="+id[1]+","+closed, e.AdminToken, nil))
	if len(cmp.Items) != 2 || cmp.Items[0].Scenario == nil || cmp.Items[1].Scenario == nil {
		t.Fatalf("compared %d runs, scenarios %v", len(cmp.Items), cmp.Items)
	}
	open, closedSc := cmp.Items[0].Scenario, cmp.Items[1].Scenario
	if len(open.Steps) != 3 || open.Steps[2].Name != "create" || open.Steps[2].FailedChecks["created"] != 40 || open.Started != 40 ||
		len(closedSc.Steps) != 1 || closedSc.Steps[0].Name != "numbered" || closedSc.Steps[0].Count != 30 || closedSc.Completed != 30 {
		t.Errorf("compared scenarios: %+v and %+v", open, closedSc)
	}
}

// checkClosedLoopRun runs a scenario without a rate on the two agents: a
// closed loop of 4 virtual users, 2 a shard, for exactly 30 iterations.
// The target records the {{.iteration}} each iteration sends: the shards
// number theirs apart (shard 0 the even numbers, shard 1 the odd), so it
// sees 0 to 29 once each. It returns the run's id.
func checkClosedLoopRun(t *testing.T, e *apiEnv) string {
	t.Helper()
	var mu sync.Mutex
	seen := map[int]int{}
	target := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		n, err := strconv.Atoi(r.URL.Query().Get("i"))
		if err != nil {
			n = -1
		}
		mu.Lock()
		seen[n]++
		mu.Unlock()
	}))
	t.Cleanup(target.Close)
	sc := map[string]any{"name": "closed", "steps": []any{
		map[string]any{"name": "numbered", "url": target.URL + "/n?i={{.iteration}}", "checks": []any{map[string]any{"name": "ok", "status": []any{200}}}},
	}}
	created := decode[client.Run](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/runs", e.AdminToken, map[string]any{
		"project": "default", "spec": map[string]any{"scenario": sc, "count": 30, "connections": 4},
	}))
	run := e.waitRun(t, created.Id.String(), 60*time.Second)
	if run.Status != "completed" || run.Spec.Pacing != spec.PacingClosed {
		t.Fatalf("closed-loop run %s, pacing %v", run.Status, run.Spec.Pacing)
	}
	res := decode[client.RunResult](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/runs/"+created.Id.String()+"/result", e.AdminToken, nil))
	if res.Count != 30 || res.Errors != 0 || res.Shards != 2 || res.Scenario == nil || res.Scenario.Started != 30 || res.Scenario.Completed != 30 {
		t.Fatalf("closed-loop result: count %d errors %d shards %d scenario %+v", res.Count, res.Errors, res.Shards, res.Scenario)
	}
	mu.Lock()
	defer mu.Unlock()
	for n := range 30 {
		if seen[n] != 1 {
			t.Fatalf("iteration numbers sent %v: want 0 to 29 once each", seen)
		}
	}
	if len(seen) != 30 {
		t.Fatalf("iteration numbers sent %v: want 0 to 29 once each", seen)
	}
	return created.Id.String()
}

// checkStoredScenarioTest stores a test whose spec is a scenario, with a
// threshold on one of its steps, and runs it: the run is the test's, runs
// the scenario on the agents, and is judged on the step.
func checkStoredScenarioTest(t *testing.T, e *apiEnv, echo string) {
	t.Helper()
	sc := loginScenario(echo)
	sc["steps"] = sc["steps"].([]any)[:2] // login and profile: both pass
	stored := decode[client.Test](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/tests", e.AdminToken, map[string]any{
		"project": "default", "name": "stored login flow",
		"spec":       map[string]any{"scenario": sc, "iterations_per_second": 20, "count": 10, "connections": 2},
		"thresholds": []string{`step("profile").count == 10`, `checks("token sent") == 100%`},
	}))
	created := decode[client.Run](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/runs", e.AdminToken, map[string]any{"test": stored.Id.String()}))
	run := e.waitRun(t, created.Id.String(), 60*time.Second)
	if run.Status != "completed" || run.TestId == nil || *run.TestId != stored.Id || run.Verdict == nil || *run.Verdict != client.Pass {
		t.Fatalf("the stored test's run: %s, test %v, verdict %v", run.Status, run.TestId, run.Verdict)
	}
	res := decode[client.RunResult](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/runs/"+created.Id.String()+"/result", e.AdminToken, nil))
	if res.Scenario == nil || res.Scenario.Completed != 10 || len(res.Scenario.Steps) != 2 || res.Count != 20 {
		t.Fatalf("the stored test's result: count %d, scenario %+v", res.Count, res.Scenario)
	}
}

// checkSplitDataFile runs, through `barrage run -spec`, a scenario whose
// data file (users.csv beside the spec, read by the CLI) is split over the
// two agents: 12 iterations, 6 a shard, over 3 rows. Shard 0 (the even
// iterations) has rows 0 and 2, ann and cat, three times each; shard 1 (the
// odd ones) row 1, bob, six times. Each request carries its row's real
// password, while the stored spec shows it redacted.
func checkSplitDataFile(t *testing.T, e *apiEnv) {
	t.Helper()
	var mu sync.Mutex
	seen := map[string]int{} // "even ann pw-a"
	target := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		parity := "odd"
		if n, err := strconv.Atoi(q.Get("i")); err == nil && n%2 == 0 {
			parity = "even"
		}
		mu.Lock()
		seen[parity+" "+q.Get("user")+" "+r.Header.Get("X-Password")]++
		mu.Unlock()
	}))
	t.Cleanup(target.Close)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "users.csv"), []byte("user,password\nann,pw-a\nbob,pw-b\ncat,pw-c\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	doc := "scenario:\n  name: users\n  data: {file: users.csv, split: true}\n  steps:\n" +
		"    - name: sign in\n      url: " + target.URL + "/in?user={{.user}}&i={{.iteration}}\n" +
		"      headers: {X-Password: '{{.password}}'}\n      checks: [{name: ok, status: [200]}]\n" +
		"count: 12\nconnections: 2\n"
	file := filepath.Join(dir, "users.yaml")
	if err := os.WriteFile(file, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, e.URL, e.AdminToken, "run", "-project", "default", "-spec", file)
	id := regexp.MustCompile(`run ([0-9a-f-]{36}) completed`).FindStringSubmatch(r.stdout)
	if r.code != 0 || id == nil {
		t.Fatalf("barrage run exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	mu.Lock()
	got := maps.Clone(seen)
	mu.Unlock()
	if want := map[string]int{"even ann pw-a": 3, "even cat pw-c": 3, "odd bob pw-b": 6}; !maps.Equal(got, want) {
		t.Errorf("requests by iteration parity, user and password: %v, want %v", got, want)
	}
	run := decode[client.Run](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/runs/"+id[1], e.AdminToken, nil))
	if d := run.Spec.Scenario.Data; d == nil || d.File != "" || d.Content != "user,password\nann,REDACTED\nbob,REDACTED\ncat,REDACTED\n" {
		t.Errorf("the run's data: %+v, want the CLI's inlined file with the passwords redacted", d)
	}
	// A data file the CLI cannot read is its error, naming the field.
	if err := os.WriteFile(file, []byte(strings.Replace(doc, "users.csv", "nope.csv", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	r = runCLI(t, e.URL, e.AdminToken, "run", "-project", "default", "-spec", file)
	if r.code != 2 || !strings.Contains(r.stderr, "scenario.data.file: stat "+filepath.Join(dir, "nope.csv")) {
		t.Errorf("a missing data file: exit %d, stderr %q", r.code, r.stderr)
	}
}
