package ping

import (
	"context"

	"google.golang.org/grpc/stats"

	"github.com/barrage-dev/barrage/services/echo/internal/metrics"
)

// ConnStats is a gRPC stats handler that counts the connections the server
// accepts (barrage_echo_grpc_connections_total), so that a client's
// connection count (`-c`, with `-s` streams on each) can be checked.
type ConnStats struct{ m *metrics.Metrics }

var _ stats.Handler = ConnStats{}

// NewConnStats returns the handler; pass it to grpc.StatsHandler.
func NewConnStats(m *metrics.Metrics) ConnStats { return ConnStats{m: m} }

// TagRPC implements stats.Handler.
func (ConnStats) TagRPC(ctx context.Context, _ *stats.RPCTagInfo) context.Context { return ctx }

// HandleRPC implements stats.Handler.
func (ConnStats) HandleRPC(context.Context, stats.RPCStats) {}

// TagConn implements stats.Handler.
func (ConnStats) TagConn(ctx context.Context, _ *stats.ConnTagInfo) context.Context { return ctx }

// HandleConn implements stats.Handler: it counts each connection's begin.
func (s ConnStats) HandleConn(_ context.Context, cs stats.ConnStats) {
	if _, ok := cs.(*stats.ConnBegin); ok {
		s.m.GRPCConnections.Inc()
	}
}
