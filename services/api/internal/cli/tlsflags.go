package cli

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"net/url"
	"strings"

	"github.com/barrage-dev/barrage/pkg/spec"
)

// tlsFlags are the TLS flags of `barrage-agent load`
// (services/agent/internal/cli/tlsflags.go) on `barrage run`, with the
// same names and meanings. They set the spec's tls object; the CLI reads
// the -cacert, -cert and -key files and sends their PEM inline, as the API
// cannot read the CI machine's files.
type tlsFlags struct {
	httpsInsecure     bool
	caCert, cert, key string
	sni, alpn, minVer string
	curves            string
	noResumption      bool
}

// tlsFlagNames returns the flag names register defines.
func tlsFlagNames() []string {
	return []string{"https-insecure", "cacert", "cert", "key", "sni", "alpn", "tls-min", "no-tls-resumption", "curves"}
}

func (t *tlsFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&t.httpsInsecure, "https-insecure", false, "the same as -k: do not verify the target's TLS certificate")
	fs.StringVar(&t.caCert, "cacert", "", "verify the target with the CA certificates of this PEM file instead of the system's (sent inline)")
	fs.StringVar(&t.cert, "cert", "", "client certificate PEM file for mTLS (needs -key; sent inline, sealed at rest)")
	fs.StringVar(&t.key, "key", "", "client private key PEM file matching -cert (sent inline, sealed at rest)")
	fs.StringVar(&t.sni, "sni", "", "TLS server name to send and verify (default the URL's host)")
	fs.StringVar(&t.alpn, "alpn", "", "protocol offered over TLS: http/1.1 (default) or h2 (the same as -h2); not for gRPC")
	fs.StringVar(&t.minVer, "tls-min", "", "lowest TLS version accepted: 1.0, 1.1, 1.2 (default) or 1.3")
	fs.BoolVar(&t.noResumption, "no-tls-resumption", false, "turn TLS session resumption off: every new connection makes a full handshake")
	fs.StringVar(&t.curves, "curves", "", "key exchange groups to offer, comma-separated, most preferred first: "+strings.Join(spec.TLSCurveNames(), ", ")+" (default Go's)")
}

// check refuses, before any file is read, what the flags alone say is
// wrong; grpc is whether -grpc or -ping is given.
func (t *tlsFlags) check(set map[string]bool, grpc, h2 bool) error {
	switch {
	case set["cert"] && !set["key"]:
		return errors.New("-cert needs -key, the certificate's private key")
	case set["key"] && !set["cert"]:
		return errors.New("-key needs -cert, the client certificate it belongs to")
	}
	if set["tls-min"] {
		if _, ok := spec.TLSVersion(t.minVer); !ok || t.minVer == "" {
			return fmt.Errorf("-tls-min %q: want 1.0, 1.1, 1.2 or 1.3", t.minVer)
		}
	}
	if set["curves"] {
		for c := range strings.SplitSeq(t.curves, ",") {
			if _, ok := spec.TLSCurve(c); !ok {
				return fmt.Errorf("-curves: %q is not a key exchange group: want one of %s", c, strings.Join(spec.TLSCurveNames(), ", "))
			}
		}
	}
	if set["alpn"] {
		switch {
		case grpc:
			return errors.New("-alpn does not apply to gRPC: its protocol is always h2")
		case t.alpn != spec.ALPNH2 && t.alpn != spec.ALPNHTTP11:
			return fmt.Errorf("-alpn %q: want h2 or http/1.1", t.alpn)
		case t.alpn == spec.ALPNHTTP11 && h2:
			return errors.New("-alpn http/1.1 and -h2 exclude each other")
		}
	}
	return nil
}

// apply sets the fields of sp's tls object (kept from a --spec file) that
// the given flags name, reading and checking the PEM files.
func (t *tlsFlags) apply(sp map[string]any, set map[string]bool) error {
	if set["alpn"] && isGRPC(sp) {
		return errors.New("-alpn does not apply to gRPC: its protocol is always h2")
	}
	fields := map[string]any{}
	if set["cacert"] {
		ca, err := readFlagFile("-cacert", t.caCert)
		if err != nil {
			return err
		}
		if !x509.NewCertPool().AppendCertsFromPEM(ca) {
			return fmt.Errorf("-cacert %s: holds no PEM certificate", t.caCert)
		}
		fields["ca_cert"] = string(ca)
	}
	if set["cert"] {
		cert, key, err := t.clientPair()
		if err != nil {
			return err
		}
		fields["client_cert"], fields["client_key"] = string(cert), string(key)
	}
	if set["sni"] {
		fields["server_name"] = t.sni
	}
	if set["alpn"] {
		fields["alpn"] = t.alpn
	}
	if set["tls-min"] {
		fields["min_version"] = t.minVer
	}
	if set["no-tls-resumption"] {
		fields["no_resumption"] = t.noResumption
	}
	if set["curves"] {
		fields["curves"] = strings.Split(t.curves, ",")
	}
	if len(fields) == 0 {
		return nil
	}
	tl, _ := sp["tls"].(map[string]any)
	if tl == nil {
		tl = map[string]any{}
	}
	for k, v := range fields {
		tl[k] = v
	}
	sp["tls"] = tl
	return nil
}

// clientPair reads -cert and -key (check made sure both are given) and
// checks that the key is the certificate's, as the API would.
func (t *tlsFlags) clientPair() (cert, key []byte, err error) {
	if cert, err = readFlagFile("-cert", t.cert); err != nil {
		return nil, nil, err
	}
	if key, err = readFlagFile("-key", t.key); err != nil {
		return nil, nil, err
	}
	if b, _ := pem.Decode(cert); b == nil || b.Type != "CERTIFICATE" {
		return nil, nil, fmt.Errorf("-cert %s: holds no PEM certificate", t.cert)
	}
	if b, _ := pem.Decode(key); b == nil || !strings.HasSuffix(b.Type, "PRIVATE KEY") {
		return nil, nil, fmt.Errorf("-key %s: holds no PEM private key", t.key)
	}
	if _, err := tls.X509KeyPair(cert, key); err != nil {
		return nil, nil, fmt.Errorf("-key %s does not match -cert %s: %s", t.key, t.cert, strings.TrimPrefix(err.Error(), "tls: "))
	}
	return cert, key, nil
}

// isGRPC reports whether sp (a RunSpec as decoded JSON) is a gRPC run: a
// grpc:// or grpcs:// URL, or a grpc object.
func isGRPC(sp map[string]any) bool {
	if sp["grpc"] != nil {
		return true
	}
	s, _ := sp["url"].(string)
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "grpc" || u.Scheme == "grpcs")
}
