// Package benchproc is what the API's bench programs (cmd/apibench,
// cmd/ingestbench) share: a fresh bench database, and barrage-api run as
// a subprocess whose address is read from its log.
//
// It is for benchmarks only.
package benchproc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// ReadyTimeout is how long the API may take to migrate and listen.
const ReadyTimeout = 60 * time.Second

// maxTail is how many log lines an error message quotes.
const maxTail = 10

// Process is a running `barrage-api serve` subprocess.
type Process struct {
	// Base is the API's URL, http://127.0.0.1:PORT.
	Base string
	// PID is the subprocess, for reading its CPU from /proc.
	PID  int
	logs *logWatcher
	stop func() error
}

// Start runs `bin serve` with env (the whole environment) and waits until
// it logs the address it listens on. Stop ends it with SIGTERM.
func Start(ctx context.Context, bin string, env []string) (*Process, error) {
	sctx, cancel := context.WithCancel(ctx)
	cmd := exec.CommandContext(sctx, bin, "serve")
	cmd.Env = env
	cmd.Stdout = io.Discard // the first-start banner
	logs := &logWatcher{addr: make(chan string, 1)}
	cmd.Stderr = logs
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 15 * time.Second
	if err := cmd.Start(); err != nil {
		cancel()
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stop := func() error {
		cancel()
		err := <-exited
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.Exited() {
			return fmt.Errorf("barrage-api exited with status %d: %s", ee.ExitCode(), logs.tail())
		}
		return nil
	}
	select {
	case addr := <-logs.addr:
		return &Process{Base: "http://" + addr, PID: cmd.Process.Pid, logs: logs, stop: stop}, nil
	case err := <-exited:
		cancel()
		if err == nil {
			err = errors.New("exit status 0")
		}
		return nil, fmt.Errorf("barrage-api exited before listening (%w): %s", err, logs.tail())
	case <-time.After(ReadyTimeout):
		_ = stop()
		return nil, fmt.Errorf("barrage-api did not listen within %v: %s", ReadyTimeout, logs.tail())
	case <-ctx.Done():
		_ = stop()
		return nil, ctx.Err()
	}
}

// Stop ends the process (SIGTERM, then a kill after 15 s); an exit with a
// non-zero status is an error quoting the last log lines.
func (p *Process) Stop() error { return p.stop() }

// Warnings is how many warnings and errors the API has logged.
func (p *Process) Warnings() int { return p.logs.warned() }

// Tail is the last log lines on one line, for error messages.
func (p *Process) Tail() string { return p.logs.tail() }

// logWatcher is the stderr of the API subprocess: it sends the address of
// the "barrage-api listening" line to addr once, counts warnings and
// keeps the last lines for error messages.
type logWatcher struct {
	addr     chan string
	mu       sync.Mutex
	partial  []byte
	last     []string
	found    bool
	warnings int
}

// Write splits p into lines and looks at each.
func (w *logWatcher) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.partial = append(w.partial, p...)
	for {
		i := bytes.IndexByte(w.partial, '\n')
		if i < 0 {
			break
		}
		w.line(string(w.partial[:i]))
		w.partial = w.partial[i+1:]
	}
	return len(p), nil
}

// line handles one complete log line.
func (w *logWatcher) line(s string) {
	if len(w.last) == maxTail {
		w.last = w.last[1:]
	}
	w.last = append(w.last, s)
	var rec struct {
		Level string `json:"level"`
		Msg   string `json:"msg"`
		Addr  string `json:"addr"`
	}
	if json.Unmarshal([]byte(s), &rec) != nil {
		return
	}
	if rec.Level == "WARN" || rec.Level == "ERROR" {
		w.warnings++
	}
	if !w.found && rec.Msg == "barrage-api listening" && rec.Addr != "" {
		w.found = true
		w.addr <- rec.Addr
	}
}

func (w *logWatcher) warned() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.warnings
}

func (w *logWatcher) tail() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.last) == 0 {
		return "(no log output)"
	}
	return "log: " + strings.Join(w.last, " | ")
}

// ResetDatabase drops the database that databaseURL names and creates it
// empty. It refuses a database whose name does not contain "bench".
func ResetDatabase(ctx context.Context, databaseURL string) error {
	cfg, err := pgx.ParseConfig(databaseURL)
	if err != nil {
		return fmt.Errorf("-database-url: %w", err)
	}
	name := cfg.Database
	if !strings.Contains(name, "bench") {
		return fmt.Errorf("refusing to drop database %q: the bench database's name must contain \"bench\"", name)
	}
	cfg.Database = "postgres"
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return fmt.Errorf("connect to the maintenance database: %w", err)
	}
	defer func() { _ = conn.Close(context.WithoutCancel(ctx)) }()
	ident := pgx.Identifier{name}.Sanitize()
	if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+ident+" WITH (FORCE)"); err != nil {
		return fmt.Errorf("drop database %s: %w", name, err)
	}
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+ident); err != nil {
		return fmt.Errorf("create database %s: %w", name, err)
	}
	return nil
}
