package deploycheck

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/barrage-dev/barrage/pkg/wire"
)

// The passwords the tests give deploy/nats/nats-insecure-shared-agent.conf through its environment.
const (
	apiPassword   = "api-secret"
	agentPassword = "agent-secret"
)

// lockedBuffer collects a process's output for the test to read.
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

// natsServer is a real nats-server running deploy/nats/nats-insecure-shared-agent.conf.
type natsServer struct {
	addr string        // host:port of clients
	log  *lockedBuffer // the server's log
}

func (s *natsServer) url(user, password string) string {
	return fmt.Sprintf("nats://%s:%s@%s", user, password, s.addr)
}

// natsServerBin finds the nats-server binary: NATS_SERVER_BIN, the PATH or
// Debian's /usr/sbin/nats-server.
func natsServerBin(tb testing.TB) string {
	tb.Helper()
	if bin := os.Getenv("NATS_SERVER_BIN"); bin != "" {
		return bin
	}
	if bin, err := exec.LookPath("nats-server"); err == nil {
		return bin
	}
	if _, err := os.Stat("/usr/sbin/nats-server"); err == nil {
		return "/usr/sbin/nats-server"
	}
	tb.Fatal("these tests run deploy/nats/nats-insecure-shared-agent.conf in a real nats-server: install it " +
		"(apt-get install nats-server) or set NATS_SERVER_BIN")
	return ""
}

func freePort(tb testing.TB) int {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// startNATS runs nats-server with deploy/nats/nats-insecure-shared-agent.conf (its store_dir moved
// to a temporary directory, its ports to free ones) until the test ends.
func startNATS(tb testing.TB) *natsServer {
	tb.Helper()
	dir := tb.TempDir()
	s := runNATS(tb, "deploy/nats/nats-insecure-shared-agent.conf", dir,
		[]string{"NATS_API_PASSWORD=" + apiPassword, "NATS_AGENT_PASSWORD=" + agentPassword})
	waitFor(tb, 10*time.Second, func() error {
		nc, err := nats.Connect(s.url("api", apiPassword))
		if err != nil {
			return fmt.Errorf("%w; server log:\n%s", err, s.log.String())
		}
		nc.Close()
		return nil
	})
	return s
}

// runNATS writes the configuration file conf of the repository into dir
// (store_dir moved into dir) and runs nats-server with it, on free ports
// and with env added to the environment, until the test ends. It does not
// wait for the server to take clients.
func runNATS(tb testing.TB, conf, dir string, env []string) *natsServer {
	tb.Helper()
	return runNATSText(tb, conf, mustRead(tb, conf), dir, env)
}

// runNATSText is runNATS with the configuration's text given (conf names
// its file in messages).
func runNATSText(tb testing.TB, conf, text, dir string, env []string) *natsServer {
	tb.Helper()
	if !strings.Contains(text, "store_dir: /data") {
		tb.Fatalf("%s: no `store_dir: /data` (the compose volume)", conf)
	}
	text = strings.Replace(text, "store_dir: /data", "store_dir: "+strconv.Quote(filepath.Join(dir, "js")), 1)
	path := filepath.Join(dir, "nats.conf")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		tb.Fatal(err)
	}
	port := freePort(tb)
	s := &natsServer{addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), log: &lockedBuffer{}}
	cmd := exec.Command(natsServerBin(tb), "-c", path, "-a", "127.0.0.1", "-p", strconv.Itoa(port),
		"-m", strconv.Itoa(freePort(tb)))
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = s.log, s.log
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	})
	return s
}

// waitFor polls fn until it returns nil or the deadline passes.
func waitFor(tb testing.TB, within time.Duration, fn func() error) {
	tb.Helper()
	end := time.Now().Add(within)
	for {
		err := fn()
		if err == nil {
			return
		}
		if time.Now().After(end) {
			tb.Fatalf("after %s: %v", within, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// agentConn connects as the agent user; permission errors arrive on errs.
func agentConn(t *testing.T, s *natsServer) (nc *nats.Conn, errs chan error) {
	t.Helper()
	errs = make(chan error, 32)
	nc, err := nats.Connect(s.url("agent", agentPassword), nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
		select {
		case errs <- err:
		default:
		}
	}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc, errs
}

// wantViolation waits for the server's permission error naming subject.
func wantViolation(t *testing.T, errs chan error, what, subject string) {
	t.Helper()
	timeout := time.After(3 * time.Second)
	for {
		select {
		case err := <-errs:
			if errors.Is(err, nats.ErrPermissionViolation) && strings.Contains(err.Error(), `"`+subject+`"`) {
				return
			}
		case <-timeout:
			t.Errorf("agent %s %s: no permissions violation", what, subject)
			return
		}
	}
}

func TestNATSUsers(t *testing.T) {
	t.Parallel()
	s := startNATS(t)
	if _, err := nats.Connect(s.url("agent", "wrong")); err == nil {
		t.Error("agent connected with a wrong password")
	}
	if _, err := nats.Connect("nats://" + s.addr); err == nil {
		t.Error("connected without credentials")
	}
	api, err := nats.Connect(s.url("api", apiPassword))
	if err != nil {
		t.Fatal(err)
	}
	defer api.Close()
	js, err := jetstream.New(api)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := wire.Setup(ctx, js); err != nil {
		t.Fatalf("api user: wire.Setup: %v", err)
	}
	if _, err := js.CreateOrUpdateConsumer(ctx, wire.SnapStream, jetstream.ConsumerConfig{
		Durable: wire.IngestConsumer, AckPolicy: jetstream.AckExplicitPolicy,
	}); err != nil {
		t.Fatal(err)
	}

	agent, errs := agentConn(t, s)
	// What an agent must not do: forge assignments, control or run states,
	// read other agents' snapshots, or destroy the streams.
	for _, subject := range []string{
		wire.AssignSubject("another-agent"),
		wire.ControlSubject("some-run"),
		wire.NotifySubject,
		"$KV." + wire.RunsBucket + ".some-run",
		"$JS.API.STREAM.DELETE." + wire.SnapStream,
		"$JS.API.STREAM.PURGE." + wire.AssignStream,
		"$JS.API.STREAM.MSG.DELETE." + wire.SnapStream,
		"$JS.API.CONSUMER.DELETE." + wire.SnapStream + "." + wire.IngestConsumer,
	} {
		if err := agent.Publish(subject, []byte("x")); err != nil {
			t.Fatal(err)
		}
		_ = agent.Flush()
		wantViolation(t, errs, "publish to", subject)
	}
	for _, subject := range []string{
		wire.SnapSubjects, wire.AssignSubjects, wire.NotifySubject,
		"$KV." + wire.AgentsBucket + ".>", "$KV." + wire.RunsBucket + ".>", ">",
	} {
		if _, err := agent.Subscribe(subject, func(*nats.Msg) {}); err != nil {
			t.Fatal(err)
		}
		_ = agent.Flush()
		wantViolation(t, errs, "subscribe to", subject)
	}
	if _, err := js.Stream(ctx, wire.SnapStream); err != nil {
		t.Errorf("snapshot stream after the agent's attempts: %v", err)
	}
	if _, err := js.Consumer(ctx, wire.SnapStream, wire.IngestConsumer); err != nil {
		t.Errorf("ingest consumer after the agent's attempts: %v", err)
	}
}
