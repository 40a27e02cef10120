// Command barrage-api is Barrage's control plane: the REST API over
// Postgres, and its maintenance commands (migrate, token). See docs/api.md.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/barrage-dev/barrage/pkg/version"
	"github.com/barrage-dev/barrage/services/api/internal/app"
)

func main() {
	if version.Requested(os.Args[1:]) {
		_, _ = fmt.Fprintln(os.Stdout, version.Line("barrage-api"))
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := app.Main(ctx, os.Args, os.Environ(), os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
