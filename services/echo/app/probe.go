package app

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"
)

// newLogger is the server's logger: JSON lines on stderr, or text when
// BARRAGE_LOG_FORMAT=text.
func newLogger(stderr io.Writer, level slog.Level, environ []string) (*slog.Logger, error) {
	opts := &slog.HandlerOptions{Level: level}
	switch format := lookupEnv(environ, "BARRAGE_LOG_FORMAT"); format {
	case "", "json":
		return slog.New(slog.NewJSONHandler(stderr, opts)), nil
	case "text":
		return slog.New(slog.NewTextHandler(stderr, opts)), nil
	default:
		return nil, fmt.Errorf("BARRAGE_LOG_FORMAT %q: must be json or text", format)
	}
}

// lookupEnv returns the last value of key in environ, "" when unset.
func lookupEnv(environ []string, key string) string {
	v := ""
	for _, kv := range environ {
		if k, val, ok := strings.Cut(kv, "="); ok && k == key {
			v = val
		}
	}
	return v
}

// healthcheck is `barrage-echo healthcheck [-url URL]`: it asks the running
// server's /healthz and fails unless it answers 200 within 3 s. Container
// images have no shell or curl, so this is their HEALTHCHECK. It returns
// the exit code.
func healthcheck(ctx context.Context, args, environ []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("barrage-echo healthcheck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	scheme := "http"
	if lookupEnv(environ, "BARRAGE_ECHO_CERT") != "" {
		scheme = "https"
	}
	url := fs.String("url", scheme+"://"+loopback(lookupEnv(environ, "BARRAGE_ECHO_HTTP_ADDR"))+"/healthz",
		"URL to GET (default: /healthz on the port of BARRAGE_ECHO_HTTP_ADDR)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, *url, http.NoBody)
	if err != nil {
		fmt.Fprintf(stderr, "barrage-echo healthcheck: %v\n", err)
		return 2
	}
	// The server's own certificate need not name the loopback address.
	client := &http.Client{Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // loopback probe of our own server
	}}
	resp, err := client.Do(req)
	if err != nil {
		fmt.Fprintf(stderr, "barrage-echo healthcheck: %v\n", err)
		return 1
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		fmt.Fprintf(stderr, "barrage-echo healthcheck: %s answered %s\n", *url, resp.Status)
		return 1
	}
	return 0
}

// loopback is the loopback host:port of a listen address (":8088" when empty).
func loopback(listen string) string {
	if listen == "" {
		listen = ":8088"
	}
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return listen
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port)
}
