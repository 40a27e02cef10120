// Command barrage is Barrage's CLI for people and CI jobs: it starts runs
// on barrage-api, follows them and exits with their verdict (see
// internal/cli and docs/ci.md).
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/barrage-dev/barrage/pkg/version"
	"github.com/barrage-dev/barrage/services/api/internal/cli"
)

func main() {
	if version.Requested(os.Args[1:]) {
		_, _ = fmt.Fprintln(os.Stdout, version.Line("barrage"))
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Run(ctx, cli.Options{
		Args: os.Args[1:], Environ: os.Environ(), Stdout: os.Stdout, Stderr: os.Stderr, StdoutIsTTY: isTerminal(os.Stdout),
	})
	stop()
	os.Exit(code)
}

// isTerminal reports whether f is a character device (a terminal).
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
