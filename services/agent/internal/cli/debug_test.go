package cli

import (
	"context"
	"io"
	"strings"
	"testing"
)

func TestServeDebugAddrSetting(t *testing.T) {
	t.Parallel()
	set, err := parseServe(nil, []string{"BARRAGE_AGENT_DEBUG_ADDR=127.0.0.1:6061"}, io.Discard)
	if err != nil || set.debugAddr != "127.0.0.1:6061" {
		t.Fatalf("environment: %q, %v", set.debugAddr, err)
	}
	set, err = parseServe([]string{"-debug-addr", "127.0.0.1:6062"}, []string{"BARRAGE_AGENT_DEBUG_ADDR=127.0.0.1:6061"}, io.Discard)
	if err != nil || set.debugAddr != "127.0.0.1:6062" {
		t.Fatalf("flag: %q, %v", set.debugAddr, err)
	}
	if set, _ = parseServe(nil, nil, io.Discard); set.debugAddr != "" {
		t.Fatalf("default %q, want off", set.debugAddr)
	}
}

// TestServeBadDebugAddrExits2: a -debug-addr that cannot listen is a
// usage error.
func TestServeBadDebugAddrExits2(t *testing.T) {
	t.Parallel()
	var stderr strings.Builder
	code := Main(context.Background(), []string{"barrage-agent", "serve", "-name", "a", "-debug-addr", "127.0.0.1:-1"},
		[]string{"NATS_URL=nats://127.0.0.1:1"}, io.Discard, &stderr)
	if code != ExitUsage || !strings.Contains(stderr.String(), "-debug-addr") {
		t.Fatalf("exit %d, stderr %q; want 2 naming -debug-addr", code, stderr.String())
	}
}
