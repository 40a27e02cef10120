package app

import (
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestDebugAddrServesPprof: BARRAGE_DEBUG_ADDR serves net/http/pprof on
// its own listener (make soak reads the goroutine count there).
func TestDebugAddrServesPprof(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	e := startAPI(t, "BARRAGE_DEBUG_ADDR="+addr)
	var resp *http.Response
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		// Run starts the debug listener; startAPI returns once the API's own listens.
		if resp, err = http.Get("http://" + addr + "/debug/pprof/goroutine?debug=1"); err == nil || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(string(body), "goroutine profile: total ") {
		t.Fatalf("%d %.100s", resp.StatusCode, body)
	}
	// Not on the API's own address (where a built dashboard answers any
	// extension-less path with its index.html).
	resp, err = http.Get(e.URL + "/debug/pprof/goroutine?debug=1")
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if strings.HasPrefix(string(body), "goroutine profile: ") {
		t.Fatal("the API's address serves pprof")
	}
}

func TestDebugAddrFlag(t *testing.T) {
	t.Parallel()
	cfg, err := ParseConfig([]string{"-debug-addr", "127.0.0.1:6062"}, []string{"BARRAGE_DEBUG_ADDR=127.0.0.1:6061", "DATABASE_URL=postgres://x/y"}, io.Discard)
	if err != nil || cfg.DebugAddr != "127.0.0.1:6062" {
		t.Fatalf("flag over environment: %q, %v", cfg.DebugAddr, err)
	}
	cfg, err = ParseConfig(nil, []string{"DATABASE_URL=postgres://x/y"}, io.Discard)
	if err != nil || cfg.DebugAddr != "" {
		t.Fatalf("default: %q, %v; want off", cfg.DebugAddr, err)
	}
}
