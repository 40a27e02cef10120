package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/barrage-dev/barrage/services/api/internal/app"
	"github.com/barrage-dev/barrage/services/api/internal/benchproc"
)

// server is a running barrage-api.
type server struct {
	base string // http://127.0.0.1:PORT
	pid  int    // the subprocess, or 0 in-process
	desc string // how it runs, for the report
	stop func() error
}

// serverEnv is the environment the API runs with on top of this process's:
// the bench database, a free loopback port, a known admin token (also the
// admin's password, so the first start writes no credentials file), and no
// per-caller rate limit (the bench is one caller).
func serverEnv(databaseURL, token string) []string {
	return []string{
		"DATABASE_URL=" + databaseURL,
		"BARRAGE_LISTEN=127.0.0.1:0",
		"BARRAGE_ADMIN_TOKEN=" + token,
		"BARRAGE_ADMIN_PASSWORD=" + token, // nothing generated: no credentials file
		"BARRAGE_RATE_LIMIT=0",
	}
}

// startServer boots the API as cfg asks and waits until it listens.
func startServer(ctx context.Context, cfg config, token string) (*server, error) {
	env := append(os.Environ(), serverEnv(cfg.databaseURL, token)...)
	if cfg.apiBin == "" {
		return startInProcess(ctx, env)
	}
	return startSubprocess(ctx, cfg.apiBin, env)
}

// startInProcess serves the API from this process with app.New and Run;
// its log (JSON, info) is formatted and discarded.
func startInProcess(ctx context.Context, env []string) (*server, error) {
	cfg, err := app.ParseConfig(nil, env, io.Discard)
	if err != nil {
		return nil, fmt.Errorf("API configuration: %w", err)
	}
	log := slog.New(slog.NewJSONHandler(io.Discard, &slog.HandlerOptions{Level: cfg.LogLevel}))
	a, err := app.New(ctx, cfg, log, io.Discard)
	if err != nil {
		return nil, fmt.Errorf("start the API in-process: %w", err)
	}
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- a.Run(rctx) }()
	return &server{
		base: "http://" + a.Addr(),
		desc: "in-process (app.New and Run in the apibench process: server and client share its CPU and Go runtime)",
		stop: func() error { cancel(); return <-done },
	}, nil
}

// startSubprocess runs bin serve and reads the bound address from its log.
func startSubprocess(ctx context.Context, bin string, env []string) (*server, error) {
	p, err := benchproc.Start(ctx, bin, env)
	if err != nil {
		return nil, err //nolint:wrapcheck // Start's errors name the binary and the log
	}
	return &server{
		base: p.Base, pid: p.PID, stop: p.Stop,
		desc: fmt.Sprintf("subprocess `%s serve` (own process; its CPU read from /proc/PID/stat)", bin),
	}, nil
}
