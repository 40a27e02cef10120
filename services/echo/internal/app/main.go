package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"

	"github.com/barrage-dev/barrage/pkg/svclog"
)

// Main runs barrage-echo with args (program name first) and environ, logging to
// stderr, until ctx is done. It returns the process exit code: 0, 1 on a runtime
// failure, 2 on bad configuration. `barrage-echo healthcheck` probes a
// running server instead (the container HEALTHCHECK).
func Main(ctx context.Context, args, environ []string, stderr io.Writer) int {
	if len(args) > 1 && args[1] == "healthcheck" {
		return healthcheck(ctx, args[2:], environ, stderr)
	}
	cfg, err := ParseConfig(args[1:], environ, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "barrage-echo: %v\n", err)
		return 2
	}
	log, err := svclog.New(stderr, cfg.LogLevel, environ)
	if err != nil {
		fmt.Fprintf(stderr, "barrage-echo: %v\n", err)
		return 2
	}
	a, err := New(cfg, log)
	if err != nil {
		log.Error("start failed", slog.Any("err", err))
		return 1
	}
	if err := a.Run(ctx); err != nil {
		log.Error("server failed", slog.Any("err", err))
		return 1
	}
	return 0
}
