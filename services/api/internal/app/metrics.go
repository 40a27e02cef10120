package app

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/barrage-dev/barrage/pkg/sideserver"
	"github.com/barrage-dev/barrage/services/api/internal/httpapi"
	"github.com/barrage-dev/barrage/services/api/internal/metrics"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
	"github.com/barrage-dev/barrage/services/api/internal/store"
)

// newMetrics registers barrage-api's collectors: HTTP, the database pool,
// NATS reconnects and the database state read at each scrape. The router,
// the dispatcher, the ingest and the live streams report to it.
func newMetrics(st *store.Store, b *bus, log *slog.Logger) *metrics.Metrics {
	m := metrics.New(prometheus.NewRegistry(), st.DB())
	m.WatchNATS(b.nc)
	statuses := make([]string, 0, len(runs.Statuses()))
	for _, s := range runs.Statuses() {
		statuses = append(statuses, string(s))
	}
	m.WatchState(func(ctx context.Context) (metrics.State, error) {
		g, err := st.ReadGauges(ctx)
		return metrics.State{
			RunsByStatus: g.RunsByStatus, OutboxPending: g.OutboxPending, OutboxOldest: g.OutboxOldest,
			SearchesRunning: g.SearchesRunning, SyncsRunning: g.SyncsRunning,
		}, err
	}, statuses, log)
	return m
}

// serveMetrics serves /metrics alone on cfg.MetricsListen until the
// returned stop is called.
func serveMetrics(ctx context.Context, cfg Config, m *metrics.Metrics, log *slog.Logger) (stop func(), err error) {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", httpapi.MetricsHandler(m, cfg.MetricsToken))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: cfg.ReadHeaderTimeout, ReadTimeout: cfg.ReadTimeout,
		WriteTimeout: cfg.WriteTimeout, IdleTimeout: cfg.IdleTimeout}
	stop, _, err = sideserver.Start(ctx, cfg.MetricsListen, "metrics listener", srv, log)
	if err != nil {
		return nil, fmt.Errorf("-metrics-listen: %w", err)
	}
	return stop, nil
}
