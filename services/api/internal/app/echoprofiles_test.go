package app

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/services/api/client"
	echoserver "github.com/barrage-dev/barrage/services/echo/echo"
)

// TestEchoProfileChangesTheNextRun drives a managed echo through the API
// (issue #12): NATS in operator mode, an echo and an agent each with their
// own credentials. A profile of 20 % 503s activated on the echo shows in
// the next run's codes at about that share and is recorded on the run; the
// profile changed to no 503s gives a run without any; content the echo
// would refuse is a 422 naming content.
func TestEchoProfileChangesTheNextRun(t *testing.T) { // serial: see heavyTests
	dir := t.TempDir()
	keysPath := filepath.Join(dir, "nats-keys.json")
	if code, out, errOut := runMain(t, nil, "nats-auth", "init", keysPath); code != exitOK {
		t.Fatalf("nats-auth init: exit %d: %s%s", code, out, errOut)
	}
	env := []string{"BARRAGE_NATS_KEYS=" + keysPath}
	creds := map[string]string{}
	for _, c := range []struct{ kind, name string }{{"echo", "echo-1"}, {"agent", "agent-1"}} {
		creds[c.name] = filepath.Join(dir, c.name+".creds")
		if code, _, errOut := runMain(t, env, c.kind+"-credentials", "create", c.name, "-o", creds[c.name]); code != exitOK {
			t.Fatalf("%s-credentials create: exit %d: %s", c.kind, code, errOut)
		}
	}
	e := startAPI(t, "BARRAGE_NATS_KEYS="+keysPath, "BARRAGE_DISPATCH_WAIT=10s")
	agentCreds, err := os.ReadFile(creds["agent-1"])
	if err != nil {
		t.Fatal(err)
	}
	startCredentialedAgent(t, e.NATSURL, "agent-1", agentCreds)
	echo := startEchoWith(t, func(c *echoserver.Options) {
		c.NATSURL, c.CredsFile, c.Name, c.Project = e.NATSURL, creds["echo-1"], "echo-1", "default"
	})

	wantApplied := func(name string) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for {
			list := decode[client.EchoServerList](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/echo-servers?project=default", e.AdminToken, nil))
			if len(list.Items) == 1 && list.Items[0].Name == "echo-1" && derefS(list.Items[0].AppliedProfile) == name {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("echo-1 never reported applying %q: %+v", name, list.Items)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	wantApplied("")

	bad := e.mustDo(t, http.StatusUnprocessableEntity, http.MethodPost, "/echo-profiles", e.AdminToken,
		map[string]any{"project": "default", "name": "bad", "content": "status=abc"})
	if !strings.Contains(string(bad), `"field":"content"`) || !strings.Contains(string(bad), "status") {
		t.Errorf("bad content: %s, want a problem naming content and the status parameter", bad)
	}
	profile := decode[client.EchoProfile](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/echo-profiles", e.AdminToken,
		map[string]any{"project": "default", "name": "twenty", "content": "status=503:20"}))
	activated := decode[client.EchoActivation](t, e.mustDo(t, http.StatusOK, http.MethodPost,
		"/echo-profiles/"+profile.Id.String()+"/activate", e.AdminToken, map[string]any{}))
	if len(activated.Echoes) != 1 || activated.Echoes[0] != "echo-1" {
		t.Fatalf("activated on %v, want [echo-1]", activated.Echoes)
	}
	wantApplied("twenty")

	run := func(name string) client.Run {
		t.Helper()
		created := decode[client.Run](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/runs", e.AdminToken, map[string]any{
			"project": "default", "name": name,
			"spec": map[string]any{"url": echo + "/", "qps": 250, "connections": 4, "count": 500},
		}))
		r := e.waitRun(t, created.Id.String(), 60*time.Second)
		if r.Status != "completed" || r.Summary == nil || r.Summary.Count != 500 {
			t.Fatalf("%s ended %s (error %q), summary %+v", name, r.Status, derefS(r.Error), r.Summary)
		}
		return r
	}
	share503 := func(r client.Run) float64 {
		t.Helper()
		res := decode[client.RunResult](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/runs/"+r.Id.String()+"/result", e.AdminToken, nil))
		return 100 * float64(res.RetCodes["503"]) / float64(res.Count)
	}

	first := run("under twenty")
	got := share503(first)
	t.Logf("503 share under status=503:20: %.1f %% of 500", got)
	if got < 15 || got > 25 {
		t.Errorf("503 share under status=503:20 = %.1f %%, want 20 ± 5", got)
	}
	if p := first.EchoProfile; p == nil || p.Echo != "echo-1" || p.Name != "twenty" || p.Content != "status=503:20" {
		t.Errorf("run's echo_profile = %+v, want twenty (status=503:20) on echo-1", p)
	}

	e.mustDo(t, http.StatusOK, http.MethodPatch, "/echo-profiles/"+profile.Id.String(), e.AdminToken, map[string]any{"content": "status=503:0"})
	waitNo503(t, echo)
	second := run("under none")
	if got := share503(second); got != 0 {
		t.Errorf("503 share after the profile changed to status=503:0 = %.1f %%, want 0", got)
	}
	if p := second.EchoProfile; p == nil || p.Content != "status=503:0" {
		t.Errorf("second run's echo_profile = %+v, want content status=503:0", p)
	}
}

// waitNo503 waits until 50 requests in a row to the echo get no 503 (the
// echo polls its profile once a second).
func waitNo503(t *testing.T, base string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for clean := 0; clean < 50; {
		if time.Now().After(deadline) {
			t.Fatal("the echo still answers 503s 15 s after its profile changed")
		}
		resp, err := http.Get(base + "/")
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		clean++
		if resp.StatusCode == http.StatusServiceUnavailable {
			clean = 0
			time.Sleep(100 * time.Millisecond)
		}
	}
}
