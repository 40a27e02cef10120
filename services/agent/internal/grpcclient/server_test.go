package grpcclient

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/reflection"

	"github.com/barrage-dev/barrage/proto/fgrpc"
)

// pingServer answers like barrage-echo and Fortio: it echoes the message with
// ts set to its receive time after sleeping delayNanos, and records what it got.
type pingServer struct {
	fgrpc.UnimplementedPingServerServer
	got chan struct{} // signalled (without blocking) on each ping

	mu          sync.Mutex
	seqs        []int64
	ts          []int64
	payloads    []string
	tenants     []string // the x-tenant metadata of each ping
	authorities []string // the :authority of each ping
	inFlight    int
	maxInFlight int
}

func (s *pingServer) Ping(ctx context.Context, in *fgrpc.PingMessage) (*fgrpc.PingMessage, error) {
	now := time.Now().UnixNano()
	s.mu.Lock()
	s.seqs = append(s.seqs, in.GetSeq())
	s.ts = append(s.ts, in.GetTs())
	s.payloads = append(s.payloads, in.GetPayload())
	md, _ := metadata.FromIncomingContext(ctx)
	s.tenants = append(s.tenants, strings.Join(md.Get("x-tenant"), ","))
	s.authorities = append(s.authorities, strings.Join(md.Get(":authority"), ","))
	s.inFlight++
	s.maxInFlight = max(s.maxInFlight, s.inFlight)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.inFlight--
		s.mu.Unlock()
	}()
	select {
	case s.got <- struct{}{}:
	default:
	}
	if d := time.Duration(in.GetDelayNanos()); d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return &fgrpc.PingMessage{Seq: in.GetSeq(), Ts: now, Payload: in.GetPayload(), DelayNanos: in.GetDelayNanos()}, nil
}

func (s *pingServer) received() (seqs, ts []int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]int64(nil), s.seqs...), append([]int64(nil), s.ts...)
}

// startServer runs a gRPC server with the ping service, server reflection and
// a health service where "" and "ping" are SERVING and "down" is NOT_SERVING;
// cert, when not nil, makes it a TLS server.
func startServer(tb testing.TB, cert *tls.Certificate) (string, *pingServer) {
	tb.Helper()
	ts := startTestServer(tb, serverOptions{cert: cert})
	return ts.addr, ts.ping
}

// serverOptions configure startTestServer.
type serverOptions struct {
	cert         *tls.Certificate
	noReflection bool
	// clientCAs, with cert, makes the server require a client
	// certificate they sign (mTLS).
	clientCAs *x509.CertPool
	// maxVersion, with cert, caps the TLS version the server speaks.
	maxVersion uint16
}

// testServer is a running test server and what it counted.
type testServer struct {
	addr string
	ping *pingServer
	// accepted counts the TCP connections the server accepted.
	accepted atomic.Int64
	// reflections counts the server reflection streams opened.
	reflections atomic.Int64
}

// countingListener counts accepted connections.
type countingListener struct {
	net.Listener
	n *atomic.Int64
}

func (l countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.n.Add(1)
	}
	return c, err
}

// startTestServer is startServer with options and counters.
func startTestServer(tb testing.TB, so serverOptions) *testServer {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("listen: %v", err)
	}
	ts := &testServer{addr: l.Addr().String()}
	ln := countingListener{Listener: l, n: &ts.accepted}
	opts := []grpc.ServerOption{grpc.StreamInterceptor(func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) error {
		if strings.HasSuffix(info.FullMethod, "/ServerReflectionInfo") {
			ts.reflections.Add(1)
		}
		return h(srv, ss)
	})}
	if so.cert != nil {
		cfg := &tls.Config{Certificates: []tls.Certificate{*so.cert}, MinVersion: tls.VersionTLS12, MaxVersion: so.maxVersion}
		if so.clientCAs != nil {
			cfg.ClientCAs, cfg.ClientAuth = so.clientCAs, tls.RequireAndVerifyClientCert
		}
		opts = append(opts, grpc.Creds(credentials.NewTLS(cfg)))
	}
	srv := grpc.NewServer(opts...)
	hs := health.NewServer()
	hs.SetServingStatus("ping", healthpb.HealthCheckResponse_SERVING)
	hs.SetServingStatus("down", healthpb.HealthCheckResponse_NOT_SERVING)
	healthpb.RegisterHealthServer(srv, hs)
	ts.ping = &pingServer{got: make(chan struct{}, 1)}
	fgrpc.RegisterPingServerServer(srv, ts.ping)
	if !so.noReflection {
		reflection.Register(srv)
	}
	var wg sync.WaitGroup
	wg.Go(func() { _ = srv.Serve(ln) })
	tb.Cleanup(func() {
		srv.Stop()
		wg.Wait()
	})
	return ts
}

// selfSigned returns a certificate for 127.0.0.1 that no root vouches for.
func selfSigned(tb testing.TB) *tls.Certificate {
	tb.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatalf("key: %v", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "barrage grpcclient test"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		tb.Fatalf("certificate: %v", err)
	}
	return &tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// closedPort returns an address on which nothing listens (it did a moment ago).
func closedPort(tb testing.TB) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("listen: %v", err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return addr
}

// mustClient builds a factory and the client for connection 0.
func mustClient(tb testing.TB, opts Options) (*Factory, *client) {
	tb.Helper()
	f, err := New(opts)
	if err != nil {
		tb.Fatalf("New: %v", err)
	}
	c, err := f.NewClient(tb.Context(), 0)
	if err != nil {
		tb.Fatalf("NewClient: %v", err)
	}
	tb.Cleanup(func() { _ = c.Close() })
	cl, ok := c.(*client)
	if !ok {
		tb.Fatalf("NewClient: got %T", c)
	}
	return f, cl
}
