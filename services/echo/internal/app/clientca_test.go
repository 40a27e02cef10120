package app

import (
	"crypto/tls"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/barrage-dev/barrage/pkg/testcert"
)

// TestClientCARequiresClientCerts: with -client-ca the TLS listener
// refuses a client without a certificate, or with one the CA did not
// sign, and echoes for a client presenting the CA's certificate.
func TestClientCARequiresClientCerts(t *testing.T) {
	t.Parallel()
	certFile, keyFile, pool := testcert.Write(t)
	a := startApp(t, func(c *Config) { c.CertFile, c.KeyFile, c.ClientCAFile = certFile, keyFile, certFile })
	good, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
	otherCert, otherKey, _ := testcert.Write(t)
	stranger, err := tls.LoadX509KeyPair(otherCert, otherKey)
	if err != nil {
		t.Fatal(err)
	}
	post := func(certs []tls.Certificate) (string, error) {
		client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, Certificates: certs, MinVersion: tls.VersionTLS12}}}
		defer client.CloseIdleConnections()
		resp, err := client.Post("https://"+a.HTTPAddr()+"/", "text/plain", strings.NewReader("mutual"))
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		return string(body), err
	}
	if body, err := post([]tls.Certificate{good}); err != nil || body != "mutual" {
		t.Fatalf("with the CA's client certificate: %q %v, want the echo", body, err)
	}
	for name, certs := range map[string][]tls.Certificate{"no client certificate": nil, "a certificate of another CA": {stranger}} {
		if body, err := post(certs); err == nil {
			t.Errorf("%s: answered %q, want the handshake refused", name, body)
		}
	}

	junk := filepath.Join(t.TempDir(), "junk.pem")
	if err := os.WriteFile(junk, []byte("no PEM here"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := ParseConfig([]string{"-http-addr", "127.0.0.1:0", "-grpc-addr", "", "-tcp-addr", "", "-udp-addr", "",
		"-cert", certFile, "-key", keyFile, "-client-ca", junk}, nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New(cfg, slog.New(slog.DiscardHandler)); err == nil || !strings.Contains(err.Error(), "-client-ca "+junk+": holds no PEM certificate") {
		t.Errorf("a CA file without a certificate: %v", err)
	}
}
