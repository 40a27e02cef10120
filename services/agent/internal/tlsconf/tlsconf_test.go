package tlsconf

import (
	"crypto/tls"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/pkg/testcert"
)

func TestConfig(t *testing.T) {
	t.Parallel()
	certFile, keyFile, _ := testcert.Write(t)
	cert, _ := os.ReadFile(certFile)
	key, _ := os.ReadFile(keyFile)
	cfg, err := Config(spec.Spec{})
	if err != nil || cfg.InsecureSkipVerify || cfg.MinVersion != tls.VersionTLS12 || cfg.ClientSessionCache == nil || cfg.RootCAs != nil {
		t.Fatalf("defaults: %+v %v", cfg, err)
	}
	cfg, err = Config(spec.Spec{Insecure: true, TLSSettings: &spec.TLSSettings{
		CACert: string(cert), ClientCert: string(cert), ClientKey: string(key), ServerName: "sni.test", MinVersion: "1.3", NoResumption: true,
	}})
	if err != nil || !cfg.InsecureSkipVerify || cfg.MinVersion != tls.VersionTLS13 || cfg.ClientSessionCache != nil ||
		!cfg.SessionTicketsDisabled || cfg.RootCAs == nil || len(cfg.Certificates) != 1 || cfg.ServerName != "sni.test" {
		t.Fatalf("settings: %+v %v", cfg, err)
	}
	for _, tt := range []struct {
		tls  spec.TLSSettings
		want string
	}{
		{spec.TLSSettings{ClientCert: string(cert), ClientKey: spec.RedactedValue}, "tls.client_key: is redacted"},
		{spec.TLSSettings{CACert: spec.RedactedValue}, "tls.ca_cert: is redacted"},
		{spec.TLSSettings{CACert: "junk"}, "tls.ca_cert: holds no PEM"},
		{spec.TLSSettings{ClientCert: string(cert), ClientKey: string(cert)}, "tls.client_key:"},
		{spec.TLSSettings{MinVersion: "2"}, "tls.min_version"},
	} {
		if _, err := Config(spec.Spec{TLSSettings: &tt.tls}); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: %v, want %q", tt.tls, err, tt.want)
		}
	}
}

// TestCurvesOnTheWire: tls.curves is what the ClientHello offers, in its
// order, and the group the server then picks; without it Go's defaults
// lead with the hybrid post-quantum group.
func TestCurvesOnTheWire(t *testing.T) {
	t.Parallel()
	certFile, keyFile, _ := testcert.Write(t)
	pair, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
	type seen struct {
		offered []tls.CurveID
		chosen  tls.CurveID
	}
	hellos := make(chan []tls.CurveID, 1)
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{
		Certificates: []tls.Certificate{pair},
		GetConfigForClient: func(h *tls.ClientHelloInfo) (*tls.Config, error) {
			hellos <- h.SupportedCurves
			return nil, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	handshake := func(settings *spec.TLSSettings) seen {
		t.Helper()
		cfg, err := Config(spec.Spec{Insecure: true, TLSSettings: settings})
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan tls.CurveID, 1)
		go func() {
			c, err := ln.Accept()
			if err != nil {
				done <- 0
				return
			}
			defer c.Close()
			tc := c.(*tls.Conn)
			if tc.Handshake() != nil {
				done <- 0
				return
			}
			done <- tc.ConnectionState().CurveID
		}()
		conn, err := tls.Dial("tcp", ln.Addr().String(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		return seen{<-hellos, <-done}
	}
	got := handshake(&spec.TLSSettings{Curves: []string{"X25519", "P-256"}})
	if !slices.Equal(got.offered, []tls.CurveID{tls.X25519, tls.CurveP256}) || got.chosen != tls.X25519 {
		t.Errorf("curves X25519,P-256: offered %v, chose %v", got.offered, got.chosen)
	}
	got = handshake(&spec.TLSSettings{Curves: []string{"P-384"}})
	if !slices.Equal(got.offered, []tls.CurveID{tls.CurveP384}) || got.chosen != tls.CurveP384 {
		t.Errorf("curves P-384: offered %v, chose %v", got.offered, got.chosen)
	}
	got = handshake(nil)
	if len(got.offered) < 2 || got.offered[0] != tls.X25519MLKEM768 || got.chosen != tls.X25519MLKEM768 {
		t.Errorf("defaults: offered %v, chose %v; want X25519MLKEM768 first and chosen", got.offered, got.chosen)
	}
	if _, err := Config(spec.Spec{TLSSettings: &spec.TLSSettings{Curves: []string{"x448"}}}); err == nil || !strings.Contains(err.Error(), `tls.curves: unknown key exchange group "x448"`) {
		t.Errorf("unknown group: %v", err)
	}
}
