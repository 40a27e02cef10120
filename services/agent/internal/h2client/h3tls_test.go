package h2client

import (
	"crypto/tls"
	"crypto/x509"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/quic-go/quic-go/http3"

	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/pkg/testcert"
	"github.com/barrage-dev/barrage/services/agent/internal/tlsconf"
)

// startH3 serves HTTP/3 with pair on a loopback UDP port; clientCAs, when
// not nil, makes it require a client certificate they sign. It returns
// the https:// URL.
func startH3(tb testing.TB, pair tls.Certificate, clientCAs *x509.CertPool) string {
	tb.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS13}
	if clientCAs != nil {
		cfg.ClientCAs, cfg.ClientAuth = clientCAs, tls.RequireAndVerifyClientCert
	}
	srv := &http3.Server{TLSConfig: http3.ConfigureTLSConfig(cfg), Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("ok"))
	})}
	var wg sync.WaitGroup
	wg.Go(func() { _ = srv.Serve(pc) })
	tb.Cleanup(func() {
		_ = srv.Close()
		_ = pc.Close()
		wg.Wait()
	})
	return "https://" + pc.LocalAddr().String() + "/"
}

// TestH3TLSSettings: an h3 run's spec.TLSSettings, built by tlsconf as
// the agent does, reach the QUIC handshake: the CA verifies the server,
// SNI is the name verified, the client certificate answers an mTLS
// server; an expired certificate is refused unless Insecure. Each refusal is a -1 whose SocketError says why.
func TestH3TLSSettings(t *testing.T) {
	t.Parallel()
	certFile, keyFile, pool := testcert.Write(t)
	certPEM, _ := os.ReadFile(certFile)
	keyPEM, _ := os.ReadFile(keyFile)
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	plain := startH3(t, pair, nil)
	mtls := startH3(t, pair, pool)
	ca := string(certPEM)
	oldCert, oldKey, _ := testcert.WriteExpired(t)
	oldPair, err := tls.LoadX509KeyPair(oldCert, oldKey)
	if err != nil {
		t.Fatal(err)
	}
	expired := startH3(t, oldPair, nil)
	oldCA, _ := os.ReadFile(oldCert)
	tests := []struct {
		name     string
		url      string
		insecure bool
		tls      *spec.TLSSettings
		want     int32
		sockErr  string // in SocketError; "" when none
	}{
		{name: "system roots", url: plain, want: CodeSocketError, sockErr: "certificate signed by unknown authority"},
		{name: "insecure", url: plain, insecure: true, want: 200},
		{name: "ca", url: plain, tls: &spec.TLSSettings{CACert: ca}, want: 200},
		{name: "ca, sni and min 1.2", url: plain, tls: &spec.TLSSettings{CACert: ca, ServerName: "localhost", MinVersion: "1.2"}, want: 200},
		{name: "sni not in the certificate", url: plain, tls: &spec.TLSSettings{CACert: ca, ServerName: "other.test"}, want: CodeSocketError, sockErr: "other.test"},
		{name: "expired", url: expired, tls: &spec.TLSSettings{CACert: string(oldCA)}, want: CodeSocketError, sockErr: "expired"},
		{name: "expired, insecure", url: expired, insecure: true, want: 200},
		{name: "mtls without a client certificate", url: mtls, tls: &spec.TLSSettings{CACert: ca}, want: CodeSocketError, sockErr: "certificate required"},
		{name: "mtls", url: mtls, tls: &spec.TLSSettings{CACert: ca, ClientCert: ca, ClientKey: string(keyPEM), NoResumption: true}, want: 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := spec.Spec{URL: tt.url, H3: true, Insecure: tt.insecure, TLSSettings: tt.tls}
			cfg, err := tlsconf.Config(s)
			if err != nil {
				t.Fatal(err)
			}
			f := mustFactory(t, Options{URL: tt.url, H3: true, Insecure: tt.insecure, TLS: cfg})
			res := mustClient(t, f, 0).Do(t.Context())
			if res.Code != tt.want {
				t.Fatalf("code %d, want %d (SocketError %v)", res.Code, tt.want, f.SocketError())
			}
			got := f.SocketError()
			switch {
			case tt.sockErr == "" && got != nil:
				t.Fatalf("SocketError %v, want none", got)
			case tt.sockErr != "" && (got == nil || !strings.Contains(got.Error(), tt.sockErr)):
				t.Fatalf("SocketError %v, want one saying %q", got, tt.sockErr)
			}
		})
	}
}

// TestH3TLSConfig: HTTP/3's configuration is a copy of the run's at TLS
// 1.3 with Insecure applied and no ALPN of its own (the transport sets h3).
func TestH3TLSConfig(t *testing.T) {
	t.Parallel()
	base := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: "sni.test", NextProtos: []string{"h2"}}
	f := mustFactory(t, Options{URL: "https://127.0.0.1:1/", H3: true, Insecure: true, TLS: base})
	got := f.h3TLSConfig()
	if got.MinVersion != tls.VersionTLS13 || !got.InsecureSkipVerify || got.ServerName != "sni.test" || got.NextProtos != nil {
		t.Fatalf("h3 config %+v", got)
	}
	if base.MinVersion != tls.VersionTLS12 || base.InsecureSkipVerify {
		t.Fatalf("the run's configuration changed: %+v", base)
	}
}

// TestH2SocketError: an h2 request refused at the handshake is a -1 whose
// SocketError says why.
func TestH2SocketError(t *testing.T) {
	t.Parallel()
	s := startTLS(t, true)
	f := mustFactory(t, Options{URL: s.url})
	if res := mustClient(t, f, 0).Do(t.Context()); res.Code != CodeSocketError {
		t.Fatalf("code %d against an unknown authority", res.Code)
	}
	if err := f.SocketError(); err == nil || !strings.Contains(err.Error(), "unknown authority") {
		t.Fatalf("SocketError %v", err)
	}
}
