// Package healthprobe is the `healthcheck` subcommand of Barrage's HTTP
// servers: container images have no shell or curl, so each binary probes
// its own /healthz over loopback.
//
// It is not the place for the health endpoints themselves.
package healthprobe

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"time"
)

// Timeout bounds one probe.
const Timeout = 3 * time.Second

// Loopback returns the loopback host:port a server listening on listen
// (defaultListen when empty) answers on: a wildcard host becomes
// 127.0.0.1.
func Loopback(listen, defaultListen string) string {
	if listen == "" {
		listen = defaultListen
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

// Get asks url with client (http.DefaultClient when nil) and fails unless
// it answers 200 within Timeout.
func Get(ctx context.Context, client *http.Client, url string) error {
	if client == nil {
		client = http.DefaultClient
	}
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, http.NoBody)
	if err != nil {
		return fmt.Errorf("bad URL %q: %w", url, err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("healthcheck: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("healthcheck: %s answered %s", url, resp.Status)
	}
	return nil
}
