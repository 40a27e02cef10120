package deploycheck

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/barrage-dev/barrage/pkg/gobuild"
	"github.com/barrage-dev/barrage/pkg/natsauth"
	"github.com/barrage-dev/barrage/services/api/client"
	"github.com/barrage-dev/barrage/services/api/internal/app"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/pgtest"
)

// stack is what docker-compose.yml runs, without Docker: `barrage-api
// nats-auth bootstrap` (the nats-auth service), a real nats-server on
// deploy/nats/nats-operator.conf, barrage-api in process with the keys, and
// real barrage-agent processes taking credentials from the shared directory.
type stack struct {
	nats      *natsServer
	keys      string // the keys file
	agentsDir string // the agents' credentials
	apiURL    string
	token     string
	agentBin  string
	apiLog    *lockedBuffer // every line must be JSON (BARRAGE_LOG_FORMAT=json)
}

// startStack starts NATS and the API; agents are started by startAgent.
func startStack(t *testing.T) *stack {
	t.Helper()
	s := &stack{token: auth.NewToken().Text}
	dir := t.TempDir()
	s.nats, s.keys, s.agentsDir = startOperatorNATS(t, dir)
	s.agentBin = filepath.Join(dir, "barrage-agent")
	if err := gobuild.Build(s.agentBin, "github.com/barrage-dev/barrage/services/agent/cmd/barrage-agent"); err != nil {
		t.Fatal(err)
	}
	environ := []string{
		"DATABASE_URL=" + pgtest.NewDatabase(t), "NATS_URL=nats://" + s.nats.addr,
		"BARRAGE_NATS_KEYS=" + s.keys,
		"BARRAGE_LISTEN=127.0.0.1:0", "BARRAGE_ADMIN_TOKEN=" + s.token, "BARRAGE_LOG_FORMAT=json",
		"BARRAGE_ADMIN_CREDENTIALS_FILE=" + filepath.Join(dir, "admin-credentials"),
		"BARRAGE_DISPATCH_WAIT=10s",
	}
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- app.Main(ctx, []string{"barrage-api", "serve"}, environ, io.Discard, pw)
		_ = pw.Close()
	}()
	t.Cleanup(func() {
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("barrage-api exit code %d", code)
		}
	})
	addrs := make(chan string, 1)
	apiLog := &lockedBuffer{}
	go func() { // reads the log to its end, so the API never blocks on it
		lines := bufio.NewScanner(pr)
		for lines.Scan() {
			_, _ = apiLog.Write(append(lines.Bytes(), '\n'))
			var rec struct{ Msg, Addr string }
			if json.Unmarshal(lines.Bytes(), &rec) == nil && rec.Msg == "barrage-api listening" {
				addrs <- rec.Addr
			}
		}
	}()
	select {
	case addr := <-addrs:
		s.apiURL = "http://" + addr
	case <-time.After(30 * time.Second):
		t.Fatalf("barrage-api did not log its address:\n%s", apiLog.String())
	}
	s.apiLog = apiLog
	return s
}

// agentProc is a running barrage-agent serve.
type agentProc struct {
	tmp    string // its TMPDIR, where serve records the credentials it took
	cmd    *exec.Cmd
	stderr *lockedBuffer
	exited chan struct{} // closed when the process has exited
	err    error         // its exit error, once exited is closed
}

func (s *stack) startAgent(t *testing.T, name string) *agentProc {
	t.Helper()
	a := &agentProc{tmp: t.TempDir(), stderr: &lockedBuffer{}, exited: make(chan struct{})}
	a.cmd = exec.Command(s.agentBin, "serve")
	a.cmd.Env = []string{
		"NATS_URL=nats://" + s.nats.addr, "BARRAGE_AGENT_CREDS_DIR=" + s.agentsDir, "TMPDIR=" + a.tmp,
		"BARRAGE_AGENT_NAME=" + name, "BARRAGE_LOG_FORMAT=json",
	}
	a.cmd.Stderr = a.stderr
	if err := a.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		a.err = a.cmd.Wait()
		close(a.exited)
	}()
	t.Cleanup(func() {
		_ = a.cmd.Process.Kill()
		<-a.exited
	})
	return a
}

// healthcheck runs `barrage-agent healthcheck` as the compose HEALTHCHECK does.
func (s *stack) healthcheck(a *agentProc) error {
	cmd := exec.Command(s.agentBin, "healthcheck")
	cmd.Env = []string{"NATS_URL=nats://" + s.nats.addr, "BARRAGE_AGENT_CREDS_DIR=" + s.agentsDir, "TMPDIR=" + a.tmp}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%w: %s", err, out)
	}
	return nil
}

// do sends a JSON request to the API and decodes a 2xx answer into out.
func (s *stack) do(t *testing.T, method, path string, body, out any) {
	t.Helper()
	var rd io.Reader = http.NoBody
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, s.apiURL+"/api/v1"+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+s.token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		t.Fatalf("%s %s: %s: %s", method, path, resp.Status, raw)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		t.Fatalf("%s %s: %v: %s", method, path, err, raw)
	}
}

func target(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	t.Cleanup(srv.Close)
	return srv.URL + "/"
}

// TestStackRunsWithAgentPermissions runs what docker-compose.yml runs
// (nats-auth bootstrap, deploy/nats/nats-operator.conf, an agent with
// credentials of its own from the shared directory) without Docker: a run
// completes on an agent that has only the agent's permissions, the
// agent's healthcheck passes with them, and SIGTERM in the middle of a run
// makes the agent send its final snapshot and exit 0, so the run completes
// with what ran. Neither NATS nor the agent reports a permissions violation.
func TestStackRunsWithAgentPermissions(t *testing.T) {
	s := startStack(t)
	tg := target(t)
	agent := s.startAgent(t, "perm-agent")
	waitFor(t, 15*time.Second, func() error { return s.healthcheck(agent) })

	var run client.Run
	s.do(t, http.MethodPost, "/runs?wait=60s", map[string]any{
		"project": "default", "thresholds": []string{"count > 0"},
		"spec": map[string]any{"url": tg, "qps": 50, "connections": 2, "duration": "2s", "agents": map[string]any{"count": 1}},
	}, &run)
	if run.Status != client.Completed || run.Summary == nil || run.Summary.Count == 0 ||
		run.Verdict == nil || *run.Verdict != "pass" {
		t.Fatalf("run %+v, want completed, verdict pass, with a count", run)
	}

	// SIGTERM in the middle of a 60 s run.
	s.do(t, http.MethodPost, "/runs", map[string]any{
		"project": "default",
		"spec":    map[string]any{"url": tg, "qps": 50, "connections": 2, "duration": "60s"},
	}, &run)
	id := run.Id.String()
	waitFor(t, 20*time.Second, func() error {
		var shards client.ShardList
		s.do(t, http.MethodGet, "/runs/"+id+"/shards", nil, &shards)
		if len(shards.Items) != 1 || shards.Items[0].Snapshots < 2 {
			return fmt.Errorf("shards %+v, want one with 2 snapshots", shards.Items)
		}
		return nil
	})
	if err := agent.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-agent.exited:
		if agent.err != nil {
			t.Fatalf("agent after SIGTERM: %v (want exit 0): %s", agent.err, agent.stderr.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("agent did not exit within 20 s of SIGTERM")
	}
	waitFor(t, 20*time.Second, func() error {
		s.do(t, http.MethodGet, "/runs/"+id, nil, &run)
		if run.Status != client.Completed {
			return fmt.Errorf("run status %s, want completed", run.Status)
		}
		return nil
	})
	var shards client.ShardList
	s.do(t, http.MethodGet, "/runs/"+id+"/shards", nil, &shards)
	if sh := shards.Items[0]; !sh.FinalReceived || sh.Status != client.ShardDone || run.Summary == nil || run.Summary.Count == 0 {
		t.Fatalf("after SIGTERM: shard %+v, summary %+v; want the final snapshot received and a count", sh, run.Summary)
	}
	if err := s.healthcheck(agent); err == nil {
		t.Error("healthcheck passes after the agent stopped")
	}
	for _, line := range strings.Split(strings.TrimSpace(s.apiLog.String()), "\n") {
		if !json.Valid([]byte(line)) {
			t.Errorf("barrage-api with BARRAGE_LOG_FORMAT=json logged a non-JSON line: %q", line)
		}
	}
	for name, log := range map[string]string{"nats-server": s.nats.log.String(), "barrage-agent": agent.stderr.String()} {
		if strings.Contains(strings.ToLower(log), "permissions violation") {
			t.Errorf("%s reports a permissions violation:\n%s", name, log)
		}
	}
}

// startOperatorNATS does what the nats-auth and nats services of
// docker-compose.yml do: `barrage-api nats-auth bootstrap` into dir (keys,
// trust file, two agent credentials), then nats-server on
// deploy/nats/nats-operator.conf, which includes the trust file. It returns
// the server, the keys file and the credentials directory.
func startOperatorNATS(t *testing.T, dir string) (*natsServer, string, string) {
	t.Helper()
	keysDir, confDir, agentsDir := filepath.Join(dir, "keys"), filepath.Join(dir, "conf"), filepath.Join(dir, "agents")
	for _, d := range []string{keysDir, filepath.Join(confDir, "auth"), agentsDir} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	var out, errOut bytes.Buffer
	if code := app.Main(context.Background(), []string{"barrage-api", "nats-auth", "bootstrap", "-keys-dir", keysDir,
		"-server-dir", filepath.Join(confDir, "auth"), "-agents-dir", agentsDir, "-agents", "2"}, nil, &out, &errOut); code != 0 {
		t.Fatalf("nats-auth bootstrap: exit %d: %s%s", code, out.String(), errOut.String())
	}
	keysPath := filepath.Join(keysDir, "nats-keys.json")
	keys, err := natsauth.Load(keysPath)
	if err != nil {
		t.Fatal(err)
	}
	api, err := keys.APIUser()
	if err != nil {
		t.Fatal(err)
	}
	s := runNATS(t, "deploy/nats/nats-operator.conf", confDir, nil)
	waitFor(t, 10*time.Second, func() error {
		nc, err := nats.Connect("nats://"+s.addr, nats.UserJWTAndSeed(api.JWT, string(api.Seed)))
		if err != nil {
			return fmt.Errorf("%w; server log:\n%s", err, s.log.String())
		}
		nc.Close()
		return nil
	})
	return s, keysPath, agentsDir
}
