package scenario_test

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// buildEcho builds barrage-echo once for the test binary.
var buildEcho = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "barrage-scenario")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "barrage-echo")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/barrage-dev/barrage/services/echo/cmd/barrage-echo").CombinedOutput()
	if err != nil {
		return "", &buildError{out: string(out), err: err}
	}
	return bin, nil
})

type buildError struct {
	out string
	err error
}

func (e *buildError) Error() string { return e.err.Error() + ": " + e.out }

// startEcho runs the real barrage-echo on free loopback ports until the
// test ends and returns its HTTP address.
func startEcho(t *testing.T) string {
	t.Helper()
	bin, err := buildEcho()
	if err != nil {
		t.Fatalf("build barrage-echo: %v", err)
	}
	cmd := exec.Command(bin, "-http-addr", "127.0.0.1:0", "-grpc-addr", "127.0.0.1:0",
		"-tcp-addr", "127.0.0.1:0", "-udp-addr", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	})
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			var line struct{ Msg, Protocol, Addr string }
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "listening" && line.Protocol == "http" {
				found <- line.Addr
				break
			}
		}
		_, _ = io.Copy(io.Discard, stderr) // keep draining the log
	}()
	select {
	case addr := <-found:
		return addr
	case <-time.After(30 * time.Second):
		t.Fatal("barrage-echo did not log its HTTP address within 30s")
		return ""
	}
}
