package ping

import (
	"context"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/status"

	"github.com/barrage-dev/barrage/services/echo/internal/saturation"
)

// Saturate returns a unary interceptor that delays every call (ping,
// health check) by d's saturation before its handler runs; the call is in
// flight until its handler returns. Streams (reflection) are not delayed.
func Saturate(d *saturation.Delayer) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		v, ok := d.Hold(ctx)
		defer func() { v.End(time.Now()) }()
		if !ok {
			return nil, status.FromContextError(ctx.Err()).Err()
		}
		return handler(ctx, req)
	}
}
