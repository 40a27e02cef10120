package app

import (
	"context"
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
// BARRAGE_LOG_FORMAT=text (DESIGN.md §8; containers collect both streams).
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

// healthcheck runs `healthcheck [-url URL]`: it asks the running server's
// /healthz and fails unless it answers 200 within 3 s. Container images
// have no shell or curl, so this is their HEALTHCHECK.
func healthcheck(ctx context.Context, args, environ []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("barrage-api healthcheck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	url := fs.String("url", localURL(lookupEnv(environ, "BARRAGE_LISTEN"))+"/healthz",
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
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, *url, http.NoBody)
	if err != nil {
		return usageError{fmt.Errorf("-url: %w", err)}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("healthcheck: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("healthcheck: %s answered %s", *url, resp.Status)
	}
	return nil
}

// localURL is the loopback base URL of a listen address (":8080" when empty).
func localURL(listen string) string {
	if listen == "" {
		listen = ":8080"
	}
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return "http://" + listen
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port)
}
