//go:build accuracy

package accuracy_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/pkg/spec"
)

// TestHTTP3EndToEnd runs the agent's HTTP/3 client against the real
// barrage-echo's HTTP/3 listener over QUIC on loopback.
func TestHTTP3EndToEnd(t *testing.T) {
	cert, key := selfSigned(t)
	a := startEcho(t, "-cert", cert, "-key", key, "-h3-addr", "127.0.0.1:0")
	if a.h3 == "" {
		t.Fatal("barrage-echo did not log an h3 address")
	}
	const calls = 50
	final := load(t, spec.Spec{URL: "https://" + a.h3 + "/?size=100", H3: true, Insecure: true,
		QPS: 200, Connections: 2, Count: calls}, nil)
	if final.Count != calls || final.Errors != 0 || final.Codes[200] != calls {
		t.Fatalf("count %d errors %d codes %v, want %d × 200", final.Count, final.Errors, final.Codes, calls)
	}
	if per := final.Received / final.Count; per < 100+17 {
		t.Fatalf("received %d bytes per size=100 reply over HTTP/3", per)
	}
}

// selfSigned writes a certificate for 127.0.0.1 and its key.
func selfSigned(t *testing.T) (certFile, keyFile string) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "barrage accuracy"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile
}
