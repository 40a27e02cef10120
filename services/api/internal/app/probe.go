package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"

	"github.com/barrage-dev/barrage/pkg/healthprobe"
	"github.com/barrage-dev/barrage/pkg/svclog"
)

// healthcheck runs `healthcheck [-url URL]`: it asks the running server's
// /healthz and fails unless it answers 200 within 3 s. Container images
// have no shell or curl, so this is their HEALTHCHECK.
func healthcheck(ctx context.Context, args, environ []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("barrage-api healthcheck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	target := fs.String("url", "http://"+healthprobe.Loopback(svclog.Lookup(environ, "BARRAGE_LISTEN"), ":8080")+"/healthz",
		"URL to GET (default: /healthz on the port of BARRAGE_LISTEN)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("unexpected argument %q", fs.Arg(0))}
	}
	if _, err := url.Parse(*target); err != nil {
		return usageError{fmt.Errorf("-url: %w", err)}
	}
	return healthprobe.Get(ctx, nil, *target) //nolint:wrapcheck // its message is the line a HEALTHCHECK shows
}
