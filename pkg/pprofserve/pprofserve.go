// Package pprofserve serves net/http/pprof on a listener of its own: the
// -debug-addr of barrage-api and barrage-agent, for soak runs and leak
// hunts (goroutine counts, heap and CPU profiles of a running process).
// It is off unless an address is given, and meant for loopback only: the
// binaries refuse another address unless forced (CheckLoopback).
package pprofserve

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"net/netip"
	"strings"
	"time"
)

// CheckLoopback returns an error unless addr (host:port) names a loopback
// host: a loopback IP or "localhost". An empty host (":6060") listens on
// every interface and is refused too. pprof has no authentication and its
// profiles show memory contents and command lines.
func CheckLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%q: %w", addr, err)
	}
	if strings.EqualFold(host, "localhost") {
		return nil
	}
	ip, err := netip.ParseAddr(host)
	if err != nil || !ip.IsLoopback() {
		return fmt.Errorf("%q is not a loopback address (127.0.0.1, [::1] or localhost)", addr)
	}
	return nil
}

// Start listens on addr and serves /debug/pprof/ until the returned stop
// is called. It listens before returning, so that a bad address is the
// caller's configuration error; the address bound is logged.
func Start(ctx context.Context, addr string, log *slog.Logger) (stop func(), err error) {
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("debug listener: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	log.Info("debug listener (pprof)", slog.String("addr", ln.Addr().String()))
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Warn("debug listener stopped", slog.Any("err", err))
		}
	}()
	return func() {
		_ = srv.Close()
		<-done
	}, nil
}
