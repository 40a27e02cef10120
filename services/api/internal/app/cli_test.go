package app

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/barrage-dev/barrage/pkg/gobuild"
	"github.com/barrage-dev/barrage/pkg/threshold"
	"github.com/barrage-dev/barrage/services/api/client"
)

// cliBin builds the barrage CLI once for the whole test binary.
var cliBin = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "barrage-cli")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "barrage")
	if err := gobuild.Build(bin, "github.com/barrage-dev/barrage/services/api/cmd/barrage"); err != nil {
		return "", err
	}
	return bin, nil
})

// cliResult is one run of the CLI binary.
type cliResult struct {
	code           int
	stdout, stderr string
}

// runCLI runs the barrage binary with args against apiURL and token.
func runCLI(t *testing.T, apiURL, token string, args ...string) cliResult {
	t.Helper()
	bin, err := cliBin()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = []string{"BARRAGE_URL=" + apiURL, "BARRAGE_TOKEN=" + token}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	res := cliResult{stdout: stdout.String(), stderr: stderr.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		res.code = ee.ExitCode()
	case err != nil:
		t.Fatalf("barrage %v: %v", args, err)
	}
	if strings.Contains(res.stdout+res.stderr, token) {
		t.Errorf("barrage %v printed the token:\n%s\n%s", args, res.stdout, res.stderr)
	}
	t.Logf("barrage %s → %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), res.code, res.stdout, res.stderr)
	return res
}

// TestCLIExitCodes drives the real barrage binary against the all-in-one
// stack and its echo server: each outcome has its exit code.
func TestCLIExitCodes(t *testing.T) { // serial: see heavyTests
	e := startAPI(t, "BARRAGE_ALL_IN_ONE=true", "BARRAGE_ECHO_HTTP_ADDR=127.0.0.1:0", "BARRAGE_ECHO_GRPC_ADDR=127.0.0.1:0",
		"BARRAGE_ECHO_TCP_ADDR=127.0.0.1:0", "BARRAGE_ECHO_UDP_ADDR=127.0.0.1:0", "BARRAGE_DISPATCH_WAIT=20s")
	m := regexp.MustCompile(`echo target: (http://127\.0\.0\.1:\d+/)`).FindStringSubmatch(e.Out)
	if m == nil {
		t.Fatalf("start-up notice %q does not name the echo target", e.Out)
	}
	echo := m[1]
	dir := t.TempDir()
	load := []string{"--project", "default", "--qps", "50", "-c", "2", "-t", "1s"}

	t.Run("pass", func(t *testing.T) {
		out := filepath.Join(dir, "pass.json")
		args := append([]string{"run", "--url", echo, "--name", "cli-pass", "--threshold", "p(99) < 10s", "--label", "via=cli", "--json", out,
			"-H", "X-From: cli", "-X", "post", "-payload", "hello"}, load...)
		r := runCLI(t, e.URL, e.AdminToken, args...)
		if r.code != 0 || !strings.Contains(r.stdout, "verdict pass") || !strings.Contains(r.stdout, "p(99) < 10s") {
			t.Fatalf("exit %d, want 0 with the verdict and the threshold in the summary", r.code)
		}
		var got struct {
			Run    client.Run       `json:"run"`
			Result client.RunResult `json:"result"`
		}
		raw, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, &got); err != nil {
			t.Fatal(err)
		}
		if got.Run.Name != "cli-pass" || got.Run.Labels["via"] != "cli" || got.Result.Count != got.Run.Summary.Count || got.Result.Count < 40 {
			t.Errorf("--json run %s labels %v count %d, result count %d", got.Run.Name, got.Run.Labels, got.Run.Summary.Count, got.Result.Count)
		}
		if sp := got.Run.Spec; !slices.Equal(sp.Headers, []string{"X-From: cli"}) || sp.Method != "POST" || sp.Payload != "hello" {
			t.Errorf("the run's spec has headers %q, method %q, payload %q; want Fortio's -H, -X and -payload", sp.Headers, sp.Method, sp.Payload)
		}
	})

	t.Run("thresholds fail", func(t *testing.T) {
		junit, out := filepath.Join(dir, "fail.xml"), filepath.Join(dir, "fail.json")
		md := filepath.Join(dir, "summary.md")
		args := append([]string{"run", "--url", echo + "?delay=20ms", "--threshold", "p(99) < 1ms", "--junit", junit, "--json", out,
			"--summary-md", md}, load...)
		if r := runCLI(t, e.URL, e.AdminToken, args...); r.code != 99 {
			t.Fatalf("exit %d, want 99", r.code)
		}
		summary, err := os.ReadFile(md)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"### ❌ Barrage:", "FAIL (a threshold failed)", "| `p(99) < 1ms` | **FAIL** |", e.URL + "/runs/"} {
			if !strings.Contains(string(summary), want) {
				t.Errorf("--summary-md lacks %q:\n%s", want, summary)
			}
		}
		var rep junitReport
		raw, err := os.ReadFile(junit)
		if err != nil {
			t.Fatal(err)
		}
		if err := xml.Unmarshal(raw, &rep); err != nil {
			t.Fatal(err)
		}
		var got struct {
			Run client.Run `json:"run"`
		}
		raw, _ = os.ReadFile(out)
		_ = json.Unmarshal(raw, &got)
		res := outcomes(t, &got.Run, 1)
		if len(rep.Suites) != 1 || rep.Suites[0].Failures != 1 || len(rep.Suites[0].Cases) != 1 || rep.Suites[0].Cases[0].Failure == nil {
			t.Fatalf("junit %+v, want one testcase with one failure", rep)
		}
		want := "observed " + threshold.FormatValue(res[0].Observed, threshold.Micros) + ", limit 1ms"
		if msg := rep.Suites[0].Cases[0].Failure.Message; msg != want || res[0].Observed < 20_000 {
			t.Errorf("failure message %q, want %q (observed ≥ 20ms)", msg, want)
		}
	})

	t.Run("stored test by name", func(t *testing.T) {
		e.mustDo(t, http.StatusCreated, http.MethodPost, "/tests", e.AdminToken, map[string]any{
			"project": "default", "name": "cli-stored", "thresholds": []string{"count > 0"},
			"spec": map[string]any{"url": echo, "qps": 50, "connections": 2, "duration": "1s"},
		})
		r := runCLI(t, e.URL, e.AdminToken, "run", "--test", "cli-stored", "--project", "default")
		if r.code != 0 || !strings.Contains(r.stdout, "count > 0") {
			t.Errorf("exit %d, want 0 with the test's threshold in the summary", r.code)
		}
		if r := runCLI(t, e.URL, e.AdminToken, "run", "--test", "no-such-test", "--project", "default"); r.code != 2 {
			t.Errorf("unknown test: exit %d, want 2", r.code)
		}
	})

	t.Run("closed port", func(t *testing.T) {
		if r := runCLI(t, e.URL, e.AdminToken, append([]string{"run", "--url", "http://127.0.0.1:1/"}, load...)...); r.code != 97 {
			t.Errorf("exit %d, want 97", r.code)
		}
	})

	t.Run("bad threshold", func(t *testing.T) {
		r := runCLI(t, e.URL, e.AdminToken, append([]string{"run", "--url", echo, "--threshold", "p(99) < 25xs"}, load...)...)
		if r.code != 2 || !strings.Contains(r.stderr, "thresholds[0]: at 11:") {
			t.Errorf("exit %d, want 2 with the threshold's position", r.code)
		}
	})

	t.Run("bad flags", func(t *testing.T) {
		if r := runCLI(t, e.URL, e.AdminToken, "run", "--qps", "5"); r.code != 2 {
			t.Errorf("exit %d, want 2", r.code)
		}
	})

	t.Run("API unreachable", func(t *testing.T) {
		if r := runCLI(t, "http://127.0.0.1:1", e.AdminToken, append([]string{"run", "--url", echo}, load...)...); r.code != 1 {
			t.Errorf("exit %d, want 1", r.code)
		}
	})

	t.Run("runs list", func(t *testing.T) {
		r := runCLI(t, e.URL, e.AdminToken, "runs", "list")
		if r.code != 0 || !strings.Contains(r.stdout, "cli-pass") {
			t.Errorf("exit %d, want 0 listing cli-pass", r.code)
		}
	})
}
