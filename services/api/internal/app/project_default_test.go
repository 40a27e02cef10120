package app

import (
	"net/http"
	"strings"
	"testing"

	"github.com/barrage-dev/barrage/services/api/client"
)

// TestRunProjectDefaultsToTheOnlyOne checks a newcomer's first run: the
// first admin's token names no project, and with one project on the
// install POST /runs without "project" lands in it. Once there are two,
// the same request gets a 422 on "project" that lists both.
func TestRunProjectDefaultsToTheOnlyOne(t *testing.T) {
	t.Parallel()
	e := startAPI(t)
	body := map[string]any{"spec": map[string]any{"url": "http://target.test/", "qps": 10, "duration": "5s"}}
	run := decode[client.Run](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/runs", e.AdminToken, body))
	def := decode[client.Project](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/projects/default", e.AdminToken, nil))
	if run.ProjectId != def.Id {
		t.Fatalf("run in project %s, want default (%s), the only one", run.ProjectId, def.Id)
	}

	e.mustDo(t, http.StatusCreated, http.MethodPost, "/projects", e.AdminToken, map[string]any{"slug": "payments", "name": "Payments"})
	status, header, raw := e.do(t, http.MethodPost, "/runs", e.AdminToken, body)
	p := wantProblem(t, status, header, raw, http.StatusUnprocessableEntity, "validation")
	msg, ok := fieldMessage(p, "project")
	if !ok || !strings.Contains(msg, "default") || !strings.Contains(msg, "payments") {
		t.Fatalf("problem %s: want field project listing default and payments", raw)
	}
}
