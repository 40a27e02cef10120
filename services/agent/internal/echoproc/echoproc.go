// Package echoproc runs the real barrage-echo binary as a separate process
// for the agent's tests: built once per test binary from this workspace,
// started on free loopback ports, stopped when the test ends.
//
// It is test support only; nothing in the agent's binaries imports it.
package echoproc

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/pkg/gobuild"
)

// Addrs are the addresses a barrage-echo process bound.
type Addrs struct{ HTTP, GRPC, TCP, UDP, H3, Redirect string }

// build builds the barrage-echo binary once for the whole test binary.
var build = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "barrage-echoproc")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "barrage-echo")
	if err := gobuild.Build(bin, "github.com/barrage-dev/barrage/services/echo/cmd/barrage-echo"); err != nil {
		return "", err
	}
	return bin, nil
})

// Start runs barrage-echo with its HTTP, gRPC, TCP and UDP servers on free
// loopback ports, and extra flags, until the test ends, and returns the
// addresses it logged (with -redirect-addr in extra, the redirector's too).
func Start(t testing.TB, extra ...string) Addrs {
	t.Helper()
	bin, err := build()
	if err != nil {
		t.Fatalf("build barrage-echo: %v", err)
	}
	args := append([]string{"-http-addr", "127.0.0.1:0", "-grpc-addr", "127.0.0.1:0",
		"-tcp-addr", "127.0.0.1:0", "-udp-addr", "127.0.0.1:0"}, extra...)
	cmd := exec.Command(bin, args...)
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
	return readAddrs(t, stderr, slices.Contains(extra, "-redirect-addr"))
}

// readAddrs reads the "listening" log lines until all four addresses are
// known (with redirect, the redirector's too), then keeps draining the log.
func readAddrs(t testing.TB, r io.Reader, redirect bool) Addrs {
	t.Helper()
	found := make(chan Addrs, 1)
	go func() {
		var a Addrs
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			var line struct{ Msg, Protocol, Addr string }
			if json.Unmarshal(sc.Bytes(), &line) != nil || line.Msg != "listening" {
				continue
			}
			switch line.Protocol {
			case "http":
				a.HTTP = line.Addr
			case "grpc":
				a.GRPC = line.Addr
			case "tcp":
				a.TCP = line.Addr
			case "udp":
				a.UDP = line.Addr
			case "h3": // logged before the others when -h3-addr is given
				a.H3 = line.Addr
			case "https-redirect": // with -redirect-addr
				a.Redirect = line.Addr
			}
			if a.HTTP != "" && a.GRPC != "" && a.TCP != "" && a.UDP != "" && (!redirect || a.Redirect != "") {
				found <- a
				_, _ = io.Copy(io.Discard, r)
				return
			}
		}
	}()
	select {
	case a := <-found:
		return a
	case <-time.After(30 * time.Second):
		t.Fatal("barrage-echo did not log its addresses within 30s")
		return Addrs{}
	}
}
