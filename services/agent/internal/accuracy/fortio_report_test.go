//go:build accuracy

package accuracy_test

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/pkg/fortiotool"
	"github.com/barrage-dev/barrage/services/agent/internal/cli"
)

// fortioBin finds the fortio binary or fails the test saying how to get it.
func fortioBin(t *testing.T) string {
	t.Helper()
	p, err := fortiotool.Find()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestFortioReportListsOurResult writes a Fortio-format result with the CLI and
// serves its directory with `fortio report`: fortio must list the file in its
// index.tsv and browse page and serve it back byte for byte.
func TestFortioReportListsOurResult(t *testing.T) {
	a := startEcho(t)
	dir := t.TempDir()
	code := cli.Main(context.Background(), []string{"barrage-agent", "load", "-quiet", "-qps", "100", "-c", "2", "-n", "50",
		"-labels", "accuracy run", "-format", "fortio", "-o", filepath.Join(dir, "out.json"), httpURL(a, "")}, nil, io.Discard, io.Discard)
	if code != cli.ExitOK {
		t.Fatalf("barrage-agent load exit %d", code)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "out.json"))
	if err != nil {
		t.Fatal(err)
	}
	id := regexp.MustCompile(`"ID": "([^"]+)"`).FindSubmatch(raw)
	if id == nil {
		t.Fatalf("no ID in %s", raw)
	}
	name := string(id[1]) + ".json"
	if err := os.Rename(filepath.Join(dir, "out.json"), filepath.Join(dir, name)); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, fortioBin(t), "report", "-http-port", "127.0.0.1:0", "-data-dir", dir)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	base := reportURL(t, stdout)

	// fortio prints its URL before it registers the data handler: poll for it.
	index := getEventually(t, base+"data/index.tsv")
	if !strings.HasPrefix(index, "TsvHttpData-1.0\n") || !strings.Contains(index, name) {
		t.Fatalf("fortio index.tsv does not list %s:\n%s", name, index)
	}
	if browse := get(t, base+"browse"); !strings.Contains(browse, string(id[1])) {
		t.Fatalf("fortio browse page does not list %s", id[1])
	}
	if served := get(t, base+"data/"+name); served != string(raw) {
		t.Fatalf("fortio served %d bytes, want our %d", len(served), len(raw))
	}
}

// reportURL reads fortio report's "visit: http://host:port/" line.
func reportURL(t *testing.T, stdout io.Reader) string {
	t.Helper()
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if line := strings.TrimSpace(sc.Text()); strings.HasPrefix(line, "http://") {
				found <- line
				_, _ = io.Copy(io.Discard, stdout)
				return
			}
		}
	}()
	select {
	case u := <-found:
		return strings.TrimSuffix(u, "/") + "/"
	case <-time.After(30 * time.Second):
		t.Fatal("fortio report did not print its URL")
		return ""
	}
}

func getEventually(t *testing.T, url string) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := http.Get(url)
		if err == nil {
			b, rerr := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			if rerr == nil && resp.StatusCode == 200 {
				return string(b)
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET %s did not answer 200 within 10s", url)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %v", url, resp.StatusCode, err)
	}
	return string(b)
}
