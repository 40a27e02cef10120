package app

import (
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/barrage-dev/barrage/pkg/natsauth"
	"github.com/barrage-dev/barrage/services/agent/agent"
	"github.com/barrage-dev/barrage/services/api/client"
)

// TestAgentWithOwnCredentials runs barrage-api with NATS in operator mode
// (a keys file from `nats-auth init`), issues an agent its credentials with
// `agent-credentials create`, and runs a test on that agent; a client
// without credentials is refused by the server.
func TestAgentWithOwnCredentials(t *testing.T) { // serial: see heavyTests
	dir := t.TempDir()
	keysPath := filepath.Join(dir, "nats-keys.json")
	if code, out, errOut := runMain(t, nil, "nats-auth", "init", keysPath); code != exitOK {
		t.Fatalf("nats-auth init: exit %d: %s%s", code, out, errOut)
	}
	if st, err := os.Stat(keysPath); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("keys file: %v, mode %v, want 0600", err, st.Mode())
	}
	if code, _, errOut := runMain(t, nil, "nats-auth", "init", keysPath); code != exitFailure || !strings.Contains(errOut, "exists") {
		t.Errorf("a second init over the same file: exit %d, %q; want 1 and the file kept", code, errOut)
	}
	env := []string{"BARRAGE_NATS_KEYS=" + keysPath}
	code, conf, _ := runMain(t, env, "nats-auth", "server-config")
	if code != exitOK || !strings.Contains(conf, "resolver: MEMORY") || !strings.Contains(conf, "operator: ") {
		t.Errorf("server-config: exit %d:\n%s", code, conf)
	}
	credsPath := filepath.Join(dir, "agent-1.creds")
	code, _, errOut := runMain(t, env, "agent-credentials", "create", "agent-1", "-o", credsPath)
	if code != exitOK {
		t.Fatalf("agent-credentials create: exit %d: %s", code, errOut)
	}
	file, err := os.ReadFile(credsPath)
	if err != nil {
		t.Fatal(err)
	}
	_, id, err := natsauth.ParseCredentials(file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errOut, id) {
		t.Errorf("create said %q, want the agent id %s", errOut, id)
	}
	if code, _, errOut := runMain(t, env, "agent-credentials", "create", "bad name"); code != exitUsage || !strings.Contains(errOut, "agent name") {
		t.Errorf("a bad agent name: exit %d, %q", code, errOut)
	}

	e := startAPI(t, "BARRAGE_NATS_KEYS="+keysPath, "BARRAGE_DISPATCH_WAIT=10s")
	echo := startEcho(t)
	// A client without credentials is not let in.
	if nc, err := nats.Connect(e.NATSURL, nats.MaxReconnects(0)); err == nil {
		nc.Close()
		t.Error("a client without credentials connected to the operator-mode server")
	} else if !strings.Contains(strings.ToLower(err.Error()), "authorization") {
		t.Errorf("connect without credentials: %v, want an authorization error", err)
	}

	if w := startCredentialedAgent(t, e.NATSURL, "agent-1", file); w.ID() != id {
		t.Errorf("worker id %s, want the credentials' %s", w.ID(), id)
	}

	created := decode[client.Run](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/runs", e.AdminToken, map[string]any{
		"project": "default",
		"spec":    map[string]any{"url": echo + "/", "qps": 100, "connections": 2, "duration": "2s"},
	}))
	run := e.waitRun(t, created.Id.String(), 40*time.Second)
	if run.Status != "completed" || run.Summary == nil {
		t.Fatalf("run ended %s (error %q)", run.Status, derefS(run.Error))
	}
	if c := run.Summary.Count; c < 195 || c > 200 {
		t.Errorf("count %d, want 200 (2 s at 100 qps)", c)
	}
	agents := decode[client.AgentList](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/agents", e.AdminToken, nil))
	if len(agents.Items) != 1 || agents.Items[0].Id.String() != id || agents.Items[0].Name != "agent-1" {
		t.Errorf("agents = %+v, want agent-1 with id %s", agents.Items, id)
	}
}

// startCredentialedAgent runs an agent worker named name in this process
// with its NATS credentials file content, until the test ends.
func startCredentialedAgent(t *testing.T, natsURL, name string, creds []byte) *agent.Agent {
	t.Helper()
	w, err := agent.New(agent.Options{NATSURL: natsURL, Name: name, Capacity: 2, Credentials: creds,
		Logger: slog.New(slog.NewTextHandler(testLogWriter(t), nil))})
	if err != nil {
		t.Fatal(err)
	}
	runUntilCleanup(t, "agent", w.Run)
	return w
}
