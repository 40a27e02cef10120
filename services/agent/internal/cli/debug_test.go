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

// TestServeDebugAddrMustBeLoopback: a non-loopback -debug-addr is a usage
// error unless forced by flag or environment.
func TestServeDebugAddrMustBeLoopback(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{":6060", "0.0.0.0:6060", "10.1.2.3:6060"} {
		_, err := parseServe([]string{"-name", "a", "-debug-addr", addr}, nil, io.Discard)
		if err == nil || !strings.Contains(err.Error(), "-debug-addr-force") {
			t.Errorf("-debug-addr %s: %v, want refused naming -debug-addr-force", addr, err)
		}
		if _, err := parseServe([]string{"-name", "a", "-debug-addr", addr, "-debug-addr-force"}, nil, io.Discard); err != nil {
			t.Errorf("-debug-addr %s -debug-addr-force: %v", addr, err)
		}
		if _, err := parseServe([]string{"-name", "a", "-debug-addr", addr}, []string{"BARRAGE_AGENT_DEBUG_ADDR_INSECURE=true"}, io.Discard); err != nil {
			t.Errorf("-debug-addr %s with BARRAGE_AGENT_DEBUG_ADDR_INSECURE: %v", addr, err)
		}
	}
	var stderr strings.Builder
	code := Main(context.Background(), []string{"barrage-agent", "serve", "-name", "a", "-debug-addr", ":6060"},
		[]string{"NATS_URL=nats://127.0.0.1:1"}, io.Discard, &stderr)
	if code != ExitUsage || !strings.Contains(stderr.String(), "loopback") {
		t.Fatalf("exit %d, stderr %q; want 2 saying loopback", code, stderr.String())
	}
}
