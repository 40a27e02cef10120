// Package testcert makes self-signed TLS certificates for tests that run
// real TLS servers on loopback (barrage-echo with -cert/-key, HTTP/3, gRPC
// over TLS). It is for tests only: the keys are weak-lived and on disk in
// the test's temporary directory.
package testcert

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
)

// Write makes a certificate for 127.0.0.1 (and localhost), good for a
// server or a client (mTLS), valid for an
// hour around now, writes it and its key as PEM files in a temporary
// directory of tb, and returns their paths and a pool that trusts it.
func Write(tb testing.TB) (certFile, keyFile string, pool *x509.CertPool) {
	tb.Helper()
	return write(tb, time.Now().Add(-time.Hour), time.Now().Add(time.Hour))
}

// WriteExpired is Write with a certificate that expired an hour ago, for
// the tests of what a client says about it.
func WriteExpired(tb testing.TB) (certFile, keyFile string, pool *x509.CertPool) {
	tb.Helper()
	return write(tb, time.Now().Add(-2*time.Hour), time.Now().Add(-time.Hour))
}

func write(tb testing.TB, notBefore, notAfter time.Time) (certFile, keyFile string, pool *x509.CertPool) {
	tb.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "barrage test"},
		NotBefore: notBefore, NotAfter: notAfter,
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, DNSNames: []string{"localhost"},
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, IsCA: true, BasicConstraintsValid: true,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		tb.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		tb.Fatal(err)
	}
	dir := tb.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		tb.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		tb.Fatal(err)
	}
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

// Read returns the text of a PEM file Write wrote, for a spec's tls
// fields, which take PEM text.
func Read(tb testing.TB, name string) string {
	tb.Helper()
	b, err := os.ReadFile(name) //nolint:gosec // a file of this test's temporary directory
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}
