package spec

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// TLSSettings are the TLS options of an https:// or grpcs:// run (HTTP/1.1,
// h2, h3 and gRPC) beyond Insecure:
// Fortio's -cacert, -cert and -key, an SNI override, the ALPN protocol and
// the minimum version (ALPN is fixed for gRPC and HTTP/3, and HTTP/3 is
// always TLS 1.3). Certificates and keys are PEM text, not file names:
// the agent CLI reads its -cacert, -cert and -key files into them. The
// client certificate and key are secrets: Redacted replaces them, so a
// spec with them is sealed at rest like one with secret headers.
type TLSSettings struct {
	// CACert is the PEM of the certificates that verify the server, instead
	// of the system's roots.
	CACert string `json:"ca_cert,omitempty"`
	// ClientCert is the PEM of the client certificate chain sent for mTLS;
	// it needs ClientKey.
	ClientCert string `json:"client_cert,omitempty"`
	// ClientKey is the PEM of ClientCert's private key.
	ClientKey string `json:"client_key,omitempty"`
	// ServerName is the name sent in SNI and verified in the server's
	// certificate; default the URL's host.
	ServerName string `json:"server_name,omitempty"`
	// ALPN is the protocol offered: "http/1.1" (the default) or "h2" (the
	// same as H2).
	ALPN string `json:"alpn,omitempty"`
	// MinVersion is the lowest TLS version accepted: "1.0", "1.1", "1.2"
	// (the default) or "1.3".
	MinVersion string `json:"min_version,omitempty"`
	// NoResumption turns TLS session resumption off, so every new
	// connection makes a full handshake; it is on by default.
	NoResumption bool `json:"no_resumption,omitempty"`
	// Curves are the key exchange groups offered, most preferred first
	// (TLSCurve names them; curl's --curves, openssl's -groups). Empty
	// offers Go's defaults, which lead with the hybrid post-quantum
	// X25519MLKEM768 as browsers do; fortio's releases offer X25519 and
	// the NIST curves only, and a new connection then costs less CPU.
	Curves []string `json:"curves,omitempty"`
}

// TLSCurveNames lists the names of TLSSettings.Curves, in Go's order of
// preference: IANA's TLS group names, with the NIST curves as curl and
// openssl spell them.
func TLSCurveNames() []string {
	return []string{"X25519MLKEM768", "SecP256r1MLKEM768", "SecP384r1MLKEM1024", "X25519", "P-256", "P-384", "P-521"}
}

// TLSCurve returns the crypto/tls identifier of a TLSSettings.Curves name.
func TLSCurve(name string) (tls.CurveID, bool) {
	switch name {
	case "X25519MLKEM768":
		return tls.X25519MLKEM768, true
	case "SecP256r1MLKEM768":
		return tls.SecP256r1MLKEM768, true
	case "SecP384r1MLKEM1024":
		return tls.SecP384r1MLKEM1024, true
	case "X25519":
		return tls.X25519, true
	case "P-256":
		return tls.CurveP256, true
	case "P-384":
		return tls.CurveP384, true
	case "P-521":
		return tls.CurveP521, true
	}
	return 0, false
}

// ALPN protocols of TLSSettings.ALPN.
const (
	ALPNHTTP11 = "http/1.1"
	ALPNH2     = "h2"
)

// TLSVersion returns the crypto/tls constant of a TLSSettings.MinVersion;
// "" gives TLS 1.2.
func TLSVersion(v string) (uint16, bool) {
	switch v {
	case "", "1.2":
		return tls.VersionTLS12, true
	case "1.0":
		return tls.VersionTLS10, true
	case "1.1":
		return tls.VersionTLS11, true
	case "1.3":
		return tls.VersionTLS13, true
	}
	return 0, false
}

// alpnH2 reports whether the spec's TLS settings ask for h2.
func (s Spec) alpnH2() bool { return s.TLSSettings != nil && s.TLSSettings.ALPN == ALPNH2 }

// validateTLS checks tls; u is the parsed URL or nil when it is invalid.
func (s Spec) validateTLS(p *problems, u *url.URL) {
	t := s.TLSSettings
	if t == nil {
		return
	}
	if u != nil && u.Scheme != "https" && u.Scheme != "grpcs" {
		p.add("tls", "only applies to https and grpcs URLs")
	}
	if u != nil && u.Scheme == "https" && s.FollowRedirects {
		p.add("tls", "cannot be combined with follow_redirects")
	}
	s.validateALPN(p, t.ALPN, u != nil && u.Scheme == "grpcs")
	validateTLSFields(p, t)
}

// validateScenarioTLS checks the tls of a scenario run, which applies to
// its https:// steps; each step chooses its protocol, so ALPN is not set.
func (s Spec) validateScenarioTLS(p *problems) {
	t := s.TLSSettings
	if t == nil {
		return
	}
	https := false
	for i := range s.Scenario.Steps {
		scheme, _, err := StepTarget(s.Scenario.Steps[i].URL)
		https = https || (err == nil && (scheme == "https" || scheme == "grpcs"))
	}
	if !https {
		p.add("tls", "applies to a scenario's https:// and grpcs:// steps, and it has none")
	}
	if t.ALPN != "" {
		p.add("tls.alpn", "a scenario's steps choose their protocol: set scenario.steps[i].protocol to h2 or http/1.1")
	}
	validateTLSFields(p, t)
}

// validateTLSFields checks the certificates, server name and version of t.
func validateTLSFields(p *problems, t *TLSSettings) {
	if t.CACert != "" && t.CACert != RedactedValue {
		if !x509.NewCertPool().AppendCertsFromPEM([]byte(t.CACert)) {
			p.add("tls.ca_cert", "holds no PEM certificate")
		}
	}
	validateClientCert(p, t)
	if len(t.ServerName) > 253 || strings.ContainsAny(t.ServerName, " /:\r\n\t") {
		p.add("tls.server_name", "must be a host name of at most 253 characters")
	}
	if _, ok := TLSVersion(t.MinVersion); !ok {
		p.add("tls.min_version", "must be 1.0, 1.1, 1.2 or 1.3")
	}
	validateCurves(p, t.Curves)
}

// validateCurves checks tls.curves: known names, each once.
func validateCurves(p *problems, curves []string) {
	names := TLSCurveNames()
	if len(curves) > len(names) {
		p.add("tls.curves", "lists %d groups; there are %d", len(curves), len(names))
		return
	}
	for i, c := range curves {
		field := fmt.Sprintf("tls.curves[%d]", i)
		if _, ok := TLSCurve(c); !ok {
			p.add(field, "%q is not a key exchange group: want one of %s", c, strings.Join(names, ", "))
		} else if slices.Contains(curves[:i], c) {
			p.add(field, "%q is listed twice", c)
		}
	}
}

// validateALPN checks tls.alpn: HTTP/1.1 and h2 choose it; gRPC (grpcs)
// and HTTP/3 have theirs set by the protocol.
func (s Spec) validateALPN(p *problems, alpn string, grpcs bool) {
	switch {
	case alpn == "":
	case grpcs:
		p.add("tls.alpn", "is h2 for gRPC, set by the protocol")
	case s.H3:
		p.add("tls.alpn", "is h3 for HTTP/3, set by the protocol")
	case alpn == ALPNH2:
	case alpn == ALPNHTTP11:
		if s.H2 {
			p.add("tls.alpn", "is http/1.1 but h2 is set")
		}
	default:
		p.add("tls.alpn", "must be h2 or http/1.1")
	}
}

// validateClientCert checks that the client certificate and key come
// together and match; redacted values pass, as a redacted spec stays valid
// (the agent refuses to run them).
func validateClientCert(p *problems, t *TLSSettings) {
	switch {
	case t.ClientCert == "" && t.ClientKey == "":
		return
	case t.ClientCert == "":
		p.add("tls.client_cert", "is required with tls.client_key")
		return
	case t.ClientKey == "":
		p.add("tls.client_key", "is required with tls.client_cert")
		return
	case t.ClientCert == RedactedValue || t.ClientKey == RedactedValue:
		return
	}
	if b, _ := pem.Decode([]byte(t.ClientCert)); b == nil || b.Type != "CERTIFICATE" {
		p.add("tls.client_cert", "holds no PEM certificate")
		return
	}
	if b, _ := pem.Decode([]byte(t.ClientKey)); b == nil || !strings.HasSuffix(b.Type, "PRIVATE KEY") {
		p.add("tls.client_key", "holds no PEM private key")
		return
	}
	if _, err := tls.X509KeyPair([]byte(t.ClientCert), []byte(t.ClientKey)); err != nil {
		p.add("tls.client_key", "does not match tls.client_cert: %s", strings.TrimPrefix(err.Error(), "tls: "))
	}
}

// redactTLS replaces the client certificate and key of t (a copy) by
// RedactedValue.
func redactTLS(t *TLSSettings) *TLSSettings {
	if t == nil {
		return nil
	}
	c := *t
	if c.ClientCert != "" {
		c.ClientCert = RedactedValue
	}
	if c.ClientKey != "" {
		c.ClientKey = RedactedValue
	}
	return &c
}
