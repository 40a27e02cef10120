package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/pkg/natsembed"
)

// lockedBuffer is a strings.Builder safe for the worker's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestHealthcheckSeesServeHeartbeat runs `serve` with JSON logs, then
// `healthcheck` for its name (healthy), another name and, after the
// worker stopped, its name again (both unhealthy).
func TestHealthcheckSeesServeHeartbeat(t *testing.T) {
	t.Parallel()
	srv := natsembed.StartT(t)
	env := []string{"NATS_URL=" + srv.URL(), "BARRAGE_LOG_FORMAT=json"}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stderr lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, []string{"barrage-agent", "serve", "-name", "hc-agent"}, env, io.Discard, &stderr)
	}()
	check := func(name string) (int, string) {
		var out strings.Builder
		code := Main(context.Background(), []string{"barrage-agent", "healthcheck"},
			append(env, "BARRAGE_AGENT_NAME="+name), io.Discard, &out)
		return code, out.String()
	}
	end := time.Now().Add(10 * time.Second)
	for code, out := check("hc-agent"); code != ExitOK; code, out = check("hc-agent") {
		if time.Now().After(end) {
			t.Fatalf("healthcheck of a serving agent: exit %d: %s", code, out)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if code, out := check("someone-else"); code != ExitFailure || !strings.Contains(out, "someone-else") {
		t.Errorf("healthcheck of an unknown agent: exit %d %q, want 1 naming it", code, out)
	}
	cancel()
	select {
	case code := <-done:
		if code != ExitOK {
			t.Fatalf("serve exit %d: %s", code, stderr.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not stop after cancel")
	}
	if code, _ := check("hc-agent"); code != ExitFailure {
		t.Errorf("healthcheck after the agent stopped: exit %d, want 1", code)
	}
	lines := bufio.NewScanner(strings.NewReader(stderr.String()))
	n := 0
	for ; lines.Scan(); n++ {
		var rec map[string]any
		if err := json.Unmarshal(lines.Bytes(), &rec); err != nil || rec["msg"] == nil || rec["level"] == nil {
			t.Errorf("log line %q is not a JSON record (%v)", lines.Text(), err)
		}
	}
	if n == 0 {
		t.Error("serve logged nothing")
	}
}

func TestServeTextLogs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		format   string
		wantCode int
		want     string
	}{
		{format: "text", wantCode: ExitOK, want: "msg="},
		{format: "yaml", wantCode: ExitUsage, want: "BARRAGE_LOG_FORMAT"},
	}
	for _, tt := range tests {
		t.Run(tt.format, func(t *testing.T) {
			t.Parallel()
			srv := natsembed.StartT(t)
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			var stderr lockedBuffer
			code := Main(ctx, []string{"barrage-agent", "serve", "-name", "text-agent"},
				[]string{"NATS_URL=" + srv.URL(), "BARRAGE_LOG_FORMAT=" + tt.format}, io.Discard, &stderr)
			out := stderr.String()
			if code != tt.wantCode || !strings.Contains(out, tt.want) || strings.HasPrefix(out, "{") {
				t.Errorf("exit %d, stderr %q; want %d containing %q", code, out, tt.wantCode, tt.want)
			}
		})
	}
}

func ExampleMain_healthcheckUsage() {
	var out strings.Builder
	Main(context.Background(), []string{"barrage-agent", "help"}, nil, &out, io.Discard)
	fmt.Println(strings.Contains(out.String(), "healthcheck"))
	// Output: true
}
