package app

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/client"
	"github.com/barrage-dev/barrage/services/api/internal/httpapi"
)

// readOnlyTables are the tables whose row counts a read-only server must
// leave as they are.
func readOnlyTables() []string {
	return []string{"projects", "tests", "runs", "run_results", "api_tokens", "sessions", "users", "memberships", "audit_log", "sync_sources", "outbox"}
}

// rowCounts counts the rows of every readOnlyTables table.
func rowCounts(t *testing.T, e *apiEnv) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, table := range readOnlyTables() {
		out[table] = e.count(t, "SELECT count(*) FROM "+table)
	}
	return out
}

// statusOf sends one request and returns its status without reading the
// body (event streams do not end).
func statusOf(t *testing.T, e *apiEnv, method, path, token string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, e.URL+path, http.NoBody)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := e.client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	_ = resp.Body.Close()
	return resp.StatusCode
}

// TestReadOnlyRouteTable boots a read-only server on the database of a
// normal one and walks every route its router registers: every write, and
// the GET routes that act (Fortio REST run and stop), is 403 for anyone,
// the dashboard's browse, result and compare reads answer 200 without
// credentials for a public project, the other reads need a token, and no
// row of Postgres changes.
func TestReadOnlyRouteTable(t *testing.T) {
	t.Parallel()
	rw := startAPI(t)
	rw.mustDo(t, http.StatusOK, http.MethodPatch, "/projects/default", rw.AdminToken, map[string]any{"public_results": true})
	test := rw.mustTest(t, rw.AdminToken, "default", "public test")
	first := decode[client.Run](t, rw.mustDo(t, http.StatusCreated, http.MethodPost, "/imports?project=default", rw.AdminToken, fortioDoc(t, "http_duration.json")))
	second := rw.mustRun(t, rw.AdminToken, "default", "queued run", nil)
	rw.mustProject(t, "private")
	private := rw.mustRun(t, rw.AdminToken, "private", "private run", nil)

	ro := startAPI(t, "DATABASE_URL="+rw.DBURL, "BARRAGE_READ_ONLY=true")
	before := rowCounts(t, rw)
	params := strings.NewReplacer(":project", "default", ":run", first.Id.String(), ":test", test.Id.String(),
		":file", "index.tsv", ":user", testAdminEmail, ":token", uuid.NewString(), ":source", uuid.NewString(), ":sync_run", uuid.NewString(), ":search", uuid.NewString(), ":profile", uuid.NewString())
	routes := ro.Handler.(*gin.Engine).Routes()
	if len(routes) < 40 {
		t.Fatalf("the router registers %d routes; too few to be the whole table", len(routes))
	}
	anonymous := httpapi.AnonymousRoutes()
	for _, r := range routes {
		path := params.Replace(r.Path)
		switch r.Path {
		case client.BasePath + "/runs/compare":
			path += "?ids=" + first.Id.String() + "," + second.Id.String()
		case client.BasePath + "/echo-servers":
			path += "?project=default"
		}
		t.Run(r.Method+" "+r.Path, func(t *testing.T) {
			switch {
			case !httpapi.ReadOnlyAllows(r.Method, r.Path):
				for _, token := range []string{"", rw.AdminToken} {
					status, header, raw := ro.do(t, r.Method, path, token, nil)
					wantProblem(t, status, header, raw, http.StatusForbidden, "forbidden")
				}
			case slices.Contains(anonymous, r.Path) || publicRead(r.Path):
				if got := statusOf(t, ro, r.Method, path, ""); got != http.StatusOK {
					t.Errorf("%s %s without credentials = %d, want 200", r.Method, path, got)
				}
			default:
				if got := statusOf(t, ro, r.Method, path, ""); got != http.StatusUnauthorized {
					t.Errorf("%s %s without credentials = %d, want 401", r.Method, path, got)
				}
				if got := statusOf(t, ro, r.Method, path, rw.AdminToken); got != http.StatusOK && got != http.StatusNotFound {
					t.Errorf("%s %s with a token = %d, want 200 (or 404 for a made-up id)", r.Method, path, got)
				}
			}
		})
	}
	// Writes that match no route are refused too, and nobody signs in.
	for _, path := range []string{"/api/v1/no-such-thing", "/", "/fortio/rest/run?url=http://target.test/&token=" + rw.AdminToken} {
		status, header, raw := ro.do(t, http.MethodPost, path, "", nil)
		wantProblem(t, status, header, raw, http.StatusForbidden, "forbidden")
	}
	if m := decode[client.AuthMethods](t, ro.mustDo(t, http.StatusOK, http.MethodGet, "/auth/methods", "", nil)); !m.ReadOnly || m.Password || m.Oidc {
		t.Errorf("GET /auth/methods = %+v, want read-only and no sign-in", m)
	}
	if m := decode[client.AuthMethods](t, rw.mustDo(t, http.StatusOK, http.MethodGet, "/auth/methods", "", nil)); m.ReadOnly || !m.Password {
		t.Errorf("the normal server's GET /auth/methods = %+v", m)
	}
	// Anonymous visitors see the public project only.
	page := decode[client.RunPage](t, ro.mustDo(t, http.StatusOK, http.MethodGet, "/runs", "", nil))
	if ids := ids(page.Items, func(r client.Run) uuid.UUID { return r.Id }); len(ids) != 2 || slices.Contains(ids, private.Id) {
		t.Errorf("anonymous GET /runs lists %v, want the 2 runs of default", ids)
	}
	ro.mustDo(t, http.StatusNotFound, http.MethodGet, "/runs/"+private.Id.String(), "", nil)
	if me := decode[client.Me](t, ro.mustDo(t, http.StatusOK, http.MethodGet, "/me", "", nil)); len(me.Projects) != 1 || me.Projects[0].Role != client.Viewer {
		t.Errorf("anonymous GET /me = %+v, want viewer of default only", me)
	}
	if after := rowCounts(t, rw); !mapsEqual(before, after) {
		t.Errorf("row counts changed on the read-only server: before %v, after %v", before, after)
	}
	var status string
	if err := rw.db.QueryRow(`SELECT status FROM runs WHERE id = $1`, second.Id).Scan(&status); err != nil || status != "queued" {
		t.Errorf("the queued run is %q (%v), want still queued", status, err)
	}
}

// publicRead are the routes outside /api/v1 that anyone reads.
func publicRead(route string) bool {
	switch route {
	case "/healthz", "/readyz", "/metrics", httpapi.FortioDataPath + "/:file",
		client.BasePath + "/openapi.yaml", client.BasePath + "/auth/methods":
		return true
	}
	return false
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
