package agentmetrics

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/barrage-dev/barrage/pkg/sideserver"
)

// Serve listens on addr and serves the registry at /metrics until stop is
// called. It returns the address it listens on (addr may ask for port 0).
func (m *Metrics) Serve(ctx context.Context, addr string, log *slog.Logger) (stop func(), bound net.Addr, err error) {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg}))
	stop, bound, err = sideserver.Start(ctx, addr, "metrics listener", &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}, log)
	if err != nil {
		return nil, nil, fmt.Errorf("metrics listener: %w", err)
	}
	return stop, bound, nil
}
