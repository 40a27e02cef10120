package app

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/client"
)

// TestCLIPooledBaseline drives --baseline-last through the real stack: two
// 7-second runs of a test are each too short to judge a confidence form
// against, but pooled they make a baseline of 12 or more measured seconds;
// the run is judged against both, says it pooled 2 of the 5 asked for,
// and records them, newest first.
func TestCLIPooledBaseline(t *testing.T) { // serial: see heavyTests
	e := startAPI(t, "BARRAGE_ALL_IN_ONE=true", "BARRAGE_ECHO_HTTP_ADDR=127.0.0.1:0", "BARRAGE_ECHO_GRPC_ADDR=127.0.0.1:0",
		"BARRAGE_ECHO_TCP_ADDR=127.0.0.1:0", "BARRAGE_ECHO_UDP_ADDR=127.0.0.1:0", "BARRAGE_DISPATCH_WAIT=20s")
	m := regexp.MustCompile(`echo target: (http://127\.0\.0\.1:\d+/)`).FindStringSubmatch(e.Out)
	if m == nil {
		t.Fatalf("start-up notice %q does not name the echo target", e.Out)
	}
	dir := t.TempDir()
	spec := func(duration string) map[string]any {
		return map[string]any{"url": m[1] + "?delay=5ms", "qps": 40, "connections": 2, "duration": duration}
	}
	test := decode[client.Test](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/tests", e.AdminToken,
		map[string]any{"project": "default", "name": "pooled", "spec": spec("7s")}))
	var bases []uuid.UUID // newest first
	for i := range 2 {
		out := filepath.Join(dir, fmt.Sprintf("base%d.json", i))
		if r := runCLI(t, e.URL, e.AdminToken, "run", "--test", test.Id.String(), "--json", out); r.code != 0 {
			t.Fatalf("baseline run %d: exit %d", i, r.code)
		}
		bases = append([]uuid.UUID{readRunJSON(t, out).Id}, bases...)
	}
	e.mustDo(t, http.StatusOK, http.MethodPut, "/tests/"+test.Id.String(), e.AdminToken, map[string]any{"name": "pooled", "spec": spec("11s")})
	const expr = "p(50) < baseline * 3 @ 95%"

	t.Run("one 7 s baseline is too short", func(t *testing.T) {
		out := filepath.Join(dir, "one.json")
		r := runCLI(t, e.URL, e.AdminToken, "run", "--test", test.Id.String(), "--baseline", bases[0].String(), "--threshold", expr, "--json", out)
		if r.code != 98 || !strings.Contains(r.stdout, "the baseline has") || !strings.Contains(r.stdout, "at least 10 needed") {
			t.Fatalf("exit %d, want 98 saying the baseline is too short", r.code)
		}
	})

	t.Run("the last 5 pool the 2 there are", func(t *testing.T) {
		out, md := filepath.Join(dir, "pooled.json"), filepath.Join(dir, "pooled.md")
		r := runCLI(t, e.URL, e.AdminToken, "run", "--test", test.Id.String(), "--baseline-last", "5", "--threshold", expr,
			"--json", out, "--summary-md", md)
		note := "pooled 2 runs: the test has 2 earlier passing runs of the 5 asked for"
		if r.code != 0 || !strings.Contains(r.stdout, "baseline: "+note) || !strings.Contains(r.stdout, "): pass") {
			t.Fatalf("exit %d, want 0 with the pool's note and the pass in the report", r.code)
		}
		if summary, err := os.ReadFile(md); err != nil || !strings.Contains(string(summary), "Baseline: "+note+".") {
			t.Errorf("--summary-md (%v) lacks the baseline:\n%s", err, summary)
		}
		run := readRunJSON(t, out)
		p := run.BaselinePool
		if run.BaselineLast == nil || *run.BaselineLast != 5 || p == nil || len(p.Runs) != 2 || p.Runs[0] != bases[0] ||
			p.Runs[1] != bases[1] || derefS(p.Note) != note || run.BaselineRunId == nil || *run.BaselineRunId != bases[0] {
			t.Fatalf("run baseline_last %v pool %+v baseline %v; want 5, %v and the note", run.BaselineLast, p, run.BaselineRunId, bases)
		}
		x := outcomes(t, &run, 1)[0].Estimate
		if x == nil || x.Seconds < 10 || x.RatioLow <= 0 || x.RatioHigh >= 3 {
			t.Errorf("estimate %+v, want a ratio interval under 3 over at least 10 seconds", x)
		}
		if x != nil && (x.Spread != nil || x.SpreadRuns != nil) {
			t.Errorf("estimate's spread %v from %v runs, want none: 2 runs of 7 s give no run-to-run spread", x.Spread, x.SpreadRuns)
		}
	})
}

// readRunJSON reads the run of a --json file.
func readRunJSON(t *testing.T, path string) client.Run {
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
