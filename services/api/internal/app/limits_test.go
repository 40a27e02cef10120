package app

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/barrage-dev/barrage/services/api/client"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
)

// limitsEnv is the deployment limits the tests of project limits run with.
var limitsEnv = []string{
	"BARRAGE_MAX_QPS=1000", "BARRAGE_MAX_CONNECTIONS=50", "BARRAGE_MAX_DURATION=10m",
	"BARRAGE_MAX_AGENTS=4", "BARRAGE_MAX_CONCURRENT_RUNS=20",
}

// deploymentLimits is limitsEnv as the API shows it.
var deploymentLimits = client.LimitValues{MaxQps: 1000, MaxConnections: 50, MaxDuration: "10m0s", MaxAgents: 4, MaxConcurrentRuns: 20}

// mustLimits sets project's own limits as the bootstrap admin.
func (e *apiEnv) mustLimits(t testing.TB, project string, limits map[string]any) client.Project {
	t.Helper()
	raw := e.mustDo(t, http.StatusOK, http.MethodPatch, "/projects/"+project, e.AdminToken, map[string]any{"limits": limits})
	return decode[client.Project](t, raw)
}

// valuesOf returns the effective values of l.
func valuesOf(l client.ProjectLimits) client.LimitValues {
	return client.LimitValues{
		MaxQps: l.MaxQps, MaxConnections: l.MaxConnections, MaxDuration: l.MaxDuration,
		MaxAgents: l.MaxAgents, MaxConcurrentRuns: l.MaxConcurrentRuns,
	}
}

func TestProjectLimitsSetAndCleared(t *testing.T) {
	e := startAPI(t, limitsEnv...)
	p := e.mustProject(t, "capped")
	if got := valuesOf(p.Limits); got != deploymentLimits || len(p.Limits.Overridden) != 0 || p.Limits.Deployment != deploymentLimits {
		t.Fatalf("limits of a new project = %+v, want the deployment's %+v and none overridden", p.Limits, deploymentLimits)
	}

	p = e.mustLimits(t, "capped", map[string]any{"max_qps": 100, "max_duration": "30s", "max_concurrent_runs": 2})
	want := client.LimitValues{MaxQps: 100, MaxConnections: 50, MaxDuration: "30s", MaxAgents: 4, MaxConcurrentRuns: 2}
	if got := valuesOf(p.Limits); got != want {
		t.Errorf("limits after PATCH = %+v, want %+v", got, want)
	}
	overridden := []client.ProjectLimitsOverridden{"max_qps", "max_duration", "max_concurrent_runs"}
	if !slices.Equal(p.Limits.Overridden, overridden) || p.Limits.Deployment != deploymentLimits {
		t.Errorf("overridden = %v, deployment = %+v; want %v and %+v", p.Limits.Overridden, p.Limits.Deployment, overridden, deploymentLimits)
	}
	got := decode[client.Project](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/projects/capped", e.AdminToken, nil))
	if valuesOf(got.Limits) != want {
		t.Errorf("GET after PATCH: limits = %+v, want %+v", got.Limits, want)
	}
	if n := e.count(t, `SELECT count(*) FROM projects WHERE slug = 'capped' AND max_qps = 100 AND max_duration_seconds = 30
		AND max_concurrent_runs = 2 AND max_connections IS NULL AND max_agents IS NULL`); n != 1 {
		t.Errorf("projects row of capped does not hold the limits set (%d rows match)", n)
	}
	if n := e.count(t, `SELECT count(*) FROM audit_log WHERE action = 'project.update' AND project_id = $1
		AND details->'limits'->>'max_qps' = '100' AND details->'limits'->>'max_duration' = '30s'
		AND details->'limits'->>'max_concurrent_runs' = '2' AND details->'limits'->'max_agents' = 'null'`, p.Id); n != 1 {
		t.Errorf("audit_log has %d project.update entries with the new limits, want 1", n)
	}

	// A PATCH without limits keeps them; an empty limits object clears them.
	p = decode[client.Project](t, e.mustDo(t, http.StatusOK, http.MethodPatch, "/projects/capped", e.AdminToken, map[string]any{"description": "kept"}))
	if valuesOf(p.Limits) != want {
		t.Errorf("limits after a PATCH of the description = %+v, want %+v", p.Limits, want)
	}
	p = e.mustLimits(t, "capped", map[string]any{})
	if valuesOf(p.Limits) != deploymentLimits || len(p.Limits.Overridden) != 0 {
		t.Errorf("limits after clearing = %+v, want the deployment's", p.Limits)
	}
	if n := e.count(t, `SELECT count(*) FROM projects WHERE slug = 'capped' AND max_qps IS NULL AND max_duration_seconds IS NULL
		AND max_concurrent_runs IS NULL`); n != 1 {
		t.Error("projects row of capped still holds limits after clearing")
	}
}

func TestProjectLimitsPatchValidation(t *testing.T) {
	e := startAPI(t, limitsEnv...)
	e.mustProject(t, "capped")
	e.mustLimits(t, "capped", map[string]any{"max_connections": 10})
	tests := []struct {
		name   string
		limits map[string]any
		want   []string // fields at fault
		text   string   // in the first field's message
	}{
		{"qps above the deployment's", map[string]any{"max_qps": 1000.5}, []string{"limits.max_qps"}, "at most 1000"},
		{"connections above", map[string]any{"max_connections": 51}, []string{"limits.max_connections"}, "from 1 to 50"},
		{"duration above", map[string]any{"max_duration": "11m"}, []string{"limits.max_duration"}, "at most 10m0s"},
		{"agents above", map[string]any{"max_agents": 5}, []string{"limits.max_agents"}, "from 1 to 4"},
		{"concurrent runs above", map[string]any{"max_concurrent_runs": 21}, []string{"limits.max_concurrent_runs"}, "from 1 to 20"},
		{"zero", map[string]any{"max_qps": 0, "max_connections": 0, "max_duration": 0, "max_agents": 0, "max_concurrent_runs": 0},
			[]string{"limits.max_agents", "limits.max_concurrent_runs", "limits.max_connections", "limits.max_duration", "limits.max_qps"}, "from 1 to 4"},
		{"negative", map[string]any{"max_qps": -5, "max_concurrent_runs": -1}, []string{"limits.max_concurrent_runs", "limits.max_qps"}, "from 1 to 20"},
		{"part of a second", map[string]any{"max_duration": 1.5}, []string{"limits.max_duration"}, "whole number of seconds"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, header, raw := e.do(t, http.MethodPatch, "/projects/capped", e.AdminToken, map[string]any{"limits": tt.limits})
			p := wantProblem(t, status, header, raw, http.StatusUnprocessableEntity, "validation")
			if got := problemFields(p); !slices.Equal(got, tt.want) {
				t.Fatalf("fields = %v, want %v", got, tt.want)
			}
			if msg, _ := fieldMessage(p, tt.want[0]); !strings.Contains(msg, tt.text) {
				t.Errorf("message of %s = %q, want it to say %q", tt.want[0], msg, tt.text)
			}
		})
	}
	if n := e.count(t, `SELECT count(*) FROM projects WHERE slug = 'capped' AND max_connections = 10 AND max_qps IS NULL
		AND max_duration_seconds IS NULL AND max_agents IS NULL AND max_concurrent_runs IS NULL`); n != 1 {
		t.Error("a refused PATCH changed the limits of capped")
	}
}

func TestProjectLimitsNeedAdmin(t *testing.T) {
	e := startAPI(t, limitsEnv...)
	e.mustProject(t, "capped")
	e.mustProject(t, "elsewhere")
	body := map[string]any{"limits": map[string]any{"max_concurrent_runs": 1}}
	for _, c := range []struct {
		name, token string
		status      int
		slug        string
	}{
		{"viewer", e.mustToken(t, "capped", auth.Viewer), http.StatusForbidden, "forbidden"},
		{"runner", e.mustToken(t, "capped", auth.Runner), http.StatusForbidden, "forbidden"},
		{"other project's admin", e.mustToken(t, "elsewhere", auth.Admin), http.StatusNotFound, "not-found"},
	} {
		status, header, raw := e.do(t, http.MethodPatch, "/projects/capped", c.token, body)
		wantProblem(t, status, header, raw, c.status, c.slug)
	}
	if n := e.count(t, "SELECT count(*) FROM projects WHERE slug = 'capped' AND max_concurrent_runs IS NULL"); n != 1 {
		t.Error("a non-admin PATCH set the limit")
	}
	// Viewers read the limits in force.
	viewer := e.mustToken(t, "capped", auth.Viewer)
	p := decode[client.Project](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/projects/capped", viewer, nil))
	if valuesOf(p.Limits) != deploymentLimits {
		t.Errorf("viewer reads limits %+v, want %+v", p.Limits, deploymentLimits)
	}
}

func TestRunOverProjectLimit(t *testing.T) {
	e := startAPI(t, limitsEnv...)
	e.mustProject(t, "capped")
	fast := testSpec()
	fast["qps"] = 500
	test := decode[client.Test](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/tests", e.AdminToken,
		map[string]any{"project": "capped", "name": "fast", "spec": fast}))
	e.mustLimits(t, "capped", map[string]any{"max_qps": 100, "max_connections": 8, "max_duration": "30s", "max_agents": 2})
	runner := e.mustToken(t, "capped", auth.Runner)
	tests := []struct {
		name    string
		edit    func(map[string]any)
		field   string
		message string
	}{
		{"qps", func(s map[string]any) { s["qps"] = 150 }, "spec.qps", "must be at most 100, this project's limit"},
		{"connections", func(s map[string]any) { s["connections"] = 9 }, "spec.connections", "must be at most 8, this project's limit"},
		{"duration", func(s map[string]any) { s["duration"] = "31s" }, "spec.duration", "must be at most 30s, this project's limit"},
		{"agents", func(s map[string]any) { s["agents"] = map[string]any{"count": 3} }, "spec.agents.count", "must be at most 2, this project's limit"},
		{"over the deployment's", func(s map[string]any) { s["connections"] = 60 }, "spec.connections", "must be at most 8, this project's limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sp := testSpec()
			tt.edit(sp)
			status, header, raw := e.do(t, http.MethodPost, "/runs", runner, map[string]any{"project": "capped", "spec": sp})
			p := wantProblem(t, status, header, raw, http.StatusUnprocessableEntity, "validation")
			if got := problemFields(p); !slices.Equal(got, []string{tt.field}) {
				t.Fatalf("fields = %v, want [%s]", got, tt.field)
			}
			if msg, _ := fieldMessage(p, tt.field); msg != tt.message {
				t.Errorf("message = %q, want %q", msg, tt.message)
			}
		})
	}
	// A test stored before the project lowered its limits is held to them
	// when it starts a run; a test saved now must fit them.
	status, header, raw := e.do(t, http.MethodPost, "/runs", runner, map[string]any{"test": test.Id})
	p := wantProblem(t, status, header, raw, http.StatusUnprocessableEntity, "validation")
	if msg, _ := fieldMessage(p, "spec.qps"); msg != "must be at most 100, this project's limit" {
		t.Errorf("run of the stored test: spec.qps message = %q; body %s", msg, raw)
	}
	status, header, raw = e.do(t, http.MethodPost, "/tests", e.AdminToken, map[string]any{"project": "capped", "name": "faster", "spec": fast})
	p = wantProblem(t, status, header, raw, http.StatusUnprocessableEntity, "validation")
	if msg, _ := fieldMessage(p, "spec.qps"); msg != "must be at most 100, this project's limit" {
		t.Errorf("POST /tests: spec.qps message = %q; body %s", msg, raw)
	}
	status, header, raw = e.do(t, http.MethodPut, "/tests/"+test.Id.String(), e.AdminToken, map[string]any{"name": "fast", "spec": fast})
	p = wantProblem(t, status, header, raw, http.StatusUnprocessableEntity, "validation")
	if msg, _ := fieldMessage(p, "spec.qps"); msg != "must be at most 100, this project's limit" {
		t.Errorf("PUT /tests: spec.qps message = %q; body %s", msg, raw)
	}
	if n := e.count(t, "SELECT count(*) FROM runs r JOIN projects p ON p.id = r.project_id WHERE p.slug = 'capped'"); n != 0 {
		t.Errorf("%d runs stored, want none", n)
	}
	// Another project keeps the deployment's limits.
	sp := testSpec()
	sp["qps"] = 150
	e.mustDo(t, http.StatusCreated, http.MethodPost, "/runs", e.AdminToken, map[string]any{"project": "default", "spec": sp})
}

func TestConcurrentRunsLimit(t *testing.T) {
	e := startAPI(t, limitsEnv...) // no agents: runs stay queued
	e.mustProject(t, "capped")
	e.mustLimits(t, "capped", map[string]any{"max_concurrent_runs": 2})
	runner := e.mustToken(t, "capped", auth.Runner)
	body := map[string]any{"project": "capped", "spec": testSpec()}
	first := decode[client.Run](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/runs", runner, body, "Idempotency-Key", "first"))
	e.mustDo(t, http.StatusCreated, http.MethodPost, "/runs", runner, body)

	status, header, raw := e.do(t, http.MethodPost, "/runs", runner, body)
	p := wantProblem(t, status, header, raw, http.StatusTooManyRequests, "quota-exceeded")
	if header.Get("Retry-After") != "10" {
		t.Errorf("Retry-After = %q, want 10", header.Get("Retry-After"))
	}
	if p.Detail == nil || !strings.Contains(*p.Detail, "max_concurrent_runs") || !strings.Contains(*p.Detail, "2 runs") {
		t.Errorf("detail = %v, want it to name max_concurrent_runs and 2 runs", p.Detail)
	}
	// A replay of the first request returns its run and counts nothing.
	again := decode[client.Run](t, e.mustDo(t, http.StatusOK, http.MethodPost, "/runs", runner, body, "Idempotency-Key", "first"))
	if again.Id != first.Id {
		t.Errorf("replay returned run %s, want %s", again.Id, first.Id)
	}
	// A stored test's run is held to the same cap.
	test := e.mustTest(t, e.AdminToken, "capped", "stored")
	status, header, raw = e.do(t, http.MethodPost, "/runs", runner, map[string]any{"test": test.Id})
	wantProblem(t, status, header, raw, http.StatusTooManyRequests, "quota-exceeded")
	if n := e.count(t, "SELECT count(*) FROM runs r JOIN projects p ON p.id = r.project_id WHERE p.slug = 'capped'"); n != 2 {
		t.Fatalf("%d runs stored, want 2", n)
	}

	// A finished run frees its place.
	e.mustDo(t, http.StatusOK, http.MethodPost, "/runs/"+first.Id.String()+"/stop", runner, nil)
	e.mustDo(t, http.StatusCreated, http.MethodPost, "/runs", runner, map[string]any{"test": test.Id})
	status, header, raw = e.do(t, http.MethodPost, "/runs", runner, body)
	wantProblem(t, status, header, raw, http.StatusTooManyRequests, "quota-exceeded")
}

func TestConcurrentRunsLimitUnderConcurrentSubmits(t *testing.T) {
	e := startAPI(t, limitsEnv...)
	e.mustProject(t, "capped")
	e.mustLimits(t, "capped", map[string]any{"max_concurrent_runs": 1})
	runner := e.mustToken(t, "capped", auth.Runner)
	const submits = 12
	body := map[string]any{"project": "capped", "spec": testSpec()}

	statuses := make([]int, submits)
	errs := make([]error, submits)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range submits {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
			defer cancel()
			<-start
			statuses[i], _, _, errs[i] = e.request(ctx, http.MethodPost, "/runs", runner, body)
		})
	}
	close(start)
	wg.Wait()
	created, refused := 0, 0
	for i := range submits {
		switch {
		case errs[i] != nil:
			t.Fatalf("submit %d: %v", i, errs[i])
		case statuses[i] == http.StatusCreated:
			created++
		case statuses[i] == http.StatusTooManyRequests:
			refused++
		default:
			t.Errorf("submit %d answered %d", i, statuses[i])
		}
	}
	if created != 1 || refused != submits-1 {
		t.Errorf("%d submits: %d created and %d refused, want 1 and %d", submits, created, refused, submits-1)
	}
	if n := e.count(t, "SELECT count(*) FROM runs r JOIN projects p ON p.id = r.project_id WHERE p.slug = 'capped'"); n != 1 {
		t.Errorf("%d runs in Postgres, want 1", n)
	}
	if n := e.count(t, "SELECT count(*) FROM outbox WHERE topic = 'run.dispatch' AND key IN (SELECT r.id::text FROM runs r JOIN projects p ON p.id = r.project_id WHERE p.slug = 'capped')"); n != 1 {
		t.Errorf("%d dispatch outbox rows, want 1", n)
	}
}

func TestConcurrentReplaysCountOnce(t *testing.T) {
	e := startAPI(t, limitsEnv...)
	e.mustProject(t, "capped")
	e.mustLimits(t, "capped", map[string]any{"max_concurrent_runs": 1})
	runner := e.mustToken(t, "capped", auth.Runner)
	const submits = 8
	body := map[string]any{"project": "capped", "spec": testSpec()}

	type answer struct {
		status int
		raw    []byte
		err    error
	}
	answers := make([]answer, submits)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range submits {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
			defer cancel()
			<-start
			a := &answers[i]
			a.status, _, a.raw, a.err = e.request(ctx, http.MethodPost, "/runs", runner, body, "Idempotency-Key", "same")
		})
	}
	close(start)
	wg.Wait()
	created := 0
	runIDs := map[string]bool{}
	for i, a := range answers {
		if a.err != nil {
			t.Fatalf("submit %d: %v", i, a.err)
		}
		if a.status != http.StatusCreated && a.status != http.StatusOK {
			t.Fatalf("submit %d = %d, want 201 or 200 (a replay); body %s", i, a.status, a.raw)
		}
		if a.status == http.StatusCreated {
			created++
		}
		runIDs[decode[client.Run](t, a.raw).Id.String()] = true
	}
	if created != 1 || len(runIDs) != 1 {
		t.Errorf("%d created, %d distinct runs; want 1 and 1", created, len(runIDs))
	}
	if n := e.count(t, "SELECT count(*) FROM runs r JOIN projects p ON p.id = r.project_id WHERE p.slug = 'capped'"); n != 1 {
		t.Errorf("%d runs in Postgres, want 1", n)
	}
}
