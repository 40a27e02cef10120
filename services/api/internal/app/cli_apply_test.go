package app

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/barrage-dev/barrage/services/api/client"
)

// applyFile writes a `barrage tests apply` file of the tests apply-a and
// apply-b (one YAML document each) with b's thresholds, and apply-c when
// withC is set; it returns the file's path.
func applyFile(t *testing.T, echo, bThreshold string, withC bool) string {
	t.Helper()
	doc := fmt.Sprintf(`name: apply-a
project: default
labels: {team: web}
thresholds: ["count > 0"]
spec:
  url: %[1]s
  qps: 20
  connections: 2
  duration: 1s
---
- name: apply-b
  project: default
  baseline_last: 3
  thresholds: [%[2]q, "error_rate < 1%%"]
  spec: {url: "%[1]s?delay=1ms", count: 10}
`, echo, bThreshold)
	if withC {
		doc += "- name: apply-c\n  project: default\n  spec: {url: \"" + echo + "\"}\n"
	}
	name := filepath.Join(t.TempDir(), "tests.yaml")
	if err := os.WriteFile(name, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

// storedTests returns the tests of the default project by name.
func (e *apiEnv) storedTests(t *testing.T) map[string]client.Test {
	t.Helper()
	page := decode[client.TestPage](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/tests?project=default&limit=200", e.AdminToken, nil))
	out := map[string]client.Test{}
	for i := range page.Items {
		out[page.Items[i].Name] = page.Items[i]
	}
	return out
}

// wantLines fails t unless out has exactly the lines matching each pattern.
func wantLines(t *testing.T, out string, patterns ...string) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != len(patterns) {
		t.Fatalf("output %q, want %d lines", out, len(patterns))
	}
	for i, p := range patterns {
		if !regexp.MustCompile(p).MatchString(lines[i]) {
			t.Errorf("line %d %q, want %s", i+1, lines[i], p)
		}
	}
}

// TestCLITestsApplyAndCompare drives `barrage tests apply|list` and
// `barrage runs compare` of the real binary against the all-in-one stack.
func TestCLITestsApplyAndCompare(t *testing.T) { // serial: see heavyTests
	e := startAPI(t, "BARRAGE_ALL_IN_ONE=true", "BARRAGE_ECHO_HTTP_ADDR=127.0.0.1:0", "BARRAGE_ECHO_GRPC_ADDR=127.0.0.1:0",
		"BARRAGE_ECHO_TCP_ADDR=127.0.0.1:0", "BARRAGE_ECHO_UDP_ADDR=127.0.0.1:0", "BARRAGE_DISPATCH_WAIT=20s")
	m := regexp.MustCompile(`echo target: (http://127\.0\.0\.1:\d+/)`).FindStringSubmatch(e.Out)
	if m == nil {
		t.Fatalf("start-up notice %q does not name the echo target", e.Out)
	}
	echo := m[1]

	t.Run("apply creates", func(t *testing.T) {
		r := runCLI(t, e.URL, e.AdminToken, "tests", "apply", "-f", applyFile(t, echo, "p(99) < 250ms", false))
		if r.code != 0 {
			t.Fatalf("exit %d, want 0", r.code)
		}
		wantLines(t, r.stdout, `^created  apply-a  `, `^created  apply-b  `)
		got := e.storedTests(t)
		a, b := got["apply-a"], got["apply-b"]
		if a.Spec.URL != echo || a.Spec.QPS != 20 || a.Spec.Connections != 2 || a.Spec.Duration.Std().String() != "1s" ||
			!slices.Equal(a.Thresholds, []string{"count > 0"}) || a.Labels["team"] != "web" {
			t.Errorf("apply-a stored as %+v", a)
		}
		if b.Spec.URL != echo+"?delay=1ms" || b.Spec.Count != 10 || !slices.Equal(b.Thresholds, []string{"p(99) < 250ms", "error_rate < 1%"}) ||
			b.BaselineLast == nil || *b.BaselineLast != 3 || a.BaselineLast != nil {
			t.Errorf("apply-b stored as %+v", b)
		}
	})

	t.Run("apply again changes nothing", func(t *testing.T) {
		before := e.storedTests(t)
		r := runCLI(t, e.URL, e.AdminToken, "tests", "apply", "-f", applyFile(t, echo, "p(99) < 250ms", false))
		if r.code != 0 {
			t.Fatalf("exit %d, want 0", r.code)
		}
		wantLines(t, r.stdout, `^unchanged  apply-a  `, `^unchanged  apply-b  `)
		after := e.storedTests(t)
		for _, n := range []string{"apply-a", "apply-b"} {
			if !after[n].UpdatedAt.Equal(before[n].UpdatedAt) {
				t.Errorf("%s was written", n)
			}
		}
	})

	t.Run("a changed threshold updates that test only", func(t *testing.T) {
		file := applyFile(t, echo, "p(99) < 300ms", false)
		r := runCLI(t, e.URL, e.AdminToken, "tests", "apply", "-f", file, "--dry-run")
		wantLines(t, r.stdout, `^unchanged  apply-a  `, `^would update  apply-b  `)
		if got := e.storedTests(t)["apply-b"]; got.Thresholds[0] != "p(99) < 250ms" {
			t.Errorf("--dry-run changed apply-b: %v", got.Thresholds)
		}
		r = runCLI(t, e.URL, e.AdminToken, "tests", "apply", "-f", file)
		if r.code != 0 {
			t.Fatalf("exit %d, want 0", r.code)
		}
		wantLines(t, r.stdout, `^unchanged  apply-a  `, `^updated  apply-b  `)
		if got := e.storedTests(t)["apply-b"]; got.Thresholds[0] != "p(99) < 300ms" {
			t.Errorf("apply-b thresholds %v, want the new one", got.Thresholds)
		}
	})

	t.Run("a bad threshold stops the apply", func(t *testing.T) {
		r := runCLI(t, e.URL, e.AdminToken, "tests", "apply", "-f", applyFile(t, echo, "p(99) < 25xs", true))
		if r.code != 2 || !strings.Contains(r.stderr, "test 2 (apply-b, line 11)") || !strings.Contains(r.stderr, "thresholds[0]: at 11:") ||
			!strings.Contains(r.stderr, "the 1 test(s) after it were not applied") {
			t.Errorf("exit %d, want 2 naming test 2, the threshold's position and what was not applied", r.code)
		}
		wantLines(t, r.stdout, `^unchanged  apply-a  `)
		got := e.storedTests(t)
		if _, ok := got["apply-c"]; ok {
			t.Error("apply-c, after the refused test, was created")
		}
		if got["apply-b"].Thresholds[0] != "p(99) < 300ms" {
			t.Errorf("apply-b thresholds %v, want them untouched", got["apply-b"].Thresholds)
		}
	})

	t.Run("an unknown key", func(t *testing.T) {
		name := filepath.Join(t.TempDir(), "bad.yaml")
		_ = os.WriteFile(name, []byte("name: x\nspec: {url: \"http://t/\"}\nlabel: {a: b}\n"), 0o644)
		r := runCLI(t, e.URL, e.AdminToken, "tests", "apply", "-f", name)
		if r.code != 2 || !strings.Contains(r.stderr, `line 3: unknown key "label"`) {
			t.Errorf("exit %d, want 2 naming the key and its line", r.code)
		}
	})

	t.Run("tests list", func(t *testing.T) {
		r := runCLI(t, e.URL, e.AdminToken, "tests", "list", "-project", "default")
		if r.code != 0 || !regexp.MustCompile(`(?m)^apply-a .* team=web +1 `).MatchString(r.stdout) ||
			!regexp.MustCompile(`(?m)^apply-b .*\?delay=1ms +- +2 `).MatchString(r.stdout) {
			t.Errorf("exit %d, want 0 listing both tests", r.code)
		}
	})

	t.Run("runs compare", func(t *testing.T) {
		dir := t.TempDir()
		var ids []string
		for i, qps := range []string{"50", "100"} {
			out := filepath.Join(dir, fmt.Sprintf("run%d.json", i))
			r := runCLI(t, e.URL, e.AdminToken, "run", "--url", echo, "--project", "default", "--qps", qps, "-c", "2", "-t", "1s",
				"--name", "cmp-"+qps, "--json", out)
			if r.code != 0 {
				t.Fatalf("run exit %d, want 0", r.code)
			}
			var got struct {
				Run client.Run `json:"run"`
			}
			raw, _ := os.ReadFile(out)
			if err := json.Unmarshal(raw, &got); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, got.Run.Id.String())
		}
		r := runCLI(t, e.URL, e.AdminToken, append([]string{"runs", "compare"}, ids...)...)
		if r.code != 0 {
			t.Fatalf("exit %d, want 0", r.code)
		}
		cmp := decode[client.RunComparison](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/runs/compare?ids="+strings.Join(ids, ","), e.AdminToken, nil))
		if len(cmp.Items) != 2 || cmp.Items[0].Count == nil || cmp.Items[1].Count == nil {
			t.Fatalf("API comparison %+v, want two runs with counts", cmp)
		}
		want := fmt.Sprintf(`(?m)^ *count +%d +%d \([+-][0-9.]+%%\)`, *cmp.Items[0].Count, *cmp.Items[1].Count)
		if !regexp.MustCompile(want).MatchString(r.stdout) || !strings.Contains(r.stdout, "cmp-50") || !strings.Contains(r.stdout, "cmp-100") ||
			!strings.Contains(r.stdout, ids[1]) {
			t.Errorf("compare output lacks both runs or a count row matching %s", want)
		}
		// Runs at different rates: the API's note, not an interval.
		if note := cmp.Items[1].Change; note == nil || note.Note == nil ||
			!strings.Contains(r.stdout, "changes against cmp-50 (95 % intervals):\n  cmp-100: no interval: "+*note.Note+"\n") {
			t.Errorf("compare output lacks the API's note on the change (%+v):\n%s", note, r.stdout)
		}
		if r := runCLI(t, e.URL, e.AdminToken, "runs", "compare", ids[0]); r.code != 2 {
			t.Errorf("one id: exit %d, want 2", r.code)
		}
	})
}
