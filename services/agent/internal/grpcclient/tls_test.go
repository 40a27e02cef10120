package grpcclient

import (
	"context"
	"crypto/tls"
	"os"
	"strings"
	"testing"

	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/pkg/testcert"
	"github.com/barrage-dev/barrage/services/agent/internal/tlsconf"
)

// TestTLSSettings: a grpcs:// run's spec.TLSSettings, built by tlsconf as
// the agent does, reach the gRPC connection: the CA verifies the server,
// SNI is the name verified, the client certificate answers an mTLS server,
// and the minimum version is held; an expired certificate is refused
// unless Insecure. Each refusal is a failed call whose
// SocketError says why.
func TestTLSSettings(t *testing.T) {
	t.Parallel()
	certFile, keyFile, pool := testcert.Write(t)
	certPEM, _ := os.ReadFile(certFile)
	keyPEM, _ := os.ReadFile(keyFile)
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	plain := startTestServer(t, serverOptions{cert: &pair}).addr
	// TLS 1.2: the server refuses a missing client certificate within the
	// handshake (with 1.3 the client may finish first and see only a
	// broken pipe on its first write).
	mtls := startTestServer(t, serverOptions{cert: &pair, clientCAs: pool, maxVersion: tls.VersionTLS12}).addr
	tls12 := startTestServer(t, serverOptions{cert: &pair, maxVersion: tls.VersionTLS12}).addr
	ca := string(certPEM)
	oldCert, oldKey, _ := testcert.WriteExpired(t)
	oldPair, err := tls.LoadX509KeyPair(oldCert, oldKey)
	if err != nil {
		t.Fatal(err)
	}
	expired := startTestServer(t, serverOptions{cert: &oldPair}).addr
	oldCA, _ := os.ReadFile(oldCert)
	tests := []struct {
		name     string
		addr     string
		insecure bool
		tls      *spec.TLSSettings
		want     int32
		sockErr  string // in SocketError; "" when none
	}{
		{name: "system roots", addr: plain, want: CodeError, sockErr: "certificate signed by unknown authority"},
		{name: "insecure", addr: plain, insecure: true, want: CodeServing},
		{name: "ca", addr: plain, tls: &spec.TLSSettings{CACert: ca}, want: CodeServing},
		{name: "ca and sni", addr: plain, tls: &spec.TLSSettings{CACert: ca, ServerName: "localhost"}, want: CodeServing},
		{name: "sni not in the certificate", addr: plain, tls: &spec.TLSSettings{CACert: ca, ServerName: "other.test"}, want: CodeError, sockErr: "other.test"},
		{name: "mtls without a client certificate", addr: mtls, tls: &spec.TLSSettings{CACert: ca}, want: CodeError, sockErr: "remote error: tls: handshake failure"},
		{name: "mtls", addr: mtls, tls: &spec.TLSSettings{CACert: ca, ClientCert: ca, ClientKey: string(keyPEM)}, want: CodeServing},
		{name: "min 1.3 against a 1.2 server", addr: tls12, tls: &spec.TLSSettings{CACert: ca, MinVersion: "1.3"}, want: CodeError, sockErr: "protocol version"},
		{name: "expired", addr: expired, tls: &spec.TLSSettings{CACert: string(oldCA)}, want: CodeError, sockErr: "expired"},
		{name: "expired, insecure", addr: expired, insecure: true, want: CodeServing},
		{name: "min 1.2 against a 1.2 server", addr: tls12, tls: &spec.TLSSettings{CACert: ca, MinVersion: "1.2"}, want: CodeServing},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := spec.Spec{URL: "grpcs://" + tt.addr, Insecure: tt.insecure, TLSSettings: tt.tls}
			cfg, err := tlsconf.Config(s)
			if err != nil {
				t.Fatal(err)
			}
			f, c := mustClient(t, Options{Target: tt.addr, TLS: true, Insecure: tt.insecure, TLSConfig: cfg, Mode: ModePing})
			res := c.Do(context.Background())
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

// TestTLSConfigIsACopy: the factory applies Insecure to a copy, so the
// run's shared configuration stays as tlsconf built it.
func TestTLSConfigIsACopy(t *testing.T) {
	t.Parallel()
	base := &tls.Config{MinVersion: tls.VersionTLS13, ServerName: "sni.test"}
	o := Options{TLSConfig: base, Insecure: true}
	got := o.tlsConfig()
	if !got.InsecureSkipVerify || got.MinVersion != tls.VersionTLS13 || got.ServerName != "sni.test" || base.InsecureSkipVerify {
		t.Fatalf("copy %+v, base verification off: %v", got, base.InsecureSkipVerify)
	}
	if d := (&Options{}).tlsConfig(); d.MinVersion != tls.VersionTLS12 || d.InsecureSkipVerify {
		t.Fatalf("defaults %+v", d)
	}
}
