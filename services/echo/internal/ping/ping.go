// Package ping is the echo server's gRPC side: Fortio's fgrpc.PingServer, the
// standard health service (with "ping" and "" SERVING) and server reflection, so
// `fortio load -grpc [-ping]`, grpcurl and Barrage agents can all target it.
package ping

import (
	"context"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/reflection"
	"google.golang.org/protobuf/proto"

	"github.com/barrage-dev/barrage/pkg/delay"
	"github.com/barrage-dev/barrage/proto/fgrpc"
	"github.com/barrage-dev/barrage/services/echo/internal/metrics"
)

// HealthService is the service name Fortio's ping server reports as SERVING.
const HealthService = "ping"

// Server implements fgrpc.PingServer.
type Server struct {
	fgrpc.UnimplementedPingServerServer
	maxDelay time.Duration
	metrics  *metrics.Metrics
	now      func() time.Time
}

// NewServer returns a ping server that clamps requested delays to maxDelay.
func NewServer(maxDelay time.Duration, m *metrics.Metrics) *Server {
	return &Server{maxDelay: maxDelay, metrics: m, now: time.Now}
}

// Ping copies the message, sets ts to the receive time, sleeps the clamped
// delayNanos and replies.
func (s *Server) Ping(ctx context.Context, in *fgrpc.PingMessage) (*fgrpc.PingMessage, error) {
	received := s.now()
	out, _ := proto.Clone(in).(*fgrpc.PingMessage)
	out.Ts = received.UnixNano()
	s.metrics.GRPCPings.Inc()
	if d := min(time.Duration(in.GetDelayNanos()), s.maxDelay); d > 0 {
		s.metrics.InjectedDelay("grpc", d.Seconds())
		if !delay.Sleep(ctx, d) {
			return nil, ctx.Err()
		}
	}
	return out, nil
}

// Register adds the ping, health and reflection services to g.
func Register(g *grpc.Server, s *Server) *health.Server {
	fgrpc.RegisterPingServerServer(g, s)
	hs := health.NewServer()
	hs.SetServingStatus("", healthpb.HealthCheckResponse_SERVING)
	hs.SetServingStatus(HealthService, healthpb.HealthCheckResponse_SERVING)
	healthpb.RegisterHealthServer(g, hs)
	reflection.Register(g)
	return hs
}
