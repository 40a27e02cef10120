package cli

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
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
	}
	for _, tt := range tests {
		var stderr strings.Builder
		code := Main(context.Background(), append([]string{"barrage-agent", "load"}, tt.args...), nil, io.Discard, &stderr)
		if code != ExitUsage || !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tt.args, code, stderr.String(), tt.want)
		}
	}
}
