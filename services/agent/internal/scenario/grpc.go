package scenario

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/textproto"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	spec "github.com/barrage-dev/barrage/pkg/scenario"
	"github.com/barrage-dev/barrage/services/agent/internal/grpcclient"
)

// grpcMethods holds the methods of a run's gRPC steps, looked up once by
// server reflection before the first iteration (resolveGRPC), by step
// index. It is read-only once filled.
type grpcMethods map[int]protoreflect.MethodDescriptor

// grpcCreds returns the transport credentials of a gRPC step: TLS from
// base (its roots, client certificate, SNI and version; gRPC sets ALPN h2)
// for grpcs://, none for grpc://.
func grpcCreds(g *spec.GRPCStep, base *tls.Config) credentials.TransportCredentials {
	if !g.TLS {
		return insecure.NewCredentials()
	}
	return credentials.NewTLS(clientTLS(base))
}

// newGRPCConn returns a connection (made on its first call) to a gRPC
// step's address through dial.
func newGRPCConn(g *spec.GRPCStep, base *tls.Config, dial func(ctx context.Context, network, addr string) (net.Conn, error)) (*grpc.ClientConn, error) {
	// passthrough: the address goes to the dialer as it is, as the
	// engine's gRPC client does.
	return grpc.NewClient("passthrough:///"+g.Addr,
		grpc.WithTransportCredentials(grpcCreds(g, base)),
		grpc.WithContextDialer(func(ctx context.Context, addr string) (net.Conn, error) { return dial(ctx, "tcp", addr) }))
}

// resolveGRPC looks up the method of every gRPC step, over a connection
// of its own closed afterwards, within timeout each: a method the server
// does not offer (or a server without reflection) ends the run before it
// starts, naming the step.
func resolveGRPC(ctx context.Context, o *Options, dial func(ctx context.Context, network, addr string) (net.Conn, error)) (grpcMethods, error) {
	out := grpcMethods{}
	for _, st := range o.Plan.Steps {
		g := st.GRPC
		if g == nil {
			continue
		}
		cc, err := newGRPCConn(g, o.TLS, dial)
		if err != nil {
			return nil, fmt.Errorf("steps[%d].url: %w", st.Index, err)
		}
		lctx, cancel := context.WithTimeout(ctx, o.Timeout)
		md, err := grpcclient.Method(lctx, cc, g.Method)
		cancel()
		_ = cc.Close()
		if err != nil {
			return nil, fmt.Errorf("steps[%d].url: %w", st.Index, err)
		}
		out[st.Index] = md
	}
	return out, nil
}

// grpcClient is one worker's client for the gRPC steps: a connection per
// address, made on the first call.
type grpcClient struct {
	dial    func(ctx context.Context, network, addr string) (net.Conn, error)
	tls     *tls.Config
	timeout time.Duration
	methods grpcMethods
	conns   map[grpcKey]*grpc.ClientConn
	header  http.Header
}

// grpcKey names a gRPC step's connection.
type grpcKey struct {
	addr string
	tls  bool
}

func newGRPCClient(dial func(ctx context.Context, network, addr string) (net.Conn, error), base *tls.Config, timeout time.Duration,
	methods grpcMethods) *grpcClient {
	return &grpcClient{dial: dial, tls: base, timeout: timeout, methods: methods, conns: map[grpcKey]*grpc.ClientConn{}, header: http.Header{}}
}

// close closes every connection.
func (c *grpcClient) close() {
	for k, cc := range c.conns {
		_ = cc.Close()
		delete(c.conns, k)
	}
}

// grpcTransportError is a call that got no answer from the server: it
// counts as a transport error, a timeout when its deadline passed.
type grpcTransportError struct {
	err     error
	timeout bool
}

func (e *grpcTransportError) Error() string   { return e.err.Error() }
func (e *grpcTransportError) Unwrap() error   { return e.err }
func (e *grpcTransportError) Timeout() bool   { return e.timeout }
func (e *grpcTransportError) Temporary() bool { return false }

// errGRPCRequest: the rendered body is not the method's request message.
var errGRPCRequest = errors.New("the body is not the method's request message in protobuf JSON")

// do calls st's method with the rendered body (protobuf JSON) as the
// request and the rendered headers as metadata. The response's status is
// the gRPC code, its body the reply in protobuf JSON with every field
// (empty unless OK), its headers the header and trailer metadata. A call
// the server did not answer (Unavailable, or the deadline) is an error.
func (c *grpcClient) do(ctx context.Context, st *spec.PlanStep, req *spec.Rendered) (*spec.Response, error) {
	md := c.methods[st.Index]
	if md == nil {
		return nil, fmt.Errorf("steps[%d]: gRPC method not resolved", st.Index)
	}
	in := dynamicpb.NewMessage(md.Input())
	if len(req.Body) > 0 {
		if err := protojson.Unmarshal(req.Body, in); err != nil {
			return nil, fmt.Errorf("%w: %w", errGRPCRequest, err)
		}
	}
	key := grpcKey{st.GRPC.Addr, st.GRPC.TLS}
	cc := c.conns[key]
	if cc == nil {
		var err error
		if cc, err = newGRPCConn(st.GRPC, c.tls, c.dial); err != nil {
			return nil, err
		}
		c.conns[key] = cc
	}
	if len(req.Headers) > 0 {
		pairs := make([]string, 0, 2*len(req.Headers))
		for _, h := range req.Headers {
			pairs = append(pairs, h.Name, string(h.Value))
		}
		ctx = metadata.AppendToOutgoingContext(ctx, pairs...)
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	out := dynamicpb.NewMessage(md.Output())
	var head, trail metadata.MD
	err := cc.Invoke(ctx, st.GRPC.Method, in, out, grpc.Header(&head), grpc.Trailer(&trail))
	code := status.Code(err)
	switch {
	case code == codes.Unavailable:
		return nil, &grpcTransportError{err: err}
	case code == codes.DeadlineExceeded && ctx.Err() != nil:
		return nil, &grpcTransportError{err: err, timeout: true}
	}
	clear(c.header)
	for _, m := range []metadata.MD{head, trail} {
		for k, vs := range m {
			c.header[textproto.CanonicalMIMEHeaderKey(k)] = append(c.header[textproto.CanonicalMIMEHeaderKey(k)], vs...)
		}
	}
	resp := &spec.Response{Status: int(code), Header: c.header}
	if err == nil {
		// Every field, set or not, so that a JSON path finds a zero too.
		if resp.Body, err = (protojson.MarshalOptions{EmitUnpopulated: true}).Marshal(out); err != nil {
			return nil, fmt.Errorf("encode the reply as JSON: %w", err)
		}
	}
	return resp, nil
}
