package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
)

// Main runs barrage-echo with args (program name first) and environ, logging to
// stderr, until ctx is done. It returns the process exit code: 0, 1 on a runtime
// failure, 2 on bad configuration.
func Main(ctx context.Context, args, environ []string, stderr io.Writer) int {
	cfg, err := ParseConfig(args[1:], environ, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "barrage-echo: %v\n", err)
		return 2
	}
	log := slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: cfg.LogLevel}))
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
