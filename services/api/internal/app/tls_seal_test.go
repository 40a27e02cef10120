package app

import (
	"bytes"
	"crypto/tls"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/pkg/testcert"
	"github.com/barrage-dev/barrage/services/api/client"
	echoserver "github.com/barrage-dev/barrage/services/echo/echo"
)

// TestTLSClientKeySealed runs an https run with a client certificate
// (mTLS) through the API and a real agent: the agent presents the
// certificate to a target that requires one, and the client key is in no
// API response, the database (only sealed) or the logs.
func TestTLSClientKeySealed(t *testing.T) { // serial: see heavyTests
	certFile, keyFile, pool := testcert.Write(t)
	certPEM, keyPEM := mustRead(t, certFile), mustRead(t, keyFile)
	pair, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
	var withCert atomic.Int64
	target := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.TLS != nil && len(r.TLS.PeerCertificates) == 1 {
			withCert.Add(1)
		}
		_, _ = io.WriteString(w, "ok")
	}))
	target.TLS = &tls.Config{Certificates: []tls.Certificate{pair}, ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: pool}
	target.StartTLS()
	t.Cleanup(target.Close)

	var logs syncBuffer
	e := startAPILogged(t, &logs, "BARRAGE_DISPATCH_WAIT=10s", "BARRAGE_SECRET_KEY="+testSecretKey)
	// A key that does not match its certificate is a problem on the field.
	otherCert, _, _ := testcert.Write(t)
	bad := map[string]any{"url": target.URL + "/", "count": 1,
		"tls": map[string]any{"client_cert": mustRead(t, otherCert), "client_key": keyPEM}}
	status, header, raw := e.do(t, http.MethodPost, "/runs", e.AdminToken, map[string]any{"project": "default", "spec": bad})
	p := wantProblem(t, status, header, raw, http.StatusUnprocessableEntity, "validation")
	if msg, ok := fieldMessage(p, "spec.tls.client_key"); !ok || !strings.Contains(msg, "does not match tls.client_cert") {
		t.Fatalf("mismatched key: fields %v, message %q; body %s", problemFields(p), msg, raw)
	}
	if bytes.Contains(raw, []byte(strings.Split(keyPEM, "\n")[1])) {
		t.Fatalf("the problem echoes the key: %s", raw)
	}
	startAgentsLogged(t, e.NATSURL, 1, &logs, slog.LevelDebug)
	var responses bytes.Buffer
	sp := map[string]any{"url": target.URL + "/", "qps": 20, "connections": 1, "count": 10,
		"tls": map[string]any{"ca_cert": certPEM, "client_cert": certPEM, "client_key": keyPEM, "min_version": "1.3"}}
	created := e.mustDo(t, http.StatusCreated, http.MethodPost, "/runs", e.AdminToken, map[string]any{"project": "default", "name": "mtls", "spec": sp})
	responses.Write(created)
	id := decode[client.Run](t, created).Id.String()
	run := e.waitRun(t, id, 40*time.Second)
	if run.Status != "completed" {
		t.Fatalf("run ended %s (error %q)", run.Status, derefS(run.Error))
	}
	if got := withCert.Load(); got != 10 {
		t.Fatalf("target served %d requests with the client certificate, want 10", got)
	}
	for _, sub := range []string{"", "/result", "/result?format=fortio"} {
		responses.Write(e.mustDo(t, http.StatusOK, http.MethodGet, "/runs/"+id+sub, e.AdminToken, nil))
	}
	if !bytes.Contains(responses.Bytes(), []byte(`"client_key":"REDACTED"`)) {
		t.Errorf("the run's spec does not show the client key redacted:\n%s", responses.Bytes())
	}
	// The key's base64, as it would appear in JSON or a log line.
	keyBody := strings.Split(keyPEM, "\n")[1]
	for _, place := range []struct {
		name string
		text []byte
	}{
		{"pg_dump of the database", pgDump(t, e.DBURL)},
		{"API responses", responses.Bytes()},
		{"API and agent logs", []byte(logs.String())},
	} {
		if i := bytes.Index(place.text, []byte(keyBody)); i >= 0 {
			t.Errorf("%s: found the client key in …%s…", place.name, around(place.text, i))
		}
	}
}

func mustRead(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestTLSSettingsOverGRPCSAndH3 runs grpcs:// and HTTP/3 runs through the
// API and a real agent against barrage-echo serving TLS: with the spec's
// CA, SNI, minimum version and client certificate every call succeeds;
// without the CA (verification is on by default) every call fails; the
// stored specs show the client key REDACTED.
func TestTLSSettingsOverGRPCSAndH3(t *testing.T) { // serial: see heavyTests
	certFile, keyFile, _ := testcert.Write(t)
	certPEM, keyPEM := mustRead(t, certFile), mustRead(t, keyFile)
	e := startAPI(t, "BARRAGE_DISPATCH_WAIT=10s", "BARRAGE_SECRET_KEY="+testSecretKey)
	echo := startEchoApp(t, func(o *echoserver.Options) {
		o.GRPCAddr, o.H3Addr, o.CertFile, o.KeyFile = "127.0.0.1:0", "127.0.0.1:0", certFile, keyFile
	})
	startAgents(t, e.NATSURL, 1)
	trusted := map[string]any{"ca_cert": certPEM, "client_cert": certPEM, "client_key": keyPEM, "server_name": "localhost", "min_version": "1.3"}
	tests := []struct {
		name string
		spec map[string]any
		ok   string // the code of a call that worked
	}{
		{"grpcs ping", map[string]any{"url": "grpcs://" + echo.GRPCAddr(), "grpc": map[string]any{"mode": "ping"}}, "SERVING"},
		{"h3", map[string]any{"url": "https://" + echo.H3Addr() + "/?size=32", "h3": true}, "200"},
	}
	const n = 20
	for _, tt := range tests {
		for _, verified := range []bool{true, false} {
			sp := map[string]any{"qps": 40, "connections": 2, "count": n}
			maps.Copy(sp, tt.spec)
			if verified {
				sp["tls"] = trusted
			}
			raw := e.mustDo(t, http.StatusCreated, http.MethodPost, "/runs", e.AdminToken, map[string]any{"project": "default", "name": tt.name, "spec": sp})
			id := decode[client.Run](t, raw).Id.String()
			run := e.waitRun(t, id, 40*time.Second)
			if run.Status != "completed" {
				t.Fatalf("%s (verified %v): run ended %s (error %q)", tt.name, verified, run.Status, derefS(run.Error))
			}
			res := decode[client.RunResult](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/runs/"+id+"/result", e.AdminToken, nil))
			if verified && (res.Count != n || res.RetCodes[tt.ok] != n || res.Errors != 0) {
				t.Errorf("%s with the CA: count %d errors %d codes %v, want %d × %s", tt.name, res.Count, res.Errors, res.RetCodes, n, tt.ok)
			}
			if !verified && (res.RetCodes[tt.ok] != 0 || res.Errors != res.Count || res.Count == 0) {
				t.Errorf("%s unverified: count %d errors %d codes %v, want every call refused", tt.name, res.Count, res.Errors, res.RetCodes)
			}
			got := e.mustDo(t, http.StatusOK, http.MethodGet, "/runs/"+id, e.AdminToken, nil)
			if verified && (!bytes.Contains(got, []byte(`"client_key":"REDACTED"`)) || bytes.Contains(got, []byte(strings.Split(keyPEM, "\n")[1]))) {
				t.Errorf("%s: the stored spec does not hide the key: %s", tt.name, got)
			}
		}
	}
}
