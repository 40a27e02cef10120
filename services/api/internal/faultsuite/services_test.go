//go:build faults || soak

package faultsuite

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// pgBin is the directory of the local PostgreSQL binaries.
func pgBin(t *testing.T) string {
	t.Helper()
	if d := os.Getenv("PG_BIN"); d != "" {
		return d
	}
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(matches) == 0 {
		if p, err := exec.LookPath("initdb"); err == nil {
			return filepath.Dir(p)
		}
		t.Fatal("no initdb: install PostgreSQL's server binaries or set PG_BIN")
	}
	return filepath.Dir(matches[len(matches)-1])
}

// pgCluster is a Postgres cluster of the test's own, in a temporary
// directory, which the test may stop and start.
type pgCluster struct {
	bin, dir string
	host     string // listened on besides 127.0.0.1, and in url
	port     int
	asUser   []string // runuser prefix when the test runs as root
}

// newPG starts a cluster listening on 127.0.0.1 and host.
func newPG(t *testing.T, host string) *pgCluster {
	t.Helper()
	dir, err := os.MkdirTemp("", "barrage-faults-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	c := &pgCluster{bin: pgBin(t), dir: dir, host: host, port: freePort(t)}
	if os.Geteuid() == 0 { // initdb refuses to run as root
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Fatalf("running as root needs a postgres user for initdb: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
		c.asUser = []string{"runuser", "-u", "postgres", "--"}
	}
	c.run(t, filepath.Join(c.bin, "initdb"), "-D", filepath.Join(dir, "data"), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync")
	if host != "127.0.0.1" { // initdb's pg_hba.conf trusts loopback only
		hba, err := os.OpenFile(filepath.Join(dir, "data", "pg_hba.conf"), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		_, err = fmt.Fprintf(hba, "host all all %s0.0/16 trust\n", testNet)
		if cerr := hba.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	c.start(t)
	t.Cleanup(func() {
		_ = c.exec(filepath.Join(c.bin, "pg_ctl"), "-D", filepath.Join(c.dir, "data"), "-m", "immediate", "-w", "stop")
	})
	return c
}

func (c *pgCluster) exec(args ...string) error {
	cmd := exec.Command(append(c.asUser, args...)[0], append(c.asUser, args...)[1:]...)
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%v: %w: %s", args, err, b)
	}
	return nil
}

func (c *pgCluster) run(t *testing.T, args ...string) {
	t.Helper()
	if err := c.exec(args...); err != nil {
		t.Fatal(err)
	}
}

func (c *pgCluster) start(t *testing.T) {
	t.Helper()
	listen := "127.0.0.1"
	if c.host != listen {
		listen += "," + c.host
	}
	c.run(t, filepath.Join(c.bin, "pg_ctl"), "-D", filepath.Join(c.dir, "data"), "-l", filepath.Join(c.dir, "log"), "-w", "-o",
		fmt.Sprintf("-p %d -k %s -c listen_addresses=%s -c fsync=off -c max_connections=100", c.port, c.dir, listen), "start")
}

func (c *pgCluster) stop(t *testing.T) {
	t.Helper()
	c.run(t, filepath.Join(c.bin, "pg_ctl"), "-D", filepath.Join(c.dir, "data"), "-m", "fast", "-w", "stop")
}

func (c *pgCluster) url() string {
	return fmt.Sprintf("postgres://postgres@%s/postgres?sslmode=disable", net.JoinHostPort(c.host, strconv.Itoa(c.port)))
}

// natsServerBin is NATS_SERVER_BIN, or else the nats-server TestMain built.
func natsServerBin(t *testing.T) string {
	t.Helper()
	if b := os.Getenv("NATS_SERVER_BIN"); b != "" {
		return b
	}
	return bins.nats
}

// newNATS is a nats-server of the test's own with a JetStream file store,
// listening on host, on a fixed port so that it can be restarted where
// clients reconnect.
func newNATS(t *testing.T, host string) (*proc, string) {
	t.Helper()
	port := freePort(t)
	p := newProc(t, "nats-server", natsServerBin(t),
		[]string{"-a", host, "-p", strconv.Itoa(port), "-js", "-sd", t.TempDir()}, nil)
	p.start(t)
	addr := net.JoinHostPort(host, strconv.Itoa(port))
	url := "nats://" + addr
	waitFor(t, 10*time.Second, "nats-server accepts clients", func() error {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			return err
		}
		return c.Close()
	})
	return p, url
}

// stopNATS stops the server gracefully (its store is kept).
func stopNATS(t *testing.T, p *proc) { t.Helper(); p.signal(t, syscall.SIGTERM, 15*time.Second) }
