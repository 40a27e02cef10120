// Package fanout is barrage-echo's HTTP fan-out proxy (Fortio's -multi):
// each request received is sent to every target, in parallel or one after
// the other; the client gets the first target's answer (status, headers and
// body, streamed) and the other answers are read to their end and dropped.
// It is not a load balancer: every target sees every request.
package fanout

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Route is one -multi value: where to listen and the targets.
type Route struct {
	Listen  string
	Targets []*url.URL
}

// ParseRoute parses "listen url1 url2 ...".
func ParseRoute(s string) (Route, error) {
	f := strings.Fields(s)
	if len(f) < 2 {
		return Route{}, fmt.Errorf("multi %q: want \"listen-address url1 [url2 ...]\"", s)
	}
	r := Route{Listen: f[0]}
	for _, raw := range f[1:] {
		u, err := url.Parse(raw)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return Route{}, fmt.Errorf("multi %q: target %q: want an http:// or https:// URL", s, raw)
		}
		r.Targets = append(r.Targets, u)
	}
	return r, nil
}

// Options configure a Handler.
type Options struct {
	// Serial sends to the targets one after the other (the first one's
	// answer is returned once every target answered); default in parallel.
	Serial bool
	// MirrorOrigin appends the request's path and query to each target's
	// URL; otherwise the targets' URLs are used as given.
	MirrorOrigin bool
	// MaxBody bounds the request body, which is kept in memory to be sent
	// to every target; larger ones get 413.
	MaxBody int64
	// Client sends the requests; nil means one with a 30 s timeout.
	Client *http.Client
	// Logger receives target errors.
	Logger *slog.Logger
}

// dropHopHeaders removes the headers that are not forwarded (RFC 9110
// §7.6.1).
func dropHopHeaders(h http.Header) {
	for _, k := range []string{"Connection", "Keep-Alive", "Proxy-Connection", "Te", "Trailer", "Transfer-Encoding", "Upgrade"} {
		h.Del(k)
	}
}

// Handler returns the fan-out handler for targets.
func Handler(targets []*url.URL, o Options) http.Handler {
	if o.Client == nil {
		o.Client = &http.Client{Timeout: 30 * time.Second}
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return &handler{targets: targets, o: o}
}

type handler struct {
	targets []*url.URL
	o       Options
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.o.MaxBody))
	if err != nil {
		http.Error(w, "request body: "+err.Error(), http.StatusRequestEntityTooLarge)
		return
	}
	// The first target's answer goes to the client; the others are drained.
	first := make(chan *http.Response, 1)
	firstErr := make(chan error, 1)
	var wg sync.WaitGroup
	send := func(i int) {
		resp, err := h.forward(r.Context(), r, body, h.targets[i])
		if i == 0 {
			if err != nil {
				firstErr <- err
				return
			}
			first <- resp
			return
		}
		if err != nil {
			h.o.Logger.Debug("multi: target", slog.String("target", h.targets[i].Redacted()), slog.Any("error", err))
			return
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
	}
	for i := range h.targets {
		if h.o.Serial {
			send(i)
			continue
		}
		wg.Go(func() { send(i) })
	}
	select {
	case err := <-firstErr:
		wg.Wait()
		http.Error(w, "first target: "+err.Error(), http.StatusBadGateway)
	case resp := <-first:
		defer func() { _ = resp.Body.Close() }()
		for k, vs := range resp.Header {
			w.Header()[k] = vs
		}
		dropHopHeaders(w.Header())
		w.WriteHeader(resp.StatusCode)
		_, _ = io.Copy(w, resp.Body)
		wg.Wait()
	}
}

// forward sends r (with body) to target.
func (h *handler) forward(ctx context.Context, r *http.Request, body []byte, target *url.URL) (*http.Response, error) {
	u := *target
	if h.o.MirrorOrigin {
		u.Path = strings.TrimSuffix(u.Path, "/") + r.URL.Path
		u.RawQuery = r.URL.RawQuery
	}
	req, err := http.NewRequestWithContext(ctx, r.Method, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("build request: %w", err)
	}
	req.Header = r.Header.Clone()
	dropHopHeaders(req.Header)
	req.ContentLength = int64(len(body))
	resp, err := h.o.Client.Do(req) //nolint:gosec // the targets are the operator's -multi flag, not the request's
	if err != nil {
		return nil, fmt.Errorf("%s: %w", target.Redacted(), err)
	}
	return resp, nil
}
