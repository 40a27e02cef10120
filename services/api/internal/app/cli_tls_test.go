package app

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/barrage-dev/barrage/pkg/testcert"
	"github.com/barrage-dev/barrage/services/api/client"
	echoserver "github.com/barrage-dev/barrage/services/echo/echo"
)

// TestCLITLSFlags drives the real barrage binary's TLS flags through the
// API and a real agent against barrage-echo serving TLS with a self-signed
// certificate, and a second echo that requires a client certificate:
// the system's roots refuse the echo (every request fails), -cacert makes
// every request succeed, -cert/-key pass the mTLS echo (which refuses a
// run without them), and the stored spec shows the client key REDACTED.
func TestCLITLSFlags(t *testing.T) { // serial: see heavyTests
	serverCert, serverKey, _ := testcert.Write(t)
	clientCert, clientKey, _ := testcert.Write(t)
	e := startAPI(t, "BARRAGE_DISPATCH_WAIT=10s", "BARRAGE_SECRET_KEY="+testSecretKey)
	tlsEcho := "https://" + startEchoApp(t, func(o *echoserver.Options) { o.CertFile, o.KeyFile = serverCert, serverKey }).HTTPAddr() + "/"
	mtlsEcho := "https://" + startEchoApp(t, func(o *echoserver.Options) {
		o.CertFile, o.KeyFile, o.ClientCAFile = serverCert, serverKey, clientCert
	}).HTTPAddr() + "/"
	var logs syncBuffer
	startAgentsLogged(t, e.NATSURL, 1, &logs, slog.LevelInfo)
	dir := t.TempDir()
	const n = 40
	run := func(name string, args ...string) (cliResult, client.Run, client.RunResult, []byte) {
		t.Helper()
		out := filepath.Join(dir, name+".json")
		args = append([]string{"run", "--project", "default", "--name", name, "--qps", "50", "-c", "2", "-n", "40", "--json", out}, args...)
		r := runCLI(t, e.URL, e.AdminToken, args...)
		var got struct {
			Run    client.Run       `json:"run"`
			Result client.RunResult `json:"result"`
		}
		raw, err := os.ReadFile(out)
		if err != nil {
			t.Fatalf("%s: exit %d, no --json: %v", name, r.code, err)
		}
		if err := json.Unmarshal(raw, &got); err != nil {
			t.Fatal(err)
		}
		stored := e.mustDo(t, http.StatusOK, http.MethodGet, "/runs/"+got.Run.Id.String(), e.AdminToken, nil)
		return r, got.Run, got.Result, stored
	}
	// everyFailed checks a run whose every request the TLS handshake
	// refused: the CLI exits 97, the result counts only code -1, and the
	// agent logs the TLS error, why.
	everyFailed := func(name string, r cliResult, res client.RunResult, why string) {
		t.Helper()
		if r.code != 97 || res.Count == 0 || res.Errors != res.Count || res.RetCodes["-1"] != res.Count || res.RetCodes["200"] != 0 {
			t.Errorf("%s: exit %d, count %d errors %d codes %v; want 97 with every request failed (code -1)",
				name, r.code, res.Count, res.Errors, res.RetCodes)
		}
		if !strings.Contains(logs.String(), why) {
			t.Errorf("%s: the agent's log does not say %q:\n%s", name, why, logs.String())
		}
	}

	r, _, res, _ := run("system-roots", "--url", tlsEcho)
	everyFailed("the system's roots against a self-signed echo", r, res, "certificate signed by unknown authority")

	r, _, res, stored := run("cacert", "--url", tlsEcho, "-cacert", serverCert, "-tls-min", "1.2", "-no-tls-resumption")
	if r.code != 0 || res.Count != n || res.RetCodes["200"] != n || res.Errors != 0 {
		t.Errorf("-cacert: exit %d, count %d errors %d codes %v; want 0 with %d × 200", r.code, res.Count, res.Errors, res.RetCodes, n)
	}
	if !bytes.Contains(stored, []byte(`"no_resumption":true`)) || !bytes.Contains(stored, []byte(`"ca_cert":"-----BEGIN CERTIFICATE-----`)) {
		t.Errorf("-cacert: the stored spec lacks the CA or -no-tls-resumption: %s", stored)
	}

	r, _, res, _ = run("mtls-without-cert", "--url", mtlsEcho, "-cacert", serverCert)
	everyFailed("the mTLS echo without -cert/-key", r, res, "tls: certificate required")

	r, got, res, stored := run("mtls", "--url", mtlsEcho, "-cacert", serverCert, "-cert", clientCert, "-key", clientKey,
		"-sni", "localhost", "-tls-min", "1.3")
	if r.code != 0 || res.Count != n || res.RetCodes["200"] != n || res.Errors != 0 {
		t.Errorf("mTLS: exit %d, count %d errors %d codes %v; want 0 with %d × 200", r.code, res.Count, res.Errors, res.RetCodes, n)
	}
	keyBody := strings.Split(mustRead(t, clientKey), "\n")[1]
	for _, want := range []string{`"client_key":"REDACTED"`, `"client_cert":"REDACTED"`, `"server_name":"localhost"`, `"min_version":"1.3"`} {
		if !bytes.Contains(stored, []byte(want)) {
			t.Errorf("GET /runs/%s lacks %s: %s", got.Id, want, stored)
		}
	}
	if bytes.Contains(stored, []byte(keyBody)) || strings.Contains(r.stdout+r.stderr, keyBody) {
		t.Errorf("the client key shows in GET /runs/%s or the CLI's output", got.Id)
	}

	// Refused by the CLI before a run is made: exit 2 naming the flag.
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-cert", clientCert}, "-cert needs -key"},
		{[]string{"-cert", serverCert, "-key", clientKey}, "-key " + clientKey + " does not match -cert " + serverCert},
		{[]string{"-cacert", filepath.Join(dir, "missing.pem")}, "-cacert: open " + filepath.Join(dir, "missing.pem")},
	} {
		r := runCLI(t, e.URL, e.AdminToken, append([]string{"run", "--project", "default", "--url", mtlsEcho, "-n", "1"}, tt.args...)...)
		if r.code != 2 || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tt.args, r.code, r.stderr, tt.want)
		}
	}
}
