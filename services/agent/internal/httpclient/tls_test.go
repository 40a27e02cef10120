package httpclient

import (
	"context"
	"crypto/tls"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/pkg/testcert"
	"github.com/barrage-dev/barrage/services/agent/internal/tlsconf"
)

// tlsReply is what tlsServer answers to every request.
const tlsReply = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"

// tlsServer is a real TLS listener on loopback that answers every request
// with tlsReply and records each handshake.
type tlsServer struct {
	addr                string
	certPEM, keyPEM     string
	handshakes, resumed atomic.Int64
	mu                  sync.Mutex
	alpn, sni           []string
	clientCerts         int
	requestBytes        atomic.Int64
}

// startTLS serves with a testcert certificate; edit changes the server's
// configuration (client authentication, versions) before it listens.
func startTLS(t *testing.T, edit func(*tls.Config)) *tlsServer {
	t.Helper()
	certFile, keyFile, pool := testcert.Write(t)
	pair, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
	s := &tlsServer{certPEM: testcert.Read(t, certFile), keyPEM: testcert.Read(t, keyFile)}
	cfg := &tls.Config{Certificates: []tls.Certificate{pair}, NextProtos: []string{"h2", "http/1.1"}, ClientCAs: pool}
	if edit != nil {
		edit(cfg)
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	s.addr = ln.Addr().String()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go s.serve(c.(*tls.Conn))
		}
	}()
	return s
}

func (s *tlsServer) serve(c *tls.Conn) {
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if c.Handshake() != nil {
		return
	}
	st := c.ConnectionState()
	s.handshakes.Add(1)
	if st.DidResume {
		s.resumed.Add(1)
	}
	s.mu.Lock()
	s.alpn, s.sni = append(s.alpn, st.NegotiatedProtocol), append(s.sni, st.ServerName)
	if len(st.PeerCertificates) > 0 {
		s.clientCerts++
	}
	s.mu.Unlock()
	buf := make([]byte, 4096)
	for {
		n, err := c.Read(buf)
		if err != nil {
			return
		}
		s.requestBytes.Add(int64(n))
		if _, err := io.WriteString(c, tlsReply); err != nil {
			return
		}
	}
}

// tlsFactory is a factory for srv whose TLS configuration comes from s's
// TLS settings, as plan builds it.
func tlsFactory(t *testing.T, srv *tlsServer, s spec.Spec, maxPerConn int64) *Factory {
	t.Helper()
	s.URL = "https://" + srv.addr + "/"
	cfg, err := tlsconf.Config(s)
	if err != nil {
		t.Fatal(err)
	}
	return mustFactory(t, Options{URL: s.URL, Timeout: 5 * time.Second, Insecure: s.Insecure, TLS: cfg, MaxRequestsPerConnection: maxPerConn})
}

// TestTLSVerifiesByDefault: a self-signed server fails every request with
// a socket error whose cause says the authority is unknown, unless -k or
// its CA is given.
func TestTLSVerifiesByDefault(t *testing.T) {
	t.Parallel()
	srv := startTLS(t, nil)
	f := tlsFactory(t, srv, spec.Spec{}, 0)
	c := mustClient(t, f)
	for range 3 {
		if res := c.Do(context.Background()); res.Code != CodeSocketError || res.Sent != 0 {
			t.Fatalf("unverified server answered %+v, want a socket error with nothing sent", res)
		}
	}
	if err := f.SocketError(); err == nil || !strings.Contains(err.Error(), "certificate signed by unknown authority") {
		t.Fatalf("SocketError = %v, want the unknown authority", err)
	}
	for name, s := range map[string]spec.Spec{
		"insecure": {Insecure: true},
		"ca":       {TLSSettings: &spec.TLSSettings{CACert: srv.certPEM}},
	} {
		f := tlsFactory(t, srv, s, 0)
		c := mustClient(t, f)
		for range 4 {
			if res := c.Do(context.Background()); res.Code != 200 || !res.OK || res.Received != int64(len(tlsReply)) {
				t.Fatalf("%s: %+v, want 200 with %d bytes", name, res, len(tlsReply))
			}
		}
		if f.SocketError() != nil {
			t.Fatalf("%s: SocketError %v", name, f.SocketError())
		}
	}
	// One failed handshake (the first client's first request; then the
	// others), then one connection for each of the two verified clients.
	if got := srv.handshakes.Load(); got != 2 {
		t.Fatalf("server completed %d handshakes, want 2 (one per keep-alive client)", got)
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	for i, p := range srv.alpn {
		if p != "http/1.1" || srv.sni[i] != "" {
			t.Fatalf("handshake %d: ALPN %q SNI %q, want http/1.1 and no SNI for an IP", i, p, srv.sni[i])
		}
	}
}

// TestTLSBytesAndKeepAlive: 20 requests on one kept-alive TLS connection
// send the request's bytes each time and count the response's.
func TestTLSBytesAndKeepAlive(t *testing.T) {
	t.Parallel()
	srv := startTLS(t, nil)
	f := tlsFactory(t, srv, spec.Spec{TLSSettings: &spec.TLSSettings{CACert: srv.certPEM}}, 0)
	c := mustClient(t, f)
	var sent, received int64
	for range 20 {
		res := c.Do(context.Background())
		if res.Code != 200 {
			t.Fatalf("%+v", res)
		}
		sent, received = sent+res.Sent, received+res.Received
	}
	if want := int64(20 * len(f.RequestBytes())); sent != want || received != int64(20*len(tlsReply)) {
		t.Fatalf("sent %d received %d, want %d and %d", sent, received, want, 20*len(tlsReply))
	}
	_ = c.Close()
	deadline := time.Now().Add(5 * time.Second)
	for srv.requestBytes.Load() != sent && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if got := srv.requestBytes.Load(); got != sent || srv.handshakes.Load() != 1 {
		t.Fatalf("server read %d bytes over %d handshakes, want %d over 1", got, srv.handshakes.Load(), sent)
	}
}

// TestTLSResumption: with a new connection per request, every handshake
// after the first resumes the session, unless resumption is off.
func TestTLSResumption(t *testing.T) {
	t.Parallel()
	for _, off := range []bool{false, true} {
		srv := startTLS(t, nil)
		f := tlsFactory(t, srv, spec.Spec{TLSSettings: &spec.TLSSettings{CACert: srv.certPEM, NoResumption: off}}, 1)
		c := mustClient(t, f)
		const n = 10
		for range n {
			if res := c.Do(context.Background()); res.Code != 200 {
				t.Fatalf("no_resumption %v: %+v", off, res)
			}
		}
		_ = c.Close()
		deadline := time.Now().Add(5 * time.Second)
		for srv.handshakes.Load() < n && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		want := int64(n - 1)
		if off {
			want = 0
		}
		if h, r := srv.handshakes.Load(), srv.resumed.Load(); h != n || r != want {
			t.Fatalf("no_resumption %v: %d handshakes, %d resumed; want %d and %d", off, h, r, n, want)
		}
	}
}

// TestTLSClientCertificateAndSNI: a server that requires a client
// certificate refuses a client without one and serves one with it; the
// SNI override is what the server sees.
func TestTLSClientCertificateAndSNI(t *testing.T) {
	t.Parallel()
	srv := startTLS(t, func(c *tls.Config) { c.ClientAuth = tls.RequireAndVerifyClientCert })
	without := tlsFactory(t, srv, spec.Spec{TLSSettings: &spec.TLSSettings{CACert: srv.certPEM}}, 0)
	if res := mustClient(t, without).Do(context.Background()); res.OK {
		t.Fatalf("served without a client certificate: %+v", res)
	}
	with := tlsFactory(t, srv, spec.Spec{TLSSettings: &spec.TLSSettings{
		CACert: srv.certPEM, ClientCert: srv.certPEM, ClientKey: srv.keyPEM, ServerName: "localhost",
	}}, 0)
	if res := mustClient(t, with).Do(context.Background()); res.Code != 200 {
		t.Fatalf("with a client certificate: %+v (%v)", res, with.SocketError())
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if srv.clientCerts != 1 || srv.sni[len(srv.sni)-1] != "localhost" {
		t.Fatalf("server saw %d client certificates, SNI %q; want 1 and localhost", srv.clientCerts, srv.sni)
	}
}

// TestTLSMinVersion: a client asking for TLS 1.3 fails against a server
// that stops at 1.2 with a protocol version error; 1.2 passes.
func TestTLSMinVersion(t *testing.T) {
	t.Parallel()
	srv := startTLS(t, func(c *tls.Config) { c.MaxVersion = tls.VersionTLS12 })
	f := tlsFactory(t, srv, spec.Spec{TLSSettings: &spec.TLSSettings{CACert: srv.certPEM, MinVersion: "1.3"}}, 0)
	if res := mustClient(t, f).Do(context.Background()); res.Code != CodeSocketError {
		t.Fatalf("TLS 1.3 against a 1.2 server: %+v", res)
	}
	if err := f.SocketError(); err == nil || !strings.Contains(err.Error(), "protocol version") {
		t.Fatalf("SocketError = %v, want a protocol version error", err)
	}
	ok := tlsFactory(t, srv, spec.Spec{TLSSettings: &spec.TLSSettings{CACert: srv.certPEM, MinVersion: "1.2"}}, 0)
	if res := mustClient(t, ok).Do(context.Background()); res.Code != 200 {
		t.Fatalf("TLS 1.2: %+v", res)
	}
}

// TestTLSConnectionReuseRange: Fortio's -connection-reuse 2:4 closes each
// connection after 2 to 4 responses: 60 requests take between 15 and 30
// handshakes on the server, every one after the first resumed, and the
// counts drawn are not all the same.
func TestTLSConnectionReuseRange(t *testing.T) {
	t.Parallel()
	srv := startTLS(t, nil)
	s := spec.Spec{URL: "https://" + srv.addr + "/", TLSSettings: &spec.TLSSettings{CACert: srv.certPEM}}
	cfg, err := tlsconf.Config(s)
	if err != nil {
		t.Fatal(err)
	}
	f := mustFactory(t, Options{URL: s.URL, Timeout: 5 * time.Second, TLS: cfg, ReuseMin: 2, ReuseMax: 4})
	c := mustClient(t, f)
	const n = 60
	for range n {
		if res := c.Do(context.Background()); res.Code != 200 {
			t.Fatalf("%+v", res)
		}
	}
	_ = c.Close()
	deadline := time.Now().Add(5 * time.Second)
	for srv.resumed.Load() != srv.handshakes.Load()-1 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	h, r := srv.handshakes.Load(), srv.resumed.Load()
	if h < n/4 || h > n/2 || r != h-1 {
		t.Fatalf("%d handshakes (%d resumed) for %d requests, want 15..30, all but the first resumed", h, r, n)
	}
	if h == n/4 || h == n/2 {
		t.Fatalf("%d handshakes: every connection carried the same count, not a range", h)
	}
	if _, err := New(Options{URL: s.URL, ReuseMin: 3, ReuseMax: 2}); err == nil {
		t.Fatal("reuse 3:2 accepted")
	}
}
