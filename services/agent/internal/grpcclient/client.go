// Package grpcclient is the agent's gRPC client for Fortio's two gRPC loads,
// the standard health check (grpc.health.v1.Health/Check) and Fortio's ping
// (fgrpc.PingServer/Ping), and for any unary method found by server
// reflection. Each Client makes one call at a time; Options.Streams clients
// share one grpc.ClientConn, so the engine's connections × streams callers
// use that many HTTP/2 connections, as with Fortio's -c and -s.
package grpcclient

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/barrage-dev/barrage/pkg/version"
	"github.com/barrage-dev/barrage/proto/fgrpc"
	"github.com/barrage-dev/barrage/services/agent/internal/rawsock"
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
	pool     *connPool
	md       metadata.MD // nil without metadata

	methodMu  sync.Mutex
	method    *methodCall // method mode: resolved by the first NewClient
	methodErr error

	// connErr is the first Unavailable error of a call (SocketError).
	connErr atomic.Pointer[error]
}

var _ request.Factory = (*Factory)(nil)

// New validates opts (see Options.Normalize) and prepares the dial options.
func New(opts Options) (*Factory, error) {
	if err := opts.Normalize(); err != nil {
		return nil, fmt.Errorf("grpcclient: %w", err)
	}
	creds := insecure.NewCredentials()
	if opts.TLS {
		creds = credentials.NewTLS(opts.tlsConfig())
	}
	dial := opts.Dial
	if dial == nil {
		dial = (&net.Dialer{}).DialContext
	}
	dialOpts := []grpc.DialOption{grpc.WithContextDialer(func(ctx context.Context, addr string) (net.Conn, error) {
		conn, err := dial(ctx, "tcp", addr)
		if err != nil {
			return nil, err
		}
		// The transport's frames (and TLS's records) go through raw
		// system calls: see package rawsock.
		return rawsock.Wrap(conn), nil
	})}
	f := &Factory{
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
	}
	f.pool = newConnPool(opts.Streams, f.dial)
	for _, h := range opts.Metadata {
		if strings.EqualFold(h.Name, "host") {
			// As Fortio does: Host sets the HTTP/2 :authority.
			f.dialOpts = append(f.dialOpts, grpc.WithAuthority(h.Value))
			continue
		}
		if f.md == nil {
			f.md = metadata.MD{}
		}
		f.md.Append(h.Name, h.Value)
	}
	return f, nil
}

// dial makes one connection (lazily: it connects on its first call).
func (f *Factory) dial() (*grpc.ClientConn, error) {
	// passthrough: the address goes to the dialer as is, as in Fortio (no gRPC
	// DNS resolver per connection).
	cc, err := grpc.NewClient("passthrough:///"+f.opts.Target, f.dialOpts...)
	if err != nil {
		return nil, fmt.Errorf("grpc client for %s: %w", f.opts.Target, err)
	}
	return cc, nil
}

// NewClient implements request.Factory. Clients conn/Streams share one
// connection, made on its first request; an unreachable target shows as
// ERROR results, not here. In method mode the first call looks the method up
// by server reflection and encodes the request, once for the factory: a
// method or payload the server does not accept is an error here.
func (f *Factory) NewClient(ctx context.Context, conn int) (request.Client, error) {
	sc, err := f.pool.acquire(conn)
	if err != nil {
		return nil, err
	}
	c := &client{f: f, timeout: f.opts.Timeout, cc: sc.cc, shared: sc, pool: f.pool, md: f.md}
	switch f.opts.Mode {
	case ModePing:
		c.ping = fgrpc.NewPingServerClient(sc.cc)
		c.pingReq = &fgrpc.PingMessage{Payload: f.opts.Payload, DelayNanos: f.opts.PingDelay.Nanoseconds()}
	case ModeMethod:
		if c.method, err = f.resolve(ctx, sc.cc); err != nil {
			_ = c.Close()
			return nil, err
		}
	default:
		c.health = healthpb.NewHealthClient(sc.cc)
		c.healthReq = &healthpb.HealthCheckRequest{Service: f.opts.Service}
		c.healthSent = framedSize(c.healthReq)
	}
	return c, nil
}

// resolve returns the method call, looking it up on cc the first time.
func (f *Factory) resolve(ctx context.Context, cc *grpc.ClientConn) (*methodCall, error) {
	f.methodMu.Lock()
	defer f.methodMu.Unlock()
	if f.method == nil && f.methodErr == nil {
		ctx, cancel := context.WithTimeout(ctx, f.opts.Timeout)
		defer cancel()
		if f.md != nil { // servers that want credentials may want them here too
			ctx = metadata.NewOutgoingContext(ctx, f.md)
		}
		f.method, f.methodErr = resolveMethod(ctx, cc, f.opts.Method, f.opts.Payload)
	}
	return f.method, f.methodErr
}

// SocketError returns the first call that failed for want of a connection
// (gRPC's Unavailable: refused, TLS handshake, unknown authority, refused
// version, bad client certificate), or nil: such calls only count as
// errors, and this says why.
func (f *Factory) SocketError() error {
	if e := f.connErr.Load(); e != nil {
		return *e
	}
	return nil
}

// noteError keeps err as f's SocketError if it is the first Unavailable
// one; a timeout or the run's end (DeadlineExceeded, Canceled) is not.
func (f *Factory) noteError(err error) {
	if f.connErr.Load() == nil && status.Code(err) == codes.Unavailable {
		f.connErr.CompareAndSwap(nil, &err)
	}
}

// CodeName implements request.Factory: "SERVING" or "ERROR", or in method
// mode the gRPC status code's name ("OK", "Unavailable", ...).
func (f *Factory) CodeName(code int32) string {
	if f.opts.Mode == ModeMethod {
		return codes.Code(code).String() // codes are small and not negative
	}
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

// client is one caller on a (possibly shared) gRPC connection.
type client struct {
	f       *Factory
	timeout time.Duration
	cc      *grpc.ClientConn
	shared  *sharedConn
	pool    *connPool
	md      metadata.MD

	health     healthpb.HealthClient
	healthReq  *healthpb.HealthCheckRequest // sent by every request
	healthSent int64

	ping    fgrpc.PingServerClient
	pingReq *fgrpc.PingMessage // reused: Seq and Ts change per request
	seq     int64

	method *methodCall
	reply  rawReply // method mode: the size of the last response

	closeOnce sync.Once
	closeErr  error
}

// Do implements request.Client.
func (c *client) Do(ctx context.Context) request.Result {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	if c.md != nil {
		ctx = metadata.NewOutgoingContext(ctx, c.md)
	}
	switch {
	case c.ping != nil:
		return c.doPing(ctx)
	case c.method != nil:
		return c.doMethod(ctx)
	}
	return c.doHealth(ctx)
}

// doMethod calls the resolved method with the request encoded once; the
// result code is the call's gRPC status code.
func (c *client) doMethod(ctx context.Context) request.Result {
	err := c.cc.Invoke(ctx, c.method.path, &c.method.req, &c.reply, c.method.opts...)
	if err != nil {
		c.f.noteError(err)
		return request.Result{Code: int32(status.Code(err))} // codes are small
	}
	return request.Result{Code: int32(codes.OK), OK: true, Sent: c.method.sent, Received: int64(grpcMessageHeader + c.reply.n)}
}

func (c *client) doHealth(ctx context.Context) request.Result {
	resp, err := c.health.Check(ctx, c.healthReq)
	if err != nil {
		c.f.noteError(err)
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
		c.f.noteError(err)
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

// Close implements request.Client: it leaves the shared connection, which the
// last of its clients closes, failing the RPCs in progress. Later calls return
// the first call's result.
func (c *client) Close() error {
	c.closeOnce.Do(func() { c.closeErr = c.pool.release(c.shared) })
	return c.closeErr
}
