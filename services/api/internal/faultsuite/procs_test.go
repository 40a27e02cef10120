//go:build faults || soak

package faultsuite

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/pkg/gobuild"
)

// bins holds the binaries TestMain builds. nats is nats-server at the
// version this module embeds (go.mod), the one `make run` and the tests
// run: Debian's 2.9.10 now and then leaves a short pull request's expiry
// unanswered, and nats.go then waits a second more for it, which ingest
// saw as one-second stalls.
var bins struct{ api, agent, echo, nats string }

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "barrage-faults-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bins.api, bins.agent, bins.echo = filepath.Join(dir, "barrage-api"), filepath.Join(dir, "barrage-agent"), filepath.Join(dir, "barrage-echo")
	bins.nats = filepath.Join(dir, "nats-server")
	for out, pkg := range map[string]string{
		bins.api:   "github.com/barrage-dev/barrage/services/api/cmd/barrage-api",
		bins.agent: "github.com/barrage-dev/barrage/services/agent/cmd/barrage-agent",
		bins.echo:  "github.com/barrage-dev/barrage/services/echo/cmd/barrage-echo",
		bins.nats:  "github.com/nats-io/nats-server/v2",
	} {
		if err := gobuild.Build(out, pkg); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// logBuffer collects a process's output; safe for concurrent use.
type logBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// proc is one OS process of the suite; it can be killed and started again
// with the same command, and its output of every start is kept.
type proc struct {
	name string
	bin  string
	args []string
	env  []string
	log  *logBuffer

	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan struct{}
}

func newProc(t *testing.T, name, bin string, args, env []string) *proc {
	t.Helper()
	p := &proc{name: name, bin: bin, args: args, env: env, log: &logBuffer{}}
	t.Cleanup(func() {
		p.kill()
		if t.Failed() {
			t.Logf("%s output:\n%s", p.name, tail(p.log.String(), 6000))
		}
	})
	return p
}

// start starts the process (again).
func (p *proc) start(t *testing.T) {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	cmd := exec.Command(p.bin, p.args...)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.TempDir()}, p.env...)
	cmd.Stdout, cmd.Stderr = p.log, p.log
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", p.name, err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	p.cmd, p.exited = cmd, exited
}

// signal sends sig and, unless it is nil, waits up to within for the exit.
func (p *proc) signal(t *testing.T, sig syscall.Signal, within time.Duration) {
	t.Helper()
	p.mu.Lock()
	cmd, exited := p.cmd, p.exited
	p.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Signal(sig)
	select {
	case <-exited:
	case <-time.After(within):
		t.Fatalf("%s did not exit within %s of %v", p.name, within, sig)
	}
}

// exitCode is the last run's exit code, -1 while running or after a signal.
func (p *proc) exitCode() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.exited:
		return p.cmd.ProcessState.ExitCode()
	default:
		return -1
	}
}

// pid is the running process's id, 0 when it never started.
func (p *proc) pid() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil {
		return 0
	}
	return p.cmd.Process.Pid
}

// kill kills the process if it runs and waits for it.
func (p *proc) kill() {
	p.mu.Lock()
	cmd, exited := p.cmd, p.exited
	p.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Kill()
	<-exited
}

// jsonLines returns the process's JSON log records whose msg is msg.
func (p *proc) jsonLines(msg string) []map[string]any {
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(p.log.String()))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		var rec map[string]any
		if json.Unmarshal(sc.Bytes(), &rec) == nil && rec["msg"] == msg {
			out = append(out, rec)
		}
	}
	return out
}

// handedOut holds every port freePort has returned in this process.
var handedOut = struct {
	sync.Mutex
	ports map[int]bool
}{ports: map[int]bool{}}

// freePort returns a loopback port free now and never returned before in
// this process. The kernel may hand a port it just gave out and saw closed
// out again; two ports picked before either is bound (a NATS node's client
// and route ports) would then be the same, and the node fails to start.
func freePort(t *testing.T) int {
	t.Helper()
	for range 100 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := ln.Addr().(*net.TCPAddr).Port
		_ = ln.Close()
		handedOut.Lock()
		fresh := !handedOut.ports[port]
		handedOut.ports[port] = true
		handedOut.Unlock()
		if fresh {
			return port
		}
	}
	t.Fatal("freePort: no port not handed out before in 100 tries")
	return 0
}

// waitFor polls fn every 100 ms until it returns nil or within passes.
func waitFor(t *testing.T, within time.Duration, what string, fn func() error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	for {
		err := fn()
		if err == nil {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s: not within %s: %v", what, within, err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}
