package app

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
)

// requireClientCerts makes cfg ask every client for a certificate and
// refuse the handshake unless one of caFile's certificates signed it
// (-client-ca, for testing mTLS clients); an empty caFile leaves cfg alone.
func requireClientCerts(cfg *tls.Config, caFile string) error {
	if caFile == "" {
		return nil
	}
	pem, err := os.ReadFile(caFile) //nolint:gosec // the path is the operator's own flag
	if err != nil {
		return fmt.Errorf("-client-ca: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return fmt.Errorf("-client-ca %s: holds no PEM certificate", caFile)
	}
	cfg.ClientCAs, cfg.ClientAuth = pool, tls.RequireAndVerifyClientCert
	return nil
}
