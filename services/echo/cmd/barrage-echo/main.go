// Command barrage-echo is Barrage's test target: a Fortio-compatible HTTP echo
// server with injectable delays, errors and sizes, a gRPC ping and health server,
// and TCP/UDP echo. See docs/echo.md for flags.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/barrage-dev/barrage/pkg/version"
	"github.com/barrage-dev/barrage/services/echo/internal/app"
)

func main() {
	if version.Requested(os.Args[1:]) {
		_, _ = fmt.Fprintln(os.Stdout, version.Line("barrage-echo"))
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := app.Main(ctx, os.Args, os.Environ(), os.Stderr)
	stop()
	os.Exit(code)
}
