package cli

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// lockedBuilder is a strings.Builder safe for a writer and a reader at once.
type lockedBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuilder) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuilder) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// checkServedMetrics reads the /metrics of the serve whose logs are logs:
// an idle agent of capacity 2 runs no shard, and promtool (Debian's
// prometheus package, which .ci/run installs) finds nothing to lint.
func checkServedMetrics(t *testing.T, logs string) {
	t.Helper()
	addr := regexp.MustCompile(`"msg":"metrics listener","addr":"([^"]+)"`).FindStringSubmatch(logs)
	if addr == nil {
		t.Fatalf("no metrics listener logged:\n%s", logs)
	}
	resp, err := http.Get("http://" + addr[1] + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	page, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: %d %v", resp.StatusCode, err)
	}
	for _, want := range []string{"\nbarrage_agent_shards_running 0\n", "\nbarrage_agent_gomaxprocs ", "\nbarrage_agent_nats_reconnects_total 0\n", "\nprocess_cpu_seconds_total "} {
		if !strings.Contains(string(page), want) {
			t.Errorf("/metrics lacks %q:\n%s", want, page)
		}
	}
	bin, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("promtool is not installed (apt-get install prometheus): %v", err)
		}
		t.Logf("promtool is not installed: the page is not linted")
		return
	}
	cmd := exec.Command(bin, "check", "metrics")
	cmd.Stdin = bytes.NewReader(page)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil || out.Len() > 0 {
		t.Errorf("promtool check metrics: %v\n%s", err, out.String())
	}
}
