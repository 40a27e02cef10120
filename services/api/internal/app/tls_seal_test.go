package app

import (
	"bytes"
	"crypto/tls"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/pkg/testcert"
	"github.com/barrage-dev/barrage/services/api/client"
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
