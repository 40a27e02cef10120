package app

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/pkg/testcert"
	"github.com/barrage-dev/barrage/services/api/client"
	echoserver "github.com/barrage-dev/barrage/services/echo/echo"
)

// TestScenarioProtocolsOverMTLS runs a scenario through the API and a real
// agent against the real echo serving TLS that requires a client
// certificate: an h2 step whose token the next, HTTP/1.1, step sends,
// then a gRPC health check over TLS. With the spec's CA and client
// certificate every HTTP request of the 10 iterations is a 200 over the
// protocol its step asked for (the echo's /debug names it) and every
// health check answers SERVING (code 0); the client key is REDACTED in
// the API's answers and found nowhere in the database.
func TestScenarioProtocolsOverMTLS(t *testing.T) { // serial: see heavyTests
	certFile, keyFile, _ := testcert.Write(t)
	certPEM, keyPEM := mustRead(t, certFile), mustRead(t, keyFile)
	e := startAPI(t, "BARRAGE_DISPATCH_WAIT=10s", "BARRAGE_SECRET_KEY="+testSecretKey)
	echo := startEchoApp(t, func(o *echoserver.Options) {
		o.Debug, o.CertFile, o.KeyFile, o.ClientCAFile, o.GRPCAddr = true, certFile, keyFile, certFile, "127.0.0.1:0"
	})
	base := "https://" + echo.HTTPAddr()
	startAgents(t, e.NATSURL, 1)
	sc := map[string]any{
		"name": "h2 then http/1.1",
		"steps": []any{
			map[string]any{
				"name": "login", "protocol": "h2", "url": base + "/debug?header=X-Token:tok-{{.iteration}}",
				"extract": []any{map[string]any{"var": "token", "header": "X-Token"}},
				"checks":  []any{map[string]any{"name": "over h2", "body_matches": ` HTTP/2\.0\n`}},
			},
			map[string]any{
				"name": "read", "url": base + "/debug", "headers": map[string]any{"Authorization": "Bearer {{.token}}"},
				"checks": []any{
					map[string]any{"name": "over http/1.1", "body_matches": ` HTTP/1\.1\n`},
					map[string]any{"name": "token sent", "body_matches": `Authorization: Bearer tok-[0-9]+\n`},
				},
			},
			map[string]any{
				"name": "health", "url": "grpcs://" + echo.GRPCAddr() + "/grpc.health.v1.Health/Check",
				"checks": []any{map[string]any{"name": "serving", "json_path": "$.status", "equals": "SERVING"}},
			},
		},
	}
	sp := map[string]any{"scenario": sc, "iterations_per_second": 20, "count": 10, "connections": 2,
		"tls": map[string]any{"ca_cert": certPEM, "client_cert": certPEM, "client_key": keyPEM, "min_version": "1.3"}}
	var responses bytes.Buffer
	created := e.mustDo(t, http.StatusCreated, http.MethodPost, "/runs", e.AdminToken, map[string]any{"project": "default", "spec": sp})
	responses.Write(created)
	id := decode[client.Run](t, created).Id.String()
	run := e.waitRun(t, id, 40*time.Second)
	if run.Status != "completed" {
		t.Fatalf("run ended %s (error %q)", run.Status, derefS(run.Error))
	}
	raw := e.mustDo(t, http.StatusOK, http.MethodGet, "/runs/"+id+"/result", e.AdminToken, nil)
	responses.Write(raw)
	res := decode[client.RunResult](t, raw)
	if res.Scenario == nil || res.Scenario.Started != 10 || res.Scenario.Completed != 10 || len(res.Scenario.Steps) != 3 {
		t.Fatalf("scenario result %+v, want 10 iterations completed", res.Scenario)
	}
	for i, st := range res.Scenario.Steps {
		code := map[bool]string{true: "0", false: "200"}[i == 2] // gRPC's OK, HTTP's
		if st.Count != 10 || st.RetCodes[code] != 10 || st.Errors != 0 || len(st.FailedChecks) != 0 {
			t.Errorf("step %s: count %d codes %v errors %d failed checks %v; want 10 passing %ss", st.Name, st.Count, st.RetCodes, st.Errors,
				st.FailedChecks, code)
		}
	}
	responses.Write(e.mustDo(t, http.StatusOK, http.MethodGet, "/runs/"+id, e.AdminToken, nil))
	if !bytes.Contains(responses.Bytes(), []byte(`"client_key":"REDACTED"`)) {
		t.Errorf("the run's spec does not show the client key redacted")
	}
	keyBody := strings.Split(keyPEM, "\n")[1]
	for name, text := range map[string][]byte{"pg_dump of the database": pgDump(t, e.DBURL), "API responses": responses.Bytes()} {
		if i := bytes.Index(text, []byte(keyBody)); i >= 0 {
			t.Errorf("%s: found the client key in …%s…", name, around(text, i))
		}
	}
}
