// Package tlsconf builds the TLS client configuration of an https:// or
// grpcs:// run from its spec (Insecure and spec.TLSSettings): the roots
// that verify the server, the client certificate for mTLS, SNI, the
// minimum version, the key exchange groups and the session cache. The protocol clients (httpclient,
// h2client for h2 and HTTP/3, grpcclient) add their ALPN protocol to it;
// HTTP/3 raises the minimum to TLS 1.3.
package tlsconf

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"

	"github.com/barrage-dev/barrage/pkg/spec"
)

// sessionCacheSize is the number of sessions a run keeps for resumption:
// one target, so a few entries are plenty.
const sessionCacheSize = 64

// Config returns the TLS client configuration of s; every connection of
// the run shares it (and its session cache). Verification is on unless
// s.Insecure.
func Config(s spec.Spec) (*tls.Config, error) {
	cfg := &tls.Config{
		InsecureSkipVerify: s.Insecure, //nolint:gosec // the user asked for -k
		MinVersion:         tls.VersionTLS12,
		ClientSessionCache: tls.NewLRUClientSessionCache(sessionCacheSize),
	}
	t := s.TLSSettings
	if t == nil {
		return cfg, nil
	}
	v, ok := spec.TLSVersion(t.MinVersion)
	if !ok {
		return nil, fmt.Errorf("tls.min_version: unknown version %q", t.MinVersion)
	}
	cfg.MinVersion = v
	cfg.ServerName = t.ServerName
	for _, name := range t.Curves {
		id, ok := spec.TLSCurve(name)
		if !ok {
			return nil, fmt.Errorf("tls.curves: unknown key exchange group %q", name)
		}
		cfg.CurvePreferences = append(cfg.CurvePreferences, id)
	}
	if t.NoResumption {
		cfg.ClientSessionCache = nil
		cfg.SessionTicketsDisabled = true
	}
	if t.CACert != "" {
		if t.CACert == spec.RedactedValue {
			return nil, errors.New("tls.ca_cert: is redacted")
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM([]byte(t.CACert)) {
			return nil, errors.New("tls.ca_cert: holds no PEM certificate")
		}
		cfg.RootCAs = pool
	}
	if t.ClientCert != "" || t.ClientKey != "" {
		if t.ClientCert == spec.RedactedValue || t.ClientKey == spec.RedactedValue {
			return nil, errors.New("tls.client_key: is redacted (the run's sealed spec was not opened)")
		}
		pair, err := tls.X509KeyPair([]byte(t.ClientCert), []byte(t.ClientKey))
		if err != nil {
			return nil, fmt.Errorf("tls.client_key: %w", err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	return cfg, nil
}
