//go:build accuracy

package accuracy_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// echoAddrs are the addresses a barrage-echo process bound.
type echoAddrs struct{ http, grpc, tcp, udp, h3, redirect string }

// buildOnce builds the barrage-echo binary once for the whole test binary.
var buildOnce = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "barrage-accuracy")
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

// startEcho runs the real barrage-echo on free loopback ports until the test ends.
func startEcho(t *testing.T, extra ...string) echoAddrs {
	t.Helper()
	bin, err := buildOnce()
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

// readAddrs reads the "listening" log lines until all four addresses are known.
// With redirect it also waits for the redirector's.
func readAddrs(t *testing.T, r io.Reader, redirect bool) echoAddrs {
	t.Helper()
	found := make(chan echoAddrs, 1)
	go func() {
		var a echoAddrs
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			var line struct{ Msg, Protocol, Addr string }
			if json.Unmarshal(sc.Bytes(), &line) != nil || line.Msg != "listening" {
				continue
			}
			switch line.Protocol {
			case "http":
				a.http = line.Addr
			case "grpc":
				a.grpc = line.Addr
			case "tcp":
				a.tcp = line.Addr
			case "udp":
				a.udp = line.Addr
			case "h3": // logged before the others when -h3-addr is given
				a.h3 = line.Addr
			case "https-redirect": // with -redirect-addr
				a.redirect = line.Addr
			}
			if a.http != "" && a.grpc != "" && a.tcp != "" && a.udp != "" && (!redirect || a.redirect != "") {
				found <- a
				_, _ = io.Copy(io.Discard, r) // keep draining the log
				return
			}
		}
	}()
	select {
	case a := <-found:
		return a
	case <-time.After(30 * time.Second):
		t.Fatal("barrage-echo did not log its addresses within 30s")
		return echoAddrs{}
	}
}

// runCtx bounds every load of these tests.
func runCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func httpURL(a echoAddrs, query string) string {
	if query == "" {
		return "http://" + a.http + "/"
	}
	return "http://" + a.http + "/?" + strings.TrimPrefix(query, "?")
}
