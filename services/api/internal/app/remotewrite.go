package app

import (
	"log/slog"

	"github.com/barrage-dev/barrage/services/api/internal/metrics"
	"github.com/barrage-dev/barrage/services/api/internal/projects"
	"github.com/barrage-dev/barrage/services/api/internal/remotewrite"
	"github.com/barrage-dev/barrage/services/api/internal/store"
)

// newRemoteWrite builds the remote-write configuration service and the
// exporter that Run starts (docs/architecture.md §10), its sample counts
// on the metrics. A sync's deny list applies: an endpoint may be anything
// the project's policy allows but the control plane's Postgres and NATS.
func (a *App) newRemoteWrite(cfg Config, st *store.Store, projectSvc *projects.Service, log *slog.Logger) *remotewrite.Service {
	svc := remotewrite.NewService(st, projectSvc, a.syncDeny.List, cfg.TargetResolver)
	a.remoteWrite = remotewrite.NewExporter(st, svc, log)
	a.metrics.WatchRemoteWrite(func() metrics.RemoteWriteStats {
		s := a.remoteWrite.Stats()
		return metrics.RemoteWriteStats{Sent: s.Sent, Dropped: s.Dropped, Rejected: s.Rejected, Retries: s.Retries}
	})
	return svc
}
