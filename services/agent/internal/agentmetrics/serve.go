package agentmetrics

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Serve listens on addr and serves the registry at /metrics until stop is
// called. It returns the address it listens on (addr may ask for port 0).
func (m *Metrics) Serve(ctx context.Context, addr string, log *slog.Logger) (stop func(), bound net.Addr, err error) {
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, nil, fmt.Errorf("metrics listener: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg}))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	log.Info("metrics listener", slog.String("addr", ln.Addr().String()))
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Warn("metrics listener stopped", slog.Any("error", err))
		}
	}()
	return func() {
		_ = srv.Close()
		<-done
	}, ln.Addr(), nil
}
