package pprofserve

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestStartServesGoroutineCount reads the goroutine count make soak
// samples, from the address Start logged.
func TestStartServesGoroutineCount(t *testing.T) {
	t.Parallel()
	logs := &strings.Builder{}
	stop, err := Start(context.Background(), "127.0.0.1:0", slog.New(slog.NewJSONHandler(logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	addr := regexp.MustCompile(`"addr":"([^"]+)"`).FindStringSubmatch(logs.String())
	if addr == nil {
		t.Fatalf("no address logged: %s", logs)
	}
	resp, err := http.Get("http://" + addr[1] + "/debug/pprof/goroutine?debug=1")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	m := regexp.MustCompile(`^goroutine profile: total (\d+)`).FindSubmatch(body)
	if resp.StatusCode != http.StatusOK || m == nil {
		t.Fatalf("%d %.200s", resp.StatusCode, body)
	}
	if n, _ := strconv.Atoi(string(m[1])); n < 2 {
		t.Fatalf("%d goroutines, want at least the test's and the server's", n)
	}
	stop()
	if resp, err := http.Get("http://" + addr[1] + "/debug/pprof/"); err == nil {
		_ = resp.Body.Close()
		t.Fatal("the listener still answers after stop")
	}
}

func TestStartRefusesBadAddress(t *testing.T) {
	t.Parallel()
	if _, err := Start(context.Background(), "127.0.0.1:-1", slog.New(slog.DiscardHandler)); err == nil || !strings.Contains(err.Error(), "debug listener") {
		t.Fatalf("bad address: %v", err)
	}
}

func TestCheckLoopback(t *testing.T) {
	t.Parallel()
	tests := []struct {
		addr string
		ok   bool
	}{
		{"127.0.0.1:6060", true},
		{"127.0.0.2:0", true},
		{"[::1]:6060", true},
		{"localhost:6060", true},
		{":6060", false},
		{"0.0.0.0:6060", false},
		{"[::]:6060", false},
		{"10.0.0.5:6060", false},
		{"example.com:6060", false},
		{"127.0.0.1", false},
	}
	for _, tt := range tests {
		if err := CheckLoopback(tt.addr); (err == nil) != tt.ok {
			t.Errorf("CheckLoopback(%q) = %v, want ok %v", tt.addr, err, tt.ok)
		}
	}
}
