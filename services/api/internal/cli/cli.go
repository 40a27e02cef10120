// Package cli is the `barrage` command: it starts runs on barrage-api over
// its REST API, follows them live, prints their summary and verdict and
// exits with a code a CI job can gate on (0 pass, 99 thresholds failed, 98
// inconclusive, 97 run error, 2 usage or validation error, 1 API
// unreachable). It also has
// small `runs list|show|stop|delete|pin|unpin|compare` commands, `tests list|apply`, which
// keeps stored tests in step with a YAML file, `import`, which turns Fortio
// result files into runs, `sync list|add|run` for result sync sources, and
// `search`, which runs a capacity search and prints its steps.
//
// It talks only to the REST API, through the generated client of
// services/api/client (never to Postgres or NATS), and holds no
// rules of its own beyond mapping a run's outcome to an exit code.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/barrage-dev/barrage/services/api/client"
)

// Exit codes of the barrage command.
const (
	// ExitPass: the run completed and every threshold passed.
	ExitPass = 0
	// ExitUnreachable: the API could not be reached or answered with a
	// server error.
	ExitUnreachable = 1
	// ExitUsage: bad flags, or the API refused the request (validation,
	// authentication, an unknown test).
	ExitUsage = 2
	// ExitRunError: the run failed, was canceled or degraded (a shard was
	// lost), no request of it succeeded, or it did not end within --wait.
	ExitRunError = 97
	// ExitInconclusive: the run completed, no threshold failed, but a
	// confidence form (p(99) < baseline * 1.10 @ 95%) could not tell a
	// difference from noise (docs/verdicts.md). Between 97 and 99 so that
	// a job gating on "0 or fail" still fails; a job that tolerates it
	// allows 98.
	ExitInconclusive = 98
	// ExitThresholds: the run completed and a threshold failed.
	ExitThresholds = 99
)

// Defaults of the global settings.
const (
	defaultURL = "http://127.0.0.1:8080"
	usageText  = `usage: barrage [-url URL] [-token TOKEN] <command> [flags]

commands:
  run          start a run, follow it and exit with its verdict
  runs list    list recent runs
  runs show ID show one run
  runs stop ID stop a run
  runs delete ID [-force]
               delete a finished run and all its data (project admins);
               -force deletes a pinned run or a baseline too
  runs pin ID, runs unpin ID
               keep a run whatever its project's retention, or stop keeping it
  runs compare ID ID [ID...]
               2 to 20 runs side by side, with changes against the first
  tests list   list stored tests
  tests apply -f FILE [-project P] [--dry-run]
               create or replace stored tests from YAML definitions
  import [-project P] FILE...
               import Fortio result JSON files as runs
  sync list [-project P]
               list sync sources with their latest sync
  sync add -name NAME -url URL [-project P] [-interval MINUTES]
               sync results from an index.tsv or a bucket listing
  sync run SOURCE-ID [-wait 10m]
               sync now, print each object's outcome (exit 97 unless all synced)
  search -url URL|-spec FILE -objective EXPR -min QPS -max QPS [-c N]
         [-step 10s] [-warmup 2s] [-resolution 0.02] [-project P] [-name N]
               find the highest qps that meets the objective, step by step
               (exit 0 found, 99 not met even at -min, 97 failed or canceled)

The API URL and token come from -url and -token or BARRAGE_URL (default
http://127.0.0.1:8080) and BARRAGE_TOKEN. Exit codes: 0 pass, 99 thresholds
failed, 98 inconclusive (a confidence form could not tell), 97 run error or degraded, 2 usage or validation error, 1 API
unreachable or server error.
`
)

// env is what one invocation runs with.
type env struct {
	api *client.ClientWithResponses
	// base is the API's base URL, for links to the dashboard.
	base  string
	out   *printer
	isTTY bool
	now   func() time.Time
}

// Options are the parts of the process the command uses, so tests can
// run it in-process.
type Options struct {
	// Args are the command-line arguments without the program name.
	Args []string
	// Environ is the environment as "NAME=value" entries.
	Environ []string
	// Stdout and Stderr get the output.
	Stdout, Stderr io.Writer
	// StdoutIsTTY makes progress one line rewritten in place rather than a
	// line every 5 s.
	StdoutIsTTY bool
}

// Run runs the barrage command and returns its exit code.
func Run(ctx context.Context, o Options) int {
	fs := flag.NewFlagSet("barrage", flag.ContinueOnError)
	fs.SetOutput(o.Stderr)
	fs.Usage = func() { _, _ = io.WriteString(o.Stderr, usageText) }
	apiURL := fs.String("url", lookup(o.Environ, "BARRAGE_URL", defaultURL), "barrage-api base URL (env BARRAGE_URL)")
	token := fs.String("token", lookup(o.Environ, "BARRAGE_TOKEN", ""), "API token (env BARRAGE_TOKEN)")
	if err := fs.Parse(o.Args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return ExitPass
		}
		return ExitUsage
	}
	p := &printer{stdout: o.Stdout, stderr: o.Stderr, secret: *token}
	args := fs.Args()
	if len(args) == 0 {
		fs.Usage()
		return ExitUsage
	}
	if *token == "" {
		p.errorf("barrage: an API token is required: set BARRAGE_TOKEN or pass -token")
		return ExitUsage
	}
	api, err := client.New(*apiURL, *token, client.WithHTTPClient(&http.Client{}))
	if err != nil {
		p.errorf("barrage: -url %s: %v", *apiURL, err)
		return ExitUsage
	}
	e := &env{
		api:   api,
		base:  *apiURL,
		out:   p,
		isTTY: o.StdoutIsTTY,
		now:   time.Now,
	}
	switch args[0] {
	case "run":
		return e.run(ctx, args[1:])
	case "runs":
		return e.runs(ctx, args[1:])
	case "tests":
		return e.tests(ctx, args[1:])
	case "import":
		return e.importFiles(ctx, args[1:])
	case "sync":
		return e.sync(ctx, args[1:])
	case "search":
		return e.search(ctx, args[1:])
	default:
		p.errorf("barrage: unknown command %q", args[0])
		fs.Usage()
		return ExitUsage
	}
}

// lookup returns the value of name in environ, or def.
func lookup(environ []string, name, def string) string {
	for i := len(environ) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(environ[i], name+"="); ok {
			return v
		}
	}
	return def
}

// printer is the one writer of user output; it never prints the token.
type printer struct {
	stdout, stderr io.Writer
	secret         string
}

// printf writes to stdout.
func (p *printer) printf(format string, args ...any) {
	_, _ = io.WriteString(p.stdout, redact(fmt.Sprintf(format, args...), p.secret))
}

// errorf writes one line to stderr.
func (p *printer) errorf(format string, args ...any) {
	_, _ = io.WriteString(p.stderr, redact(fmt.Sprintf(format, args...), p.secret)+"\n")
}

// fail reports err and returns its exit code: 2 for a refused request
// (each field error on its own line), 1 for anything else.
func (p *printer) fail(what string, err error) int {
	var pe *client.ProblemError
	if errors.As(err, &pe) && pe.StatusCode < 500 {
		p.errorf("barrage: %s: %v", what, err)
		for _, f := range pe.Fields() {
			p.errorf("  %s", f)
		}
		return ExitUsage
	}
	p.errorf("barrage: %s: %v", what, err)
	return ExitUnreachable
}
