// Package sideserver runs an HTTP server on a listener of its own beside a
// process's main work: the debug listener (pkg/pprofserve), barrage-api's
// -metrics-listen and barrage-agent's -metrics-addr. It listens before it
// returns, so that a bad address is the caller's configuration error.
package sideserver

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
)

// Start listens on addr and serves srv there until the returned stop is
// called, which closes the server and waits for it. name is the listener's
// name in the log lines. It returns the address bound (addr may ask for
// port 0).
func Start(ctx context.Context, addr, name string, srv *http.Server, log *slog.Logger) (stop func(), bound net.Addr, err error) {
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, nil, err
	}
	log.Info(name, slog.String("addr", ln.Addr().String()))
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Warn(name+" stopped", slog.Any("error", err))
		}
	}()
	return func() {
		_ = srv.Close()
		<-done
	}, ln.Addr(), nil
}
