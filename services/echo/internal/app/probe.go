package app

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"

	"github.com/barrage-dev/barrage/pkg/healthprobe"
	"github.com/barrage-dev/barrage/pkg/svclog"
)

// healthcheck is `barrage-echo healthcheck [-url URL]`: it asks the running
// server's /healthz and fails unless it answers 200 within 3 s. Container
// images have no shell or curl, so this is their HEALTHCHECK. It returns
// the exit code.
func healthcheck(ctx context.Context, args, environ []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("barrage-echo healthcheck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	scheme := "http"
	if svclog.Lookup(environ, "BARRAGE_ECHO_CERT") != "" {
		scheme = "https"
	}
	url := fs.String("url", scheme+"://"+healthprobe.Loopback(svclog.Lookup(environ, "BARRAGE_ECHO_HTTP_ADDR"), ":8088")+"/healthz",
		"URL to GET (default: /healthz on the port of BARRAGE_ECHO_HTTP_ADDR)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	// The server's own certificate need not name the loopback address.
	client := &http.Client{Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // loopback probe of our own server
	}}
	if err := healthprobe.Get(ctx, client, *url); err != nil {
		fmt.Fprintf(stderr, "barrage-echo healthcheck: %v\n", err)
		return 1
	}
	return 0
}
