package app

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"
)

// TestMainJSONLogsAndHealthcheck runs barrage-echo through Main with
// BARRAGE_LOG_FORMAT=json, reads the HTTP address from its first JSON log
// lines and probes it with `barrage-echo healthcheck`.
func TestMainJSONLogsAndHealthcheck(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	environ := []string{
		"BARRAGE_LOG_FORMAT=json", "BARRAGE_ECHO_HTTP_ADDR=127.0.0.1:0", "BARRAGE_ECHO_GRPC_ADDR=127.0.0.1:0",
		"BARRAGE_ECHO_TCP_ADDR=127.0.0.1:0", "BARRAGE_ECHO_UDP_ADDR=127.0.0.1:0",
	}
	go func() {
		done <- Main(ctx, []string{"barrage-echo"}, environ, pw)
		_ = pw.Close()
	}()
	httpAddr := ""
	lines := bufio.NewScanner(pr)
	for httpAddr == "" && lines.Scan() {
		var rec map[string]any
		if err := json.Unmarshal(lines.Bytes(), &rec); err != nil {
			t.Fatalf("log line %q is not JSON: %v", lines.Text(), err)
		}
		if rec["msg"] == "listening" && rec["protocol"] == "http" {
			httpAddr, _ = rec["addr"].(string)
		}
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	if httpAddr == "" {
		t.Fatal("no JSON 'listening' line for http")
	}

	probe := func(env ...string) (int, string) {
		var out strings.Builder
		code := Main(context.Background(), []string{"barrage-echo", "healthcheck"}, env, &out)
		return code, out.String()
	}
	if code, out := probe("BARRAGE_ECHO_HTTP_ADDR=" + httpAddr); code != 0 {
		t.Errorf("healthcheck of a running server = %d (%s), want 0", code, out)
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("Main exit code after cancel = %d, want 0", code)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("Main did not return after cancel")
	}
	if code, _ := probe("BARRAGE_ECHO_HTTP_ADDR=" + httpAddr); code != 1 {
		t.Errorf("healthcheck of a stopped server = %d, want 1", code)
	}
}

func TestMainBadLogFormat(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	code := Main(context.Background(), []string{"barrage-echo"}, []string{"BARRAGE_LOG_FORMAT=xml"}, &out)
	if code != 2 || !strings.Contains(out.String(), "BARRAGE_LOG_FORMAT") {
		t.Errorf("exit %d, stderr %q; want 2 naming BARRAGE_LOG_FORMAT", code, out.String())
	}
}
