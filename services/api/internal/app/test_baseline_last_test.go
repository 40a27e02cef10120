package app

import (
	"net/http"
	"testing"

	"github.com/barrage-dev/barrage/services/api/client"
)

// TestTestBaselineLast checks a stored test's baseline_last against real
// Postgres: kept on the test's row and shown, given to runs of the test
// that ask for no baseline of their own, overridden by one that does,
// cleared by a replace without it, and out of 1..20 a 422 naming it.
func TestTestBaselineLast(t *testing.T) {
	t.Parallel()
	e := startAPI(t)
	body := map[string]any{"project": "default", "name": "pooled by default", "spec": testSpec(),
		"thresholds": []string{"p(99) < baseline * 1.10 @ 95%"}, "baseline_last": 4}
	test := decode[client.Test](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/tests", e.AdminToken, body))
	if test.BaselineLast == nil || *test.BaselineLast != 4 {
		t.Fatalf("created test baseline_last %v, want 4", test.BaselineLast)
	}
	if n := e.count(t, "SELECT count(*) FROM tests WHERE id = $1 AND baseline_last = 4", test.Id); n != 1 {
		t.Error("tests.baseline_last not stored")
	}
	got := decode[client.Test](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/tests/"+test.Id.String(), e.AdminToken, nil))
	if got.BaselineLast == nil || *got.BaselineLast != 4 {
		t.Errorf("GET test baseline_last %v, want 4", got.BaselineLast)
	}

	runOf := func(extra map[string]any) client.Run {
		t.Helper()
		b := map[string]any{"test": test.Id.String()}
		for k, v := range extra {
			b[k] = v
		}
		return decode[client.Run](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/runs", e.AdminToken, b))
	}
	if r := runOf(nil); r.BaselineLast == nil || *r.BaselineLast != 4 {
		t.Errorf("a run of the test has baseline_last %v, want the test's 4", r.BaselineLast)
	}
	if r := runOf(map[string]any{"baseline_last": 2}); r.BaselineLast == nil || *r.BaselineLast != 2 {
		t.Errorf("a run asking for 2 has baseline_last %v, want 2", r.BaselineLast)
	}
	other := e.mustRun(t, e.AdminToken, "default", "named baseline", nil)
	e.exec(t, "UPDATE runs SET status = 'completed', verdict = 'pass' WHERE id = $1", other.Id)
	if r := runOf(map[string]any{"baseline_run": other.Id}); r.BaselineLast != nil {
		t.Errorf("a run naming its baseline run has baseline_last %v, want none", *r.BaselineLast)
	}

	delete(body, "project")
	delete(body, "baseline_last")
	replaced := decode[client.Test](t, e.mustDo(t, http.StatusOK, http.MethodPut, "/tests/"+test.Id.String(), e.AdminToken, body))
	if replaced.BaselineLast != nil {
		t.Errorf("replaced without baseline_last: %v, want none", *replaced.BaselineLast)
	}
	if r := runOf(nil); r.BaselineLast != nil {
		t.Errorf("a run of the replaced test has baseline_last %v, want none", *r.BaselineLast)
	}

	for _, n := range []int{0, 21, -1} {
		bad := map[string]any{"project": "default", "name": "bad pool", "spec": testSpec(), "baseline_last": n}
		status, header, raw := e.do(t, http.MethodPost, "/tests", e.AdminToken, bad)
		p := wantProblem(t, status, header, raw, http.StatusUnprocessableEntity, "validation")
		if msg, ok := fieldMessage(p, "baseline_last"); !ok || msg == "" {
			t.Errorf("baseline_last %d: fields %v, want baseline_last", n, problemFields(p))
		}
	}
	if n := e.count(t, "SELECT count(*) FROM tests WHERE name = 'bad pool'"); n != 0 {
		t.Errorf("%d tests stored from bad requests", n)
	}
}
