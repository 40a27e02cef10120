package cli

import (
	"context"
	"encoding/pem"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/barrage-dev/barrage/services/agent/internal/scenario"
)

func writeScenario(t *testing.T, doc string) string {
	t.Helper()
	name := filepath.Join(t.TempDir(), "scenario.yaml")
	if err := os.WriteFile(name, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	return name
}

func TestLoadScenario(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/login" {
			_, _ = io.WriteString(w, `{"id":42}`)
			return
		}
		if r.Header.Get("X-Id") != "42" {
			w.WriteHeader(http.StatusForbidden)
		}
	}))
	t.Cleanup(srv.Close)
	file := writeScenario(t, `
name: two
steps:
  - name: login
    url: `+srv.URL+`/login
    extract: [{var: id, json_path: $.id}]
  - name: item
    url: `+srv.URL+`/item
    headers: {X-Id: '{{.id}}'}
    checks: [{name: ok, status: [200]}]
`)
	native := filepath.Join(t.TempDir(), "native.json")
	var stdout, stderr strings.Builder
	code := Main(context.Background(), []string{"barrage-agent", "load", "-scenario", file, "-iterations-per-second", "100",
		"-n", "7", "-c", "2", "-native-json", native}, nil, &stdout, &stderr)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var res scenario.Result
	mustReadJSON(t, native, &res)
	if res.Started != 7 || res.Completed != 7 || len(res.Steps) != 2 || res.Steps[1].Count != 7 || res.Steps[1].RetCodes["200"] != 7 {
		t.Fatalf("native: %+v", res)
	}
	out := stdout.String()
	for _, want := range []string{`Scenario "two": 7 iterations started`, "login                       7        0        0  p50 ", "item  "} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
}

// TestLoadScenarioDataFile reads a JSON lines data file beside the
// scenario: 8 iterations take its 4 rows in turn, twice each, a row's
// values in the request; a malformed file names its field and line.
func TestLoadScenarioDataFile(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	seen := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.URL.Query().Get("sku")+"/"+r.URL.Query().Get("qty")]++
		mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	file := writeScenario(t, `
name: buy
data: {file: items.jsonl}
steps:
  - name: buy
    url: `+srv.URL+`/buy?sku={{.sku}}&qty={{.qty}}
    checks: [{name: ok, status: [200]}]
`)
	items := `{"sku":"a1","qty":1}` + "\n" + `{"sku":"b2","qty":2}` + "\n" + `{"sku":"c3","qty":3}` + "\n" + `{"sku":"d4","qty":4}` + "\n"
	if err := os.WriteFile(filepath.Join(filepath.Dir(file), "items.jsonl"), []byte(items), 0o600); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr strings.Builder
	code := Main(context.Background(), []string{"barrage-agent", "load", "-scenario", file, "-iterations-per-second", "200",
		"-n", "8", "-c", "2", "-quiet"}, nil, &stdout, &stderr)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	mu.Lock()
	defer mu.Unlock()
	if want := map[string]int{"a1/1": 2, "b2/2": 2, "c3/3": 2, "d4/4": 2}; !maps.Equal(seen, want) {
		t.Fatalf("rows sent %v, want %v", seen, want)
	}
	if err := os.WriteFile(filepath.Join(filepath.Dir(file), "items.jsonl"), []byte(items+"{\"sku\":\"e5\"}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	stderr.Reset()
	code = Main(context.Background(), []string{"barrage-agent", "load", "-scenario", file, "-n", "1"}, nil, io.Discard, &stderr)
	if want := `data.content: line 5: key "qty" of the first line is missing`; code != ExitUsage || !strings.Contains(stderr.String(), want) {
		t.Fatalf("exit %d, stderr %q; want 2 and %q", code, stderr.String(), want)
	}
}

// TestLoadScenarioClosedLoopExitsOnFailedIterations runs 9 iterations by 3
// virtual users against a target that answers every third item request
// with a 500: the 3 iterations whose check failed make the exit 99.
func TestLoadScenarioClosedLoopExitsOnFailedIterations(t *testing.T) {
	t.Parallel()
	var items atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/item" && items.Add(1)%3 == 0 {
			w.WriteHeader(http.StatusInternalServerError)
		}
	}))
	t.Cleanup(srv.Close)
	file := writeScenario(t, `
name: closed
steps:
  - name: item
    url: `+srv.URL+`/item?n={{.iteration}}
    checks: [{name: ok, status: [200]}]
`)
	var stdout, stderr strings.Builder
	code := Main(context.Background(), []string{"barrage-agent", "load", "-scenario", file, "-iterations-per-second", "0",
		"-n", "9", "-c", "3"}, nil, &stdout, &stderr)
	if code != ExitIterationsFailed || !strings.Contains(stderr.String(), "3 of 9 iterations failed") ||
		!strings.Contains(stderr.String(), "closed loop of 3 virtual users") {
		t.Fatalf("exit %d, stderr %q; want 99 and the failed iterations", code, stderr.String())
	}
	if out := stdout.String(); !strings.Contains(out, `9 iterations started by 3 virtual users`) || !strings.Contains(out, `failed check "ok": 3`) {
		t.Errorf("summary:\n%s", out)
	}
}

func TestLoadScenarioBadInput(t *testing.T) {
	t.Parallel()
	bad := writeScenario(t, `{"steps":[{"name":"a","url":"http://h/","extract":[{"var":"v","json_path":"$[?"}]}]}`)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-scenario", bad}, "steps[0].extract[0].json_path:"},
		{[]string{"-scenario", filepath.Join(t.TempDir(), "missing.yaml")}, "-scenario: open"},
		{[]string{"-scenario"}, "flag needs an argument"},
		{[]string{"-scenario", bad, "http://h/"}, "unexpected argument"},
		{[]string{"-scenario", writeScenario(t, `{"steps":[{"name":"a","url":"http://h/"}]}`), "-iterations-per-second", "-1"},
			"must not be negative"},
		{[]string{"-scenario", writeScenario(t, `{"steps":[{"name":"a","url":"https://h/"}]}`), "-alpn", "h2"},
			"-alpn: a scenario's steps choose their protocol"},
		{[]string{"-scenario", writeScenario(t, `{"steps":[{"name":"a","url":"https://h/"}]}`), "-tls-min", "2.0"},
			"-tls-min: tls.min_version: unknown version"},
		{[]string{"-scenario", writeScenario(t, `{"steps":[{"name":"a","url":"https://h/"}]}`), "-cacert", filepath.Join(t.TempDir(), "none.pem")},
			"-cacert: open"},
	}
	for _, tt := range tests {
		var stderr strings.Builder
		code := Main(context.Background(), append([]string{"barrage-agent", "load"}, tt.args...), nil, io.Discard, &stderr)
		if code != ExitUsage || !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tt.args, code, stderr.String(), tt.want)
		}
	}
}

// TestLoadScenarioTLSFlags: an h2 step to an HTTPS server whose
// certificate only -cacert trusts. Without it every iteration fails
// verification; with it (or -k) every request arrives over HTTP/2.
func TestLoadScenarioTLSFlags(t *testing.T) {
	t.Parallel()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ProtoMajor != 2 {
			w.WriteHeader(http.StatusHTTPVersionNotSupported)
		}
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	file := writeScenario(t, `
name: h2
steps:
  - name: get
    protocol: h2
    url: `+srv.URL+`/
    checks: [{name: over h2, status: [200]}]
`)
	for _, tt := range []struct {
		flags []string
		code  int
		want  string
	}{
		{nil, ExitIterationsFailed, "5 of 5 iterations failed"},
		{[]string{"-cacert", ca}, ExitOK, ""},
		{[]string{"-k"}, ExitOK, ""},
	} {
		native := filepath.Join(t.TempDir(), "native.json")
		var stderr strings.Builder
		args := append([]string{"barrage-agent", "load", "-scenario", file, "-iterations-per-second", "50", "-n", "5", "-c", "1",
			"-native-json", native, "-quiet"}, tt.flags...)
		code := Main(context.Background(), args, nil, io.Discard, &stderr)
		if code != tt.code || !strings.Contains(stderr.String(), tt.want) {
			t.Fatalf("%v: exit %d, stderr %q; want %d and %q", tt.flags, code, stderr.String(), tt.code, tt.want)
		}
		var res scenario.Result
		mustReadJSON(t, native, &res)
		st := res.Steps[0]
		if tt.code == ExitOK && (st.RetCodes["200"] != 5 || st.Errors != 0) {
			t.Fatalf("%v: codes %v errors %d", tt.flags, st.RetCodes, st.Errors)
		}
		if tt.code != ExitOK && st.TransportErrors["transport"] != 5 {
			t.Fatalf("%v: transport errors %v", tt.flags, st.TransportErrors)
		}
	}
}
