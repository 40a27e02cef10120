// Package cli is the barrage-agent command line: `load` (a standalone,
// Fortio-like load generator), `serve` (the worker that takes assignments
// over NATS) and `version`. It parses flags into a spec, wires the engine to a
// protocol client and prints results, or configures and runs the worker; the
// measuring happens in package engine, the NATS side in package worker.
package cli

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/barrage-dev/barrage/pkg/version"
)

// Exit codes.
const (
	ExitOK      = 0
	ExitFailure = 1 // the load could not run, or was aborted by -abort-on
	ExitUsage   = 2 // bad flags or spec
	// ExitIterationsFailed: a scenario ran and some of its iterations
	// failed (as barrage's 99 for failed thresholds).
	ExitIterationsFailed = 99
)

// Main runs barrage-agent with args (program name first) and environ ("KEY=value"
// entries, as os.Environ returns) and returns the exit code.
func Main(ctx context.Context, args, environ []string, stdout, stderr io.Writer) int {
	if len(args) < 2 {
		usage(stderr)
		return ExitUsage
	}
	switch args[1] {
	case "load":
		return runLoad(ctx, args[2:], stdout, stderr)
	case "serve":
		return runServe(ctx, args[2:], environ, stdout, stderr)
	case "healthcheck":
		return runHealthcheck(ctx, args[2:], environ, stderr)
	case "creds-slot":
		return runCredsSlot(args[2:], stdout, stderr)
	case "curl":
		return runCurl(ctx, args[2:], stdout, stderr)
	case "grpcping":
		return runGRPCPing(ctx, args[2:], stdout, stderr)
	case "nc":
		return RunNC(ctx, args[2:], os.Stdin, stdout, stderr)
	case "version":
		_, _ = fmt.Fprintln(stdout, version.Line("barrage-agent"))
		return ExitOK
	case "-h", "-help", "--help", "help":
		usage(stdout)
		return ExitOK
	default:
		_, _ = fmt.Fprintf(stderr, "barrage-agent: unknown command %q\n", args[1])
		usage(stderr)
		return ExitUsage
	}
}

func usage(w io.Writer) {
	_, _ = fmt.Fprint(w, `Usage: barrage-agent <command> [flags]

Commands:
  load [flags] URL   generate load against URL (http://, https://, h2c://, grpc://, tcp://, udp://)
                     and print the result; 'barrage-agent load -h' lists the flags
  serve [flags]      run as a worker of barrage-api: take assignments over NATS until
                     SIGTERM or Ctrl-C; 'barrage-agent serve -h' lists the flags
  curl [flags] URL   one HTTP request; print the status line, headers and body (Fortio's curl)
  grpcping [flags] host:port
                     n pings to fgrpc.PingServer/Ping: RTT and clock skew (Fortio's grpcping)
  nc [tcp://|udp://]host:port
                     send stdin to the address and print what comes back (Fortio's nc)
  healthcheck        exit 0 when NATS holds a fresh heartbeat of this agent (by
                     BARRAGE_AGENT_NAME or the hostname): the container HEALTHCHECK
  creds-slot -from DIR -pod NAME -o FILE
                     copy the credentials of a StatefulSet pod's slot (ordinal+1) out of
                     DIR: the Helm chart's agent init container
  version            print the version
`)
}
