package app

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/services/agent/agent"
	"github.com/barrage-dev/barrage/services/api/client"
)

// hostPort returns the host:port of a URL.
func hostPort(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

// wantTargetRefused checks a 422 problem on spec.url whose message holds
// every string of want.
func wantTargetRefused(t *testing.T, status int, header http.Header, raw []byte, want ...string) {
	t.Helper()
	p := wantProblem(t, status, header, raw, http.StatusUnprocessableEntity, "validation")
	msg, ok := fieldMessage(p, "spec.url")
	if !ok {
		t.Fatalf("no spec.url field in the problem; fields %v; body: %s", problemFields(p), raw)
	}
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("spec.url message %q does not contain %q", msg, w)
		}
	}
}

// TestRunTargetPolicyAtSubmit: POST /runs resolves the target and refuses
// what the project's allow-list does not open and what is always refused
// (link-local, metadata, the control plane), naming the target.
func TestRunTargetPolicyAtSubmit(t *testing.T) {
	t.Parallel()
	e := startAPI(t)
	e.DNS.Set("meta.test", netip.MustParseAddr("169.254.169.254"))
	e.DNS.Set("echo.test", netip.MustParseAddr("127.0.0.1"))
	// A project with the empty allow-list every new project starts with.
	e.mustDo(t, http.StatusCreated, http.MethodPost, "/projects", e.AdminToken, map[string]any{"slug": "empty", "name": "Empty"})
	api := hostPort(t, e.URL)
	nats := hostPort(t, e.NATSURL)
	db := hostPort(t, e.DBURL)

	tests := []struct {
		name    string
		project string
		url     string
		want    []string
		// hide must not appear in the problem: a name's resolved address
		// is internal (docs/security.md, "Target policy").
		hide []string
	}{
		{name: "metadata IP literal", url: "http://169.254.169.254/latest/meta-data/",
			want: []string{"169.254.169.254", "cloud metadata address", "can never be reached"}},
		{name: "link-local IP", url: "http://169.254.10.1:8088/", want: []string{"169.254.10.1", "link-local address"}},
		{name: "name resolving to metadata", url: "http://meta.test/",
			want: []string{`host "meta.test"`, "cloud metadata address"}, hide: []string{"169.254.169.254"}},
		{name: "UDP to metadata", url: "udp://169.254.169.254:53", want: []string{"169.254.169.254", "cloud metadata address"}},
		{name: "private address not listed", url: "http://10.1.2.3:8088/", want: []string{"10.1.2.3", "private address", "allow-list"}},
		{name: "public address not listed", url: "https://8.8.8.8/", want: []string{"8.8.8.8", "public address", "allow-list"}},
		{name: "the API's own port", url: e.URL + "/api/v1/runs", want: []string{api, "control-plane address"}},
		{name: "the API's own port by name", url: "http://echo.test:" + strings.Split(api, ":")[1] + "/",
			want: []string{`host "echo.test" port ` + strings.Split(api, ":")[1], "control-plane address"}, hide: []string{"127.0.0.1"}},
		{name: "the embedded NATS", url: "tcp://" + nats, want: []string{nats, "control-plane address"}},
		{name: "Postgres", url: "tcp://" + db, want: []string{db, "control-plane address"}},
		{name: "empty allow-list", project: "empty", url: "http://127.0.0.1:8088/",
			want: []string{"127.0.0.1", "allow-list is empty", "project settings"}},
		{name: "name that does not resolve", url: "http://nowhere.test/", want: []string{"nowhere.test:80", "cannot be resolved", "no such host"},
			hide: []string{e.DNS.Addr()}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			project := tt.project
			if project == "" {
				project = "default"
			}
			body := map[string]any{"project": project, "spec": map[string]any{"url": tt.url, "qps": 10, "duration": "1s"}}
			status, header, raw := e.do(t, http.MethodPost, "/runs", e.AdminToken, body)
			wantTargetRefused(t, status, header, raw, tt.want...)
			for _, h := range tt.hide {
				if strings.Contains(string(raw), h) {
					t.Errorf("the problem reveals %s: %s", h, raw)
				}
			}
		})
	}
	t.Run("stored test is checked when run", func(t *testing.T) {
		t.Parallel()
		body := map[string]any{"project": "default", "name": "meta", "spec": map[string]any{"url": "http://meta.test/", "qps": 10, "duration": "1s"}}
		test := decode[client.Test](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/tests", e.AdminToken, body))
		status, header, raw := e.do(t, http.MethodPost, "/runs", e.AdminToken, map[string]any{"test": test.Id})
		wantTargetRefused(t, status, header, raw, `host "meta.test"`, "cloud metadata address")
		if strings.Contains(string(raw), "169.254.169.254") {
			t.Errorf("the problem reveals the name's address: %s", raw)
		}
	})
	t.Run("loopback echo on another port is allowed", func(t *testing.T) {
		t.Parallel()
		for _, target := range []string{"http://127.0.0.1:8088/", "http://echo.test:8088/", "h2c://localhost:8088/", "udp://127.0.0.1:8078"} {
			body := map[string]any{"project": "default", "name": "allowed " + target, "spec": map[string]any{"url": target, "qps": 10, "duration": "1s"}}
			e.mustDo(t, http.StatusCreated, http.MethodPost, "/runs", e.AdminToken, body)
		}
	})
	t.Run("no refused run was stored", func(t *testing.T) {
		t.Parallel()
		waitFor(t, testTimeout, func() error {
			if n := e.count(t, `SELECT count(*) FROM runs WHERE name LIKE 'allowed %'`); n != 4 {
				return fmt.Errorf("%d allowed runs stored, want 4", n)
			}
			return nil
		})
		if n := e.count(t, `SELECT count(*) FROM runs WHERE name NOT LIKE 'allowed %'`); n != 0 {
			t.Errorf("%d refused runs stored, want 0", n)
		}
	})
}

// startAgentResolving runs one agent against natsURL that resolves target
// names with r, until the test ends, and waits for its heartbeat.
func startAgentResolving(t *testing.T, natsURL string, r *net.Resolver) {
	t.Helper()
	w, err := agent.New(agent.Options{NATSURL: natsURL, Name: "agent-dns", Capacity: 2, Resolver: r,
		Logger: slog.New(slog.NewTextHandler(testLogWriter(t), nil))})
	if err != nil {
		t.Fatal(err)
	}
	runUntilCleanup(t, "agent", w.Run)
	waitHeartbeats(t, natsURL, 1)
}

// TestRunTargetRebindingRefusedByAgent: a name that resolved to an allowed
// loopback address when the run was submitted resolves elsewhere when the
// agent connects; the agent refuses, the run fails with the refusal, and
// nothing reached the echo server. A name that still resolves to the
// listed loopback address runs against the real echo server.
func TestRunTargetRebindingRefusedByAgent(t *testing.T) { // serial: see heavyTests
	tests := []struct {
		name  string
		allow []string
		then  string
		want  []string
	}{
		{name: "unchanged loopback runs", then: "127.0.0.1"},
		{name: "to metadata", then: "169.254.169.254", want: []string{`host "rebind.test"`, "cloud metadata address"}},
		{name: "to loopback not listed", allow: []string{"127.0.0.1"}, then: "127.0.0.2",
			want: []string{`host "rebind.test"`, "loopback address", "allow-list"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := startAPI(t, "BARRAGE_DISPATCH_WAIT=30s")
			if tt.allow != nil {
				e.mustDo(t, http.StatusOK, http.MethodPatch, "/projects/default", e.AdminToken, map[string]any{"target_allow_list": tt.allow})
			}
			echo := startEcho(t)
			_, port, _ := net.SplitHostPort(hostPort(t, echo))
			e.DNS.Set("rebind.test", netip.MustParseAddr("127.0.0.1"))
			before := echoRequests(t, echo)

			created := decode[client.Run](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/runs", e.AdminToken, map[string]any{
				"project": "default",
				"spec":    map[string]any{"url": "http://rebind.test:" + port + "/", "qps": 50, "connections": 2, "duration": "2s"},
			}))
			// The run waits for an agent; the name moves before one exists.
			e.DNS.Set("rebind.test", netip.MustParseAddr(tt.then))
			startAgentResolving(t, e.NATSURL, e.DNS.Resolver())

			run := e.waitRun(t, created.Id.String(), 40*time.Second)
			if tt.want == nil {
				if run.Status != "completed" || run.Summary == nil || run.Summary.Count < 50 || run.Summary.Errors != 0 {
					t.Fatalf("run ended %s (error %q), summary %+v; want completed without errors", run.Status, derefS(run.Error), run.Summary)
				}
				if got := echoRequests(t, echo) - before; got != run.Summary.Count {
					t.Errorf("echo answered %d requests, the run counted %d", got, run.Summary.Count)
				}
				return
			}
			if run.Status != "failed" {
				t.Fatalf("run ended %s (error %q), want failed", run.Status, derefS(run.Error))
			}
			for _, w := range append(tt.want, "shard 0") {
				if !strings.Contains(derefS(run.Error), w) {
					t.Errorf("run error %q does not contain %q", derefS(run.Error), w)
				}
			}
			// Runners read the error: it names the host, not its address.
			if strings.Contains(derefS(run.Error), tt.then) {
				t.Errorf("run error %q reveals what the name resolved to", derefS(run.Error))
			}
			finals := e.shardFinals(t, created.Id.String())
			if len(finals) != 1 || finals[0].GetCount() != 0 || finals[0].GetError() == "" {
				t.Errorf("shard finals %v, want one with count 0 and an error", finals)
			}
			if got := echoRequests(t, echo) - before; got != 0 {
				t.Errorf("echo answered %d requests, want 0", got)
			}
		})
	}
}
