package app

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/barrage-dev/barrage/services/api/client"
)

// TestCLIConfidenceVerdicts drives confidence forms through the real
// stack: a run against the echo at twice the baseline's delay is a
// regression with its interval in every report, a run too short to tell is
// inconclusive (exit 98), and each outcome keeps its estimate.
func TestCLIConfidenceVerdicts(t *testing.T) { // serial: see heavyTests
	e := startAPI(t, "BARRAGE_ALL_IN_ONE=true", "BARRAGE_ECHO_HTTP_ADDR=127.0.0.1:0", "BARRAGE_ECHO_GRPC_ADDR=127.0.0.1:0",
		"BARRAGE_ECHO_TCP_ADDR=127.0.0.1:0", "BARRAGE_ECHO_UDP_ADDR=127.0.0.1:0", "BARRAGE_DISPATCH_WAIT=20s")
	m := regexp.MustCompile(`echo target: (http://127\.0\.0\.1:\d+/)`).FindStringSubmatch(e.Out)
	if m == nil {
		t.Fatalf("start-up notice %q does not name the echo target", e.Out)
	}
	echo, dir := m[1], t.TempDir()
	load := []string{"--project", "default", "--qps", "40", "-c", "2"}
	readRun := func(path string) client.Run {
		t.Helper()
		var got struct {
			Run client.Run `json:"run"`
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, &got); err != nil {
			t.Fatal(err)
		}
		return got.Run
	}

	baseJSON := filepath.Join(dir, "base.json")
	if r := runCLI(t, e.URL, e.AdminToken, append([]string{"run", "--url", echo + "?delay=5ms", "-t", "11s", "--json", baseJSON}, load...)...); r.code != 0 {
		t.Fatalf("baseline run: exit %d", r.code)
	}
	base := readRun(baseJSON).Id.String()

	t.Run("regression", func(t *testing.T) {
		out, md := filepath.Join(dir, "slow.json"), filepath.Join(dir, "slow.md")
		args := append([]string{"run", "--url", echo + "?delay=10ms", "-t", "11s", "--baseline", base, "--json", out, "--summary-md", md,
			"--threshold", "p(50) < baseline * 1.10 @ 95%", "--threshold", "p(50) < baseline * 3 @ 95%"}, load...)
		r := runCLI(t, e.URL, e.AdminToken, args...)
		if r.code != 99 || !regexp.MustCompile(`p\(50\) \+\d+\.\d % \(95 % CI \+\d+\.\d % to \+\d+\.\d %\): regression`).MatchString(r.stdout) {
			t.Fatalf("exit %d, want 99 with the regression and its interval in the report", r.code)
		}
		summary, err := os.ReadFile(md)
		if err != nil || !strings.Contains(string(summary), "): regression") || !strings.Contains(string(summary), "): pass") {
			t.Errorf("--summary-md (%v) lacks the regression and the pass:\n%s", err, summary)
		}
		res := outcomes(t, ptrTo(readRun(out)), 2)
		for i, wantPass := range []bool{false, true} {
			x := res[i].Estimate
			if res[i].Pass != wantPass || x == nil || x.RatioLow < 1.3 || x.RatioHigh > 3 || x.Seconds < 10 || x.Longer != 1 {
				t.Errorf("outcome %d = %+v estimate %+v; want pass %v with a ratio interval within 1.3..3 over ≥ 10 s", i, res[i], x, wantPass)
			}
		}
	})

	t.Run("too short", func(t *testing.T) {
		out := filepath.Join(dir, "short.json")
		args := append([]string{"run", "--url", echo + "?delay=5ms", "-t", "3s", "--baseline", base, "--json", out,
			"--threshold", "p(99) < baseline * 1.10 @ 95%"}, load...)
		r := runCLI(t, e.URL, e.AdminToken, args...)
		if r.code != 98 || !strings.Contains(r.stdout, "INCONCLUSIVE") || !strings.Contains(r.stdout, "at least 10 needed") {
			t.Fatalf("exit %d, want 98 saying the run is too short", r.code)
		}
		run := readRun(out)
		if res := outcomes(t, &run, 1); verdict(&run) != "inconclusive" || res[0].Inconclusive == nil || !*res[0].Inconclusive {
			t.Errorf("verdict %q outcome %+v, want inconclusive", verdict(&run), res[0])
		}
	})
}

func ptrTo[T any](v T) *T { return &v }
