// Package pprofserve serves net/http/pprof on a listener of its own: the
// -debug-addr of barrage-api and barrage-agent, for soak runs and leak
// hunts (goroutine counts, heap and CPU profiles of a running process).
// It is off unless an address is given, and meant for loopback only: the
// binaries refuse another address unless forced (CheckLoopback).
package pprofserve

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"net/netip"
	"strings"
	"time"

	"github.com/barrage-dev/barrage/pkg/sideserver"
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
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	stop, _, err = sideserver.Start(ctx, addr, "debug listener (pprof)", &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}, log)
	if err != nil {
		return nil, fmt.Errorf("debug listener: %w", err)
	}
	return stop, nil
}
