package app

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/services/api/client"
)

// Secrets of TestRedactionEndToEnd, each one distinct so a hit names the
// place that leaked it.
const (
	secretBearer   = "s3cr3t-AAA"
	secretPassword = "pa55-BBB"
	secretToken    = "tok-CCC"
	// secretUser is the URL's username, which is often a token
	// (https://ghp_x@github.com); secretAmzSig is an X-Amz-Signature query
	// parameter.
	secretUser   = "ghp_user-FFF"
	secretAmzSig = "amzsig-GGG"
	// secretAPIKey and secretSig travel in headers named in
	// BARRAGE_SECRET_HEADERS; X-Tenant-Sig is secret only through that list.
	secretAPIKey = "apikey-DDD"
	secretSig    = "sig-EEE"
	// secretBody is a password in a request body, secret only because
	// BARRAGE_REDACT_BODY matches it.
	secretBody = "bodypw-HHH"
)

// loginBody is the body of the basic run: its password is secret only
// through BARRAGE_REDACT_BODY.
const loginBody = `{"user":"ann","password":"` + secretBody + `"}`

// seenRequest is what the target of the redaction run saw.
type seenRequest struct {
	authorization, user, password, token, amzSig, apiKey, sig, body string
}

// startSecretTarget is an HTTP target that records the credentials of the
// last request it answered.
func startSecretTarget(t *testing.T) (base string, last func() (seenRequest, int)) {
	t.Helper()
	var mu sync.Mutex
	var seen seenRequest
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, password, _ := r.BasicAuth()
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		seen = seenRequest{authorization: r.Header.Get("Authorization"), user: user, password: password, token: r.URL.Query().Get("token"),
			amzSig: r.URL.Query().Get("X-Amz-Signature"),
			apiKey: r.Header.Get("X-Api-Key"), sig: r.Header.Get("X-Tenant-Sig"), body: string(body)}
		n++
		mu.Unlock()
		_, _ = io.WriteString(w, "ok")
	}))
	t.Cleanup(srv.Close)
	return srv.URL, func() (seenRequest, int) {
		mu.Lock()
		defer mu.Unlock()
		return seen, n
	}
}

// TestRedactionEndToEnd runs a real run whose header, URL userinfo and
// query carry secrets: the agent sends the real values to the target, and
// none of them is in the database, any API response about the run, the
// exports or the logs of the API and the agent (docs/architecture.md §7). X-Tenant-Sig
// is secret only because BARRAGE_SECRET_HEADERS names it.
func TestRedactionEndToEnd(t *testing.T) { // serial: see heavyTests
	var logs syncBuffer
	e := startAPILogged(t, &logs, "BARRAGE_DISPATCH_WAIT=10s", "BARRAGE_SECRET_KEY="+testSecretKey,
		"BARRAGE_SECRET_HEADERS=x-api-key, X-TENANT-SIG", `BARRAGE_REDACT_BODY="password"\s*:\s*"([^"]*)"`)
	target, last := startSecretTarget(t)
	startAgentsLogged(t, e.NATSURL, 1, &logs, slog.LevelDebug)

	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	runURL := fmt.Sprintf("http://%s:%s@%s/?token=%s&X-Amz-Signature=%s&page=2", secretUser, secretPassword, u.Host, secretToken, secretAmzSig)
	var responses bytes.Buffer
	record := func(what string, raw []byte) { fmt.Fprintf(&responses, "== %s\n%s\n", what, raw) }
	// An Authorization header wins over the URL's userinfo, so a second
	// run without the header shows that the userinfo reaches the agent too;
	// a third runs a stored test, whose secrets are sealed in its row.
	var ids []string
	for _, c := range []struct {
		name     string
		headers  []string
		fromTest bool
		want     seenRequest
	}{
		{"bearer", []string{"Authorization: Bearer " + secretBearer, "X-Trace: visible", "X-Api-Key: " + secretAPIKey, "X-Tenant-Sig: " + secretSig},
			false, seenRequest{authorization: "Bearer " + secretBearer, token: secretToken, amzSig: secretAmzSig, apiKey: secretAPIKey, sig: secretSig}},
		{"basic", []string{"X-Trace: visible"}, false, seenRequest{user: secretUser, password: secretPassword, token: secretToken, amzSig: secretAmzSig, body: loginBody}},
		{"stored test", []string{"Authorization: Bearer " + secretBearer, "X-Trace: visible", "X-Tenant-Sig: " + secretSig},
			true, seenRequest{authorization: "Bearer " + secretBearer, token: secretToken, amzSig: secretAmzSig, sig: secretSig}},
	} {
		sp := map[string]any{"url": runURL, "qps": 20, "connections": 1, "duration": "1s", "headers": c.headers}
		if c.want.body != "" {
			sp["payload"] = c.want.body
		}
		body := map[string]any{"project": "default", "name": "redaction " + c.name, "spec": sp}
		if c.fromTest {
			test := e.mustDo(t, http.StatusCreated, http.MethodPost, "/tests", e.AdminToken, body)
			record("POST /tests", test)
			testID := decode[client.Test](t, test).Id.String()
			record("GET /tests/"+testID, e.mustDo(t, http.StatusOK, http.MethodGet, "/tests/"+testID, e.AdminToken, nil))
			record("GET /tests", e.mustDo(t, http.StatusOK, http.MethodGet, "/tests?project=default", e.AdminToken, nil))
			body = map[string]any{"test": testID}
		}
		created := e.mustDo(t, http.StatusCreated, http.MethodPost, "/runs", e.AdminToken, body)
		record("POST /runs", created)
		id := decode[client.Run](t, created).Id.String()
		run := e.waitRun(t, id, 40*time.Second)
		if run.Status != "completed" {
			t.Fatalf("run %s ended %s (error %q)", c.name, run.Status, derefS(run.Error))
		}
		// The agent sent the real credentials.
		seen, n := last()
		if n == 0 {
			t.Fatalf("run %s: the target got no request", c.name)
		}
		if seen.authorization != "" && c.want.authorization == "" { // from the userinfo
			seen.authorization = ""
		}
		if seen != c.want {
			t.Errorf("run %s: target saw %+v, want %+v", c.name, seen, c.want)
		}
		ids = append(ids, id)
	}

	// Every API response about the runs.
	e.mustDo(t, http.StatusOK, http.MethodPatch, "/projects/default", e.AdminToken, map[string]any{"public_results": true})
	record("GET /runs", e.mustDo(t, http.StatusOK, http.MethodGet, "/runs?project=default", e.AdminToken, nil))
	for _, id := range ids {
		for _, sub := range []string{
			"", "/intervals", "/shards", "/events", "/result", "/result?format=barrage",
			"/result?format=fortio", "/result?format=junit", "/result?format=csv",
		} {
			path := "/runs/" + id + sub
			record("GET "+path, e.mustDo(t, http.StatusOK, http.MethodGet, path, e.AdminToken, nil))
		}
	}
	// The public Fortio exports, as anyone reads them.
	record("GET /fortio/data/index.tsv", e.mustDo(t, http.StatusOK, http.MethodGet, "/fortio/data/index.tsv?project=default", "", nil))
	entries := e.indexLines(t, "/fortio/data/index.tsv?project=default", "")
	if len(entries) != len(ids) {
		t.Fatalf("public index lists %d results, want %d", len(entries), len(ids))
	}
	for _, entry := range entries {
		name := entry.URL[strings.LastIndexByte(entry.URL, '/')+1:]
		record("GET /fortio/data/"+name, e.mustDo(t, http.StatusOK, http.MethodGet, "/fortio/data/"+name, "", nil))
	}
	// An imported Fortio result carrying the listed header and query
	// parameter keeps neither value.
	doc := decode[map[string]any](t, fortioDoc(t, "http_credentials.json"))
	doc["Headers"] = map[string][]string{"X-Tenant-Sig": {secretSig}, "X-Trace": {"visible"}}
	doc["URL"] = doc["URL"].(string) + "&x-tenant-sig=" + secretSig
	imported := e.mustDo(t, http.StatusCreated, http.MethodPost, "/imports?project=default&name=imported", e.AdminToken, doc)
	record("POST /imports", imported)
	importedID := decode[client.Run](t, imported).Id.String()
	for _, sub := range []string{"", "/result", "/result?format=fortio"} {
		record("GET /runs/"+importedID+sub, e.mustDo(t, http.StatusOK, http.MethodGet, "/runs/"+importedID+sub, e.AdminToken, nil))
	}
	// The shown spec still says where the runs went, with the secrets masked.
	if !bytes.Contains(responses.Bytes(), []byte("X-Tenant-Sig: REDACTED")) || !bytes.Contains(responses.Bytes(), []byte("X-Trace: visible")) ||
		!bytes.Contains(responses.Bytes(), []byte(`\"user\":\"ann\",\"password\":\"REDACTED\"`)) {
		t.Errorf("the responses show no redacted spec:\n%s", responses.Bytes())
	}

	dump := pgDump(t, e.DBURL)
	if !bytes.Contains(dump, []byte("sealed_spec")) {
		t.Errorf("the dump holds no sealed_spec: the outbox row of the run is not where this test looks")
	}
	for _, place := range []struct {
		name string
		text []byte
	}{
		{"pg_dump of the database", dump},
		{"API responses", responses.Bytes()},
		{"API and agent logs", []byte(logs.String())},
	} {
		for _, secret := range []string{secretBearer, secretUser, secretPassword, secretToken, secretAmzSig, secretAPIKey, secretSig, secretBody} {
			if i := bytes.Index(place.text, []byte(secret)); i >= 0 {
				t.Errorf("%s: found the secret %q in …%s…", place.name, secret, around(place.text, i))
			}
		}
	}
	if len([]byte(logs.String())) == 0 {
		t.Error("no logs were captured; the check of the logs checked nothing")
	}
}

// testSecretKey is a fixed BARRAGE_SECRET_KEY for tests.
const testSecretKey = "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY="

// pgDump returns `pg_dump --data-only` of the database at dbURL.
func pgDump(t *testing.T, dbURL string) []byte {
	t.Helper()
	bin, err := exec.LookPath("pg_dump")
	if err != nil {
		t.Fatalf("pg_dump not found (install postgresql-client): %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, "--data-only", "--no-owner", "--dbname", dbURL)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pg_dump: %v: %s", err, stderr.Bytes())
	}
	return out
}

// around returns up to 60 bytes of text on each side of i, for a message.
func around(text []byte, i int) []byte {
	return text[max(0, i-60):min(len(text), i+60)]
}
