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

// startEchoUnix runs the real barrage-echo HTTP server on a Unix socket in
// this process until the test ends and returns the socket's path.
func startEchoUnix(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "brg") // short: sun_path is ~104 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	sock := filepath.Join(dir, "echo.sock")
	startEchoApp(t, func(c *echoserver.Options) { c.HTTPAddr = "unix:" + sock })
	return sock
}

// TestRunOverUnixSocket: a run may send over a Unix socket only when its
// project's allow-list names the socket ("unix:/path"); "*" and host
// entries never open one. Listed, the run goes through an agent to the
// real echo server on that socket, and the URL's host (which does not
// resolve) is only the Host header.
func TestRunOverUnixSocket(t *testing.T) { // serial: see heavyTests
	e := startAPI(t, "BARRAGE_DISPATCH_WAIT=30s")
	sock := startEchoUnix(t)
	runSpec := map[string]any{"url": "http://echo.invalid/?status=200", "unix_socket": sock, "qps": 0, "connections": 2, "count": 40}
	body := map[string]any{"project": "default", "spec": runSpec}

	status, header, raw := e.do(t, http.MethodPost, "/runs", e.AdminToken, body)
	p := wantProblem(t, status, header, raw, http.StatusUnprocessableEntity, "validation")
	msg, ok := fieldMessage(p, "spec.unix_socket")
	if !ok {
		t.Fatalf("unlisted socket: no spec.unix_socket field; fields %v; body %s", problemFields(p), raw)
	}
	if want := `add "unix:` + sock + `"`; !strings.Contains(msg, want) {
		t.Fatalf("message %q does not say %q", msg, want)
	}

	e.mustDo(t, http.StatusOK, http.MethodPatch, "/projects/default", e.AdminToken,
		map[string]any{"target_allow_list": []string{"*", "127.0.0.1", "unix:" + sock}})
	startAgents(t, e.NATSURL, 1)
	created := decode[client.Run](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/runs", e.AdminToken, body))
	run := e.waitRun(t, created.Id.String(), 40*time.Second)
	if run.Status != "completed" || run.Summary == nil || run.Summary.Count != 40 || run.Summary.Errors != 0 {
		t.Fatalf("run ended %s (error %q), summary %+v; want 40 requests without errors", run.Status, derefS(run.Error), run.Summary)
	}
}
