// Command barrage-agent is Barrage's load generator: `load` runs a standalone,
// Fortio-like load from the command line, and `serve` runs a worker that takes
// assignments from barrage-api over NATS. See docs/agent.md.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/barrage-dev/barrage/pkg/version"
	"github.com/barrage-dev/barrage/services/agent/internal/cli"
)

func main() {
	if version.Requested(os.Args[1:]) {
		_, _ = fmt.Fprintln(os.Stdout, version.Line("barrage-agent"))
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Main(ctx, os.Args, os.Environ(), os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
