package app

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// ciScript is the script behind action.yml and the GitLab template.
var ciScript = filepath.Join("..", "..", "..", "..", "ci", "barrage-ci")

// releaseArchive packs the barrage CLI as a release does (.goreleaser.yaml:
// barrage_VERSION_OS_ARCH.tar.gz beside checksums.txt) into dir and
// returns the archive's file:// URL.
func releaseArchive(t *testing.T, dir string) string {
	t.Helper()
	bin, err := cliBin()
	if err != nil {
		t.Fatal(err)
	}
	exe, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, f := range []struct {
		name string
		mode int64
		data []byte
	}{{"barrage", 0o755, exe}, {"LICENSE", 0o644, []byte("Apache-2.0\n")}} {
		if err := tw.WriteHeader(&tar.Header{Name: f.name, Mode: f.mode, Size: int64(len(f.data))}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(f.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := errors.Join(tw.Close(), gz.Close()); err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("barrage_9.9.9_%s_%s.tar.gz", runtime.GOOS, runtime.GOARCH)
	sum := sha256.Sum256(buf.Bytes())
	if err := os.WriteFile(filepath.Join(dir, name), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	checksums := hex.EncodeToString(sum[:]) + "  " + name + "\n" + strings.Repeat("0", 64) + "  barrage-api_9.9.9_linux_amd64.tar.gz\n"
	if err := os.WriteFile(filepath.Join(dir, "checksums.txt"), []byte(checksums), 0o644); err != nil {
		t.Fatal(err)
	}
	return "file://" + filepath.Join(dir, name)
}

// ciJob is one run of ci/barrage-ci as a GitHub job runs it.
type ciJob struct {
	code                    int
	out, summary, ghSummary string
	ghOutput                string
	junit                   []byte
}

func runCIJob(t *testing.T, dir string, env ...string) ciJob {
	t.Helper()
	work := t.TempDir()
	ghSummary, ghOutput := filepath.Join(work, "step-summary.md"), filepath.Join(work, "output")
	script, err := filepath.Abs(ciScript)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", script)
	cmd.Dir = work
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + work, "RUNNER_TEMP=" + dir,
		"GITHUB_STEP_SUMMARY=" + ghSummary, "GITHUB_OUTPUT=" + ghOutput}, env...)
	out, err := cmd.CombinedOutput()
	var job ciJob
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		job.code = ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	job.out = string(out)
	read := func(p string) string { b, _ := os.ReadFile(p); return string(b) }
	job.summary, job.ghSummary, job.ghOutput = read(filepath.Join(work, "barrage-summary.md")), read(ghSummary), read(ghOutput)
	job.junit, _ = os.ReadFile(filepath.Join(work, "barrage-junit.xml"))
	t.Logf("barrage-ci → %d\n%s", job.code, out)
	return job
}

// TestCIRecipeScript runs ci/barrage-ci, the script of the GitHub Action and
// the GitLab template, as a job would against the all-in-one stack: it
// fetches a release archive, checks its checksum, runs the thresholds and
// keeps the JUnit report and the Markdown summary (also in the job summary
// and the step's outputs), exiting with the verdict. A tampered archive is
// refused before anything runs.
func TestCIRecipeScript(t *testing.T) { // serial: see heavyTests
	if _, err := exec.LookPath("curl"); err != nil {
		t.Fatal("ci/barrage-ci needs curl (.ci/run installs it)")
	}
	e := startAPI(t, "BARRAGE_ALL_IN_ONE=true", "BARRAGE_ECHO_HTTP_ADDR=127.0.0.1:0", "BARRAGE_ECHO_GRPC_ADDR=",
		"BARRAGE_ECHO_TCP_ADDR=", "BARRAGE_ECHO_UDP_ADDR=", "BARRAGE_DISPATCH_WAIT=20s")
	m := regexp.MustCompile(`echo target: (http://127\.0\.0\.1:\d+/)`).FindStringSubmatch(e.Out)
	if m == nil {
		t.Fatalf("start-up notice %q does not name the echo target", e.Out)
	}
	dir := t.TempDir()
	cliURL := releaseArchive(t, dir)
	env := []string{"BARRAGE_URL=" + e.URL, "BARRAGE_TOKEN=" + e.AdminToken, "BARRAGE_CLI_URL=" + cliURL,
		"BARRAGE_TARGET_URL=" + m[1], "BARRAGE_ARGS=-qps 50 -c 2 -t 1s -label via=ci-recipe"}

	pass := runCIJob(t, dir, append(env, "BARRAGE_THRESHOLDS=p(99) < 10s\n\nerror_rate < 1%\n")...)
	var rep junitReport
	if err := xml.Unmarshal(pass.junit, &rep); err != nil {
		t.Fatalf("JUnit report: %v", err)
	}
	if pass.code != 0 || len(rep.Suites) != 1 || len(rep.Suites[0].Cases) != 2 || rep.Suites[0].Failures != 0 {
		t.Fatalf("exit %d, JUnit %+v; want 0 and two passing testcases", pass.code, rep)
	}
	for _, want := range []string{"### ✅ Barrage:", "| `p(99) < 10s` | pass |", "| `error_rate < 1%` | pass |"} {
		if !strings.Contains(pass.summary, want) {
			t.Errorf("summary lacks %q:\n%s", want, pass.summary)
		}
	}
	if pass.ghSummary != pass.summary || !strings.Contains(pass.ghOutput, "exit-code=0\n") {
		t.Errorf("job summary %q and outputs %q; want the summary appended and exit-code=0", pass.ghSummary, pass.ghOutput)
	}
	if !strings.Contains(pass.out, "barrage ") || strings.Contains(pass.out, e.AdminToken) {
		t.Errorf("the job's log lacks the CLI's version line, or shows the token:\n%s", pass.out)
	}

	fail := runCIJob(t, dir, append(env, "BARRAGE_THRESHOLDS=p(99) < 1us")...)
	if fail.code != 99 || !strings.Contains(fail.summary, "**FAIL**") || !strings.Contains(fail.ghOutput, "exit-code=99\n") {
		t.Errorf("a failing threshold: exit %d, outputs %q; want 99 with FAIL in the summary", fail.code, fail.ghOutput)
	}

	archive := strings.TrimPrefix(cliURL, "file://")
	if err := os.WriteFile(archive, []byte("not the release"), 0o644); err != nil {
		t.Fatal(err)
	}
	tampered := runCIJob(t, t.TempDir(), append(env, "BARRAGE_CHECKSUMS_URL=file://"+filepath.Join(dir, "checksums.txt"))...)
	if tampered.code != 2 || !strings.Contains(tampered.out, "but checksums.txt says") || tampered.junit != nil {
		t.Errorf("a tampered archive: exit %d; want 2, refused before any run", tampered.code)
	}
	if none := runCIJob(t, dir, "BARRAGE_URL="+e.URL, "BARRAGE_TOKEN=x"); none.code != 2 || !strings.Contains(none.out, "BARRAGE_VERSION is required") {
		t.Errorf("no version and no CLI URL: exit %d; want 2 naming BARRAGE_VERSION", none.code)
	}
}
