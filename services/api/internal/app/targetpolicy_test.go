package app

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/barrage-dev/barrage/pkg/dnstest"
	"github.com/barrage-dev/barrage/services/api/client"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
)

// runStatus submits a one-second run of target in project as token and
// returns the status and body.
func (e *apiEnv) runStatus(t *testing.T, token, project, target string) (int, http.Header, []byte) {
	t.Helper()
	body := map[string]any{"project": project, "spec": map[string]any{"url": target, "qps": 10, "duration": "1s"}}
	return e.do(t, http.MethodPost, "/runs", token, body)
}

// wantForbiddenFields checks a 403 problem naming exactly fields.
func wantForbiddenFields(t *testing.T, status int, header http.Header, raw []byte, fields ...string) {
	t.Helper()
	p := wantProblem(t, status, header, raw, http.StatusForbidden, "forbidden")
	if got := problemFields(p); !slices.Equal(got, fields) {
		t.Errorf("problem fields = %q, want %q; body: %s", got, fields, raw)
	}
}

// allowListOf returns project slug's allow-list and granted entries as
// stored in Postgres.
func (e *apiEnv) allowListOf(t *testing.T, slug string) (list, granted []string) {
	t.Helper()
	p := decode[client.Project](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/projects/"+slug, e.AdminToken, nil))
	var n int
	if err := e.db.QueryRowContext(t.Context(), `SELECT count(*) FROM projects WHERE slug = $1
		AND target_allow_list = $2::text[] AND target_allow_granted = $3::text[]`,
		slug, p.TargetAllowList, p.TargetAllowGranted).Scan(&n); err != nil || n != 1 {
		t.Fatalf("project %s in Postgres does not hold the lists the API shows (%d rows, %v)", slug, n, err)
	}
	return p.TargetAllowList, p.TargetAllowGranted
}

// TestProjectAdminOnlyNarrowsOrgPolicy: a project admin cannot list the
// Docker socket, a private CIDR or loopback (403 naming the entry, nothing
// stored); once the org admin's policy covers a private range, the project
// admin may list inside it and runs reach it; the org admin may grant a
// socket to one project; a project entry the policy no longer covers stops
// working for runs and syncs (docs/security.md, "Target policy").
func TestProjectAdminOnlyNarrowsOrgPolicy(t *testing.T) {
	t.Parallel()
	e := startAPI(t)
	e.mustDo(t, http.StatusCreated, http.MethodPost, "/projects", e.AdminToken, map[string]any{"slug": "team", "name": "Team"})
	admin := e.mustMemberToken(t, "padmin", "team", auth.Admin).Secret
	patch := func(token string, list ...string) (int, http.Header, []byte) {
		return e.do(t, http.MethodPatch, "/projects/team", token, map[string]any{"target_allow_list": list})
	}

	// The default policy is "*": public entries are the project admin's.
	if p := decode[client.OrgTargetPolicy](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/org/target-policy", admin, nil)); !slices.Equal(p.TargetAllowList, []string{"*"}) {
		t.Fatalf("default org policy = %q, want [*]", p.TargetAllowList)
	}
	if status, _, raw := patch(admin, "api.example.com", "93.184.216.0/24"); status != http.StatusOK {
		t.Fatalf("project admin listing public entries = %d, want 200; body: %s", status, raw)
	}
	status, header, raw := patch(admin, "api.example.com", "unix:/var/run/docker.sock")
	wantForbiddenFields(t, status, header, raw, "target_allow_list[1]")
	status, header, raw = patch(admin, "10.0.0.0/8", "api.example.com", "127.0.0.1")
	wantForbiddenFields(t, status, header, raw, "target_allow_list[0]", "target_allow_list[2]")
	if list, _ := e.allowListOf(t, "team"); !slices.Equal(list, []string{"api.example.com", "93.184.216.0/24"}) {
		t.Errorf("after refused changes the list is %q, want the last accepted one", list)
	}
	// The project admin's runner cannot reach the socket either.
	status, header, raw = e.do(t, http.MethodPost, "/runs", admin, map[string]any{"project": "team",
		"spec": map[string]any{"url": "http://docker/containers/json", "unix_socket": "/var/run/docker.sock", "qps": 1, "duration": "1s"}})
	if p := wantProblem(t, status, header, raw, http.StatusUnprocessableEntity, "validation"); !slices.Contains(problemFields(p), "spec.unix_socket") {
		t.Errorf("run on the Docker socket: fields %q, want spec.unix_socket", problemFields(p))
	}

	// Only an org admin sets the outer policy.
	status, header, raw = e.do(t, http.MethodPut, "/org/target-policy", admin, map[string]any{"target_allow_list": []string{"*", "10.0.0.0/8"}})
	wantProblem(t, status, header, raw, http.StatusForbidden, "forbidden")
	status, header, raw = e.do(t, http.MethodPut, "/org/target-policy", e.AdminToken, map[string]any{"target_allow_list": []string{"*", "10.0.0.0/33"}})
	if p := wantProblem(t, status, header, raw, http.StatusUnprocessableEntity, "validation"); !slices.Equal(problemFields(p), []string{"target_allow_list[1]"}) {
		t.Errorf("bad policy entry: fields %q, want target_allow_list[1]", problemFields(p))
	}
	e.mustDo(t, http.StatusOK, http.MethodPut, "/org/target-policy", e.AdminToken,
		map[string]any{"target_allow_list": []string{"*", "10.20.0.0/16", "127.0.0.0/8"}})
	if status, _, raw := patch(admin, "10.20.1.0/24", "127.0.0.1"); status != http.StatusOK {
		t.Fatalf("project admin narrowing the org policy = %d, want 200; body: %s", status, raw)
	}
	status, header, raw = patch(admin, "10.20.1.0/24", "10.21.0.0/16")
	wantForbiddenFields(t, status, header, raw, "target_allow_list[1]")
	if status, _, raw := e.runStatus(t, admin, "team", "http://10.20.1.5:8080/"); status != http.StatusCreated {
		t.Errorf("run inside the narrowed policy = %d, want 201; body: %s", status, raw)
	}
	status, header, raw = e.runStatus(t, admin, "team", "http://10.20.2.5:8080/")
	wantTargetRefused(t, status, header, raw, "10.20.2.5", "private address", "allow-list")

	// An org admin may grant the socket to this project alone.
	e.mustDo(t, http.StatusOK, http.MethodPatch, "/projects/team", e.AdminToken,
		map[string]any{"target_allow_list": []string{"10.20.1.0/24", "127.0.0.1", "unix:/run/app.sock"}})
	if list, granted := e.allowListOf(t, "team"); len(list) != 3 || !slices.Equal(granted, []string{"unix:/run/app.sock"}) {
		t.Errorf("after the org admin's change: list %q granted %q, want the socket granted", list, granted)
	}
	// The project admin may keep the grant, not add another socket.
	if status, _, raw := patch(admin, "unix:/run/app.sock", "127.0.0.1"); status != http.StatusOK {
		t.Errorf("project admin keeping a grant = %d, want 200; body: %s", status, raw)
	}
	status, header, raw = patch(admin, "unix:/run/app.sock", "unix:/run/other.sock")
	wantForbiddenFields(t, status, header, raw, "target_allow_list[1]")

	// The org admin narrows the policy: the project's 127.0.0.1, which the
	// old policy covered and nobody granted, stops working for runs and
	// for syncs, while the granted socket stays.
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		_, _ = io.WriteString(w, "TsvHttpData-1.0\n")
	}))
	t.Cleanup(srv.Close)
	src := decode[client.SyncSource](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/sync-sources", e.AdminToken,
		map[string]any{"project": "team", "name": "loop", "url": srv.URL + "/index.tsv", "interval_minutes": 0}))
	if run := e.mustSyncOf(t, src); run.Status != client.SyncSucceeded || hits.Load() != 1 {
		t.Fatalf("sync inside the policy = %s (error %q), %d requests; want succeeded with 1", run.Status, val(run.Error), hits.Load())
	}
	e.mustDo(t, http.StatusOK, http.MethodPut, "/org/target-policy", e.AdminToken, map[string]any{"target_allow_list": []string{"*"}})
	status, header, raw = e.runStatus(t, admin, "team", "http://127.0.0.1:8080/")
	wantTargetRefused(t, status, header, raw, "127.0.0.1", "outside the organisation's target policy")
	if run := e.mustSyncOf(t, src); run.Status != client.SyncFailed || !strings.Contains(val(run.Error), "outside the organisation's target policy") || hits.Load() != 1 {
		t.Errorf("sync outside the policy = %s (error %q), %d requests; want failed, unreached", run.Status, val(run.Error), hits.Load())
	}
	status, _, raw = e.do(t, http.MethodPost, "/runs", admin, map[string]any{"project": "team",
		"spec": map[string]any{"url": "http://app/", "unix_socket": "/run/app.sock", "qps": 1, "duration": "1s"}})
	if status != http.StatusCreated {
		t.Errorf("run on the granted socket = %d, want 201; body: %s", status, raw)
	}
}

// mustSyncOf runs a sync of src as the bootstrap admin and waits for it.
func (e *apiEnv) mustSyncOf(t *testing.T, src client.SyncSource) client.SyncRun {
	t.Helper()
	started := decode[client.SyncRun](t, e.mustDo(t, http.StatusAccepted, http.MethodPost, "/sync-sources/"+src.Id.String()+"/run", e.AdminToken, nil))
	var run client.SyncRun
	waitFor(t, syncTimeout, func() error {
		run = decode[client.SyncRun](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/sync-runs/"+started.Id.String(), e.AdminToken, nil))
		if run.Status == client.SyncRunning {
			return errNotYet
		}
		return nil
	})
	return run
}

// TestControlPlaneDeniedWhateverThePolicy: with an org policy and a project
// list that open all of loopback, runs still cannot reach the API's
// address, its Postgres or its NATS (on loopback: their ports), by IP or by
// a name, and the refusal never shows what the name resolved to; syncs
// cannot reach Postgres or NATS either.
func TestControlPlaneDeniedWhateverThePolicy(t *testing.T) {
	t.Parallel()
	e := startAPI(t)
	e.DNS.Set("cp.test", netip.MustParseAddr("127.0.0.1"))
	everything := []string{"*", "127.0.0.0/8", "::1", "localhost", "cp.test"}
	e.mustDo(t, http.StatusOK, http.MethodPut, "/org/target-policy", e.AdminToken, map[string]any{"target_allow_list": everything})
	e.mustDo(t, http.StatusOK, http.MethodPatch, "/projects/default", e.AdminToken, map[string]any{"target_allow_list": everything})
	runner := e.mustToken(t, "default", auth.Runner)
	for name, hp := range map[string]string{"api": hostPort(t, e.URL), "nats": hostPort(t, e.NATSURL), "postgres": hostPort(t, e.DBURL)} {
		_, port, _ := strings.Cut(hp, ":")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			status, header, raw := e.runStatus(t, runner, "default", "tcp://"+hp)
			wantTargetRefused(t, status, header, raw, hp, "control-plane address")
			status, header, raw = e.runStatus(t, runner, "default", "http://cp.test:"+port+"/")
			wantTargetRefused(t, status, header, raw, `host "cp.test" port `+port, "control-plane address")
			if strings.Contains(string(raw), "127.0.0.1") {
				t.Errorf("the refusal reveals what cp.test resolves to: %s", raw)
			}
		})
	}
	// A loopback port beside them stays open.
	if status, _, raw := e.runStatus(t, runner, "default", "http://cp.test:8088/"); status != http.StatusCreated {
		t.Errorf("run on another loopback port = %d, want 201; body: %s", status, raw)
	}
	for name, hp := range map[string]string{"nats": hostPort(t, e.NATSURL), "postgres": hostPort(t, e.DBURL)} {
		src := decode[client.SyncSource](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/sync-sources", e.AdminToken,
			map[string]any{"project": "default", "name": name, "url": "http://" + hp + "/index.tsv", "interval_minutes": 0}))
		if run := e.mustSyncOf(t, src); run.Status != client.SyncFailed || !strings.Contains(val(run.Error), "control-plane address") {
			t.Errorf("sync from %s = %s (error %q), want failed on the control-plane address", name, run.Status, val(run.Error))
		}
	}
}

// TestDenylistFollowsDNS: an operator's deny entry (BARRAGE_TARGET_DENY, a
// host with no port: every port) is resolved again by the refresh loop, so
// when the name moves (a failover) the old address opens and the new one
// is refused, on every port; a runner's refusal never names the address.
func TestDenylistFollowsDNS(t *testing.T) {
	t.Parallel()
	dns := dnstest.Start(t)
	dns.Set("target.test", netip.MustParseAddr("127.0.0.1"))
	dns.Set("db-primary.test", netip.MustParseAddr("10.9.0.1"))
	dns.Set("app.test", netip.MustParseAddr("10.9.0.2"))
	e := bootAPI(t, &apiEnv{AdminToken: auth.NewToken().Text, DNS: dns}, []string{
		"BARRAGE_TARGET_DENY=db-primary.test", "BARRAGE_TARGET_DENY_REFRESH=100ms",
	})
	e.mustDo(t, http.StatusOK, http.MethodPatch, "/projects/default", e.AdminToken, map[string]any{"target_allow_list": []string{"10.9.0.0/16", "app.test"}})
	runner := e.mustToken(t, "default", auth.Runner)

	for _, port := range []string{"5432", "22"} {
		status, header, raw := e.runStatus(t, runner, "default", "tcp://10.9.0.1:"+port)
		wantTargetRefused(t, status, header, raw, "10.9.0.1:"+port, "control-plane address")
	}
	if status, _, raw := e.runStatus(t, runner, "default", "http://app.test:8080/"); status != http.StatusCreated {
		t.Fatalf("run on app.test before the move = %d, want 201; body: %s", status, raw)
	}

	dns.Set("db-primary.test", netip.MustParseAddr("10.9.0.2")) // the failover
	waitFor(t, testTimeout, func() error {
		if status, _, _ := e.runStatus(t, runner, "default", "tcp://10.9.0.1:5432"); status != http.StatusCreated {
			return errNotYet
		}
		return nil
	})
	status, header, raw := e.runStatus(t, runner, "default", "http://app.test:8080/")
	wantTargetRefused(t, status, header, raw, `host "app.test" port 8080`, "control-plane address")
	if strings.Contains(string(raw), "10.9.0.2") {
		t.Errorf("the refusal reveals what app.test resolves to: %s", raw)
	}
	status, header, raw = e.runStatus(t, runner, "default", "tcp://10.9.0.2:1")
	wantTargetRefused(t, status, header, raw, "10.9.0.2:1", "control-plane address")
}
