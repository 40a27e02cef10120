// Package grpcclient is the agent's gRPC client for Fortio's two gRPC loads: the
// standard health check (grpc.health.v1.Health/Check) and Fortio's ping
// (fgrpc.PingServer/Ping). Each Client owns one grpc.ClientConn, so one engine
// connection is one HTTP/2 connection, as with Fortio's -c. Calling arbitrary
// unary methods (by reflection) is not its job.
package grpcclient

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/protobuf/proto"

	"github.com/barrage-dev/barrage/pkg/version"
	"github.com/barrage-dev/barrage/proto/fgrpc"
	"github.com/barrage-dev/barrage/services/agent/internal/request"
)

// Result codes, named as Fortio reports them.
const (
	// CodeServing is a health check answered SERVING, or a ping answered ("SERVING").
	CodeServing int32 = 0
	// CodeError is a failed RPC, a health status other than SERVING, or a
	// ping reply with another sequence number ("ERROR").
	CodeError int32 = 1
)

// grpcMessageHeader is the length-prefixed-message header gRPC puts before
// every message: a compression flag and a 4-byte length.
const grpcMessageHeader = 5

// Factory opens gRPC clients for one target. Their results count as Sent and
// Received the length-prefixed gRPC messages (5 + proto.Size bytes each way),
// not HTTP/2 frames or headers, and only for RPCs that completed: a failed RPC
// reports 0 and 0. (Fortio's gRPC runner counts no bytes.)
type Factory struct {
	opts     Options
	runType  string
	dialOpts []grpc.DialOption
}

var _ request.Factory = (*Factory)(nil)

// New validates opts (see Options.Normalize) and prepares the dial options.
func New(opts Options) (*Factory, error) {
	if err := opts.Normalize(); err != nil {
		return nil, fmt.Errorf("grpcclient: %w", err)
	}
	creds := insecure.NewCredentials()
	if opts.TLS {
		creds = credentials.NewTLS(&tls.Config{
			InsecureSkipVerify: opts.Insecure, //nolint:gosec // the user asked for -k
			MinVersion:         tls.VersionTLS12,
		})
	}
	dialOpts := []grpc.DialOption{}
	if dial := opts.Dial; dial != nil {
		dialOpts = append(dialOpts, grpc.WithContextDialer(func(ctx context.Context, addr string) (net.Conn, error) {
			return dial(ctx, "tcp", addr)
		}))
	}
	return &Factory{
		opts:    opts,
		runType: opts.runType(),
		dialOpts: append(dialOpts,
			grpc.WithTransportCredentials(creds),
			grpc.WithUserAgent("barrage/"+version.String()),
			// Reconnect within a second after the target comes back (gRPC's
			// default backoff grows to two minutes).
			grpc.WithConnectParams(grpc.ConnectParams{
				Backoff:           backoff.Config{BaseDelay: 100 * time.Millisecond, Multiplier: 1.6, Jitter: 0.2, MaxDelay: time.Second},
				MinConnectTimeout: opts.Timeout,
			}),
		),
	}, nil
}

// NewClient implements request.Factory. The client's connection is made on its
// first request; an unreachable target shows as ERROR results, not here.
func (f *Factory) NewClient(_ context.Context, _ int) (request.Client, error) {
	// passthrough: the address goes to the dialer as is, as in Fortio (no gRPC
	// DNS resolver per connection).
	cc, err := grpc.NewClient("passthrough:///"+f.opts.Target, f.dialOpts...)
	if err != nil {
		return nil, fmt.Errorf("grpc client for %s: %w", f.opts.Target, err)
	}
	c := &client{timeout: f.opts.Timeout, cc: cc}
	if f.opts.Mode == ModePing {
		c.ping = fgrpc.NewPingServerClient(cc)
		c.pingReq = &fgrpc.PingMessage{Payload: f.opts.Payload, DelayNanos: f.opts.PingDelay.Nanoseconds()}
	} else {
		c.health = healthpb.NewHealthClient(cc)
		c.healthReq = &healthpb.HealthCheckRequest{Service: f.opts.Service}
		c.healthSent = framedSize(c.healthReq)
	}
	return c, nil
}

// CodeName implements request.Factory: "SERVING" or "ERROR".
func (f *Factory) CodeName(code int32) string {
	switch code {
	case CodeServing:
		return "SERVING"
	case CodeError:
		return "ERROR"
	}
	return strconv.Itoa(int(code))
}

// RunType implements request.Factory, with Fortio's wording: "GRPC Health for
// '<service>'", "GRPC Ping", "GRPC Ping Delay=<d>", then " PayloadLength=<n>"
// when there is a payload.
func (f *Factory) RunType() string { return f.runType }

// client is one gRPC connection.
type client struct {
	timeout time.Duration
	cc      *grpc.ClientConn

	health     healthpb.HealthClient
	healthReq  *healthpb.HealthCheckRequest // sent by every request
	healthSent int64

	ping    fgrpc.PingServerClient
	pingReq *fgrpc.PingMessage // reused: Seq and Ts change per request
	seq     int64

	closeOnce sync.Once
	closeErr  error
}

// Do implements request.Client.
func (c *client) Do(ctx context.Context) request.Result {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	if c.ping != nil {
		return c.doPing(ctx)
	}
	return c.doHealth(ctx)
}

func (c *client) doHealth(ctx context.Context) request.Result {
	resp, err := c.health.Check(ctx, c.healthReq)
	if err != nil {
		return request.Result{Code: CodeError}
	}
	res := request.Result{Code: CodeError, Sent: c.healthSent, Received: framedSize(resp)}
	if resp.GetStatus() == healthpb.HealthCheckResponse_SERVING {
		res.Code, res.OK = CodeServing, true
	}
	return res
}

func (c *client) doPing(ctx context.Context) request.Result {
	c.seq++
	c.pingReq.Seq = c.seq
	c.pingReq.Ts = time.Now().UnixNano()
	sent := framedSize(c.pingReq)
	resp, err := c.ping.Ping(ctx, c.pingReq)
	if err != nil {
		return request.Result{Code: CodeError}
	}
	res := request.Result{Code: CodeError, Sent: sent, Received: framedSize(resp)}
	if resp.GetSeq() == c.seq {
		res.Code, res.OK = CodeServing, true
	}
	return res
}

// framedSize is the size of m as a gRPC length-prefixed message.
func framedSize(m proto.Message) int64 { return int64(grpcMessageHeader + proto.Size(m)) }

// Close implements request.Client: it closes the connection, failing an RPC in
// progress. Later calls return the first call's result.
func (c *client) Close() error {
	c.closeOnce.Do(func() {
		if err := c.cc.Close(); err != nil {
			c.closeErr = fmt.Errorf("close grpc connection: %w", err)
		}
	})
	return c.closeErr
}
