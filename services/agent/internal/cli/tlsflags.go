package cli

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/barrage-dev/barrage/pkg/spec"
)

// tlsFlags are Fortio's TLS client flags (-cacert, -cert, -key, -k and
// -https-insecure) and Barrage's SNI, ALPN, minimum version and
// resumption switches.
type tlsFlags struct {
	caCert, cert, key string
	sni, alpn, minVer string
	curves            string
	noResumption      bool
	httpsInsecure     bool
}

// addTLSFlags adds the TLS flags; -k is in newLoadFlagSet.
func addTLSFlags(fs *flag.FlagSet, t *tlsFlags) {
	fs.BoolVar(&t.httpsInsecure, "https-insecure", false, "the same as -k: do not verify TLS certificates")
	fs.StringVar(&t.caCert, "cacert", "", "verify the server with the CA certificates of this PEM file instead of the system's")
	fs.StringVar(&t.cert, "cert", "", "client certificate PEM file for mTLS (needs -key)")
	fs.StringVar(&t.key, "key", "", "client private key PEM file matching -cert")
	fs.StringVar(&t.sni, "sni", "", "TLS server name to send and verify (default the URL's host)")
	fs.StringVar(&t.alpn, "alpn", "", "protocol offered over TLS: http/1.1 (default) or h2 (the same as -h2)")
	fs.StringVar(&t.minVer, "tls-min", "", "lowest TLS version accepted: 1.0, 1.1, 1.2 (default) or 1.3")
	fs.BoolVar(&t.noResumption, "no-tls-resumption", false, "turn TLS session resumption off: every new connection makes a full handshake")
	fs.StringVar(&t.curves, "curves", "", "key exchange groups to offer, comma-separated, most preferred first: "+strings.Join(spec.TLSCurveNames(), ", ")+
		" (default Go's, led by X25519MLKEM768; fortio offers X25519 and the NIST curves)")
}

// settings reads the files named by the flags into the spec's TLS
// settings; nil when no TLS flag beyond -k is given.
func (t *tlsFlags) settings() (*spec.TLSSettings, error) {
	if *t == (tlsFlags{httpsInsecure: t.httpsInsecure}) {
		return nil, nil
	}
	s := &spec.TLSSettings{ServerName: t.sni, ALPN: t.alpn, MinVersion: t.minVer, NoResumption: t.noResumption}
	if t.curves != "" {
		s.Curves = strings.Split(t.curves, ",")
	}
	for _, file := range []struct {
		flag, name string
		into       *string
	}{{"-cacert", t.caCert, &s.CACert}, {"-cert", t.cert, &s.ClientCert}, {"-key", t.key, &s.ClientKey}} {
		if file.name == "" {
			continue
		}
		b, err := os.ReadFile(file.name)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file.flag, err)
		}
		*file.into = string(b)
	}
	return s, nil
}

// withTLSFlags names the flag beside every tls field of a validation
// error: "tls.client_key (-key): does not match tls.client_cert".
func withTLSFlags(err error) error {
	ve, ok := errors.AsType[*spec.ValidationError](err)
	if !ok {
		return err
	}
	out := &spec.ValidationError{Errors: slices.Clone(ve.Errors)}
	for i, fe := range out.Errors {
		base, _, _ := strings.Cut(fe.Field, "[") // tls.curves[1] is -curves
		if name := tlsFlagName(base); name != "" {
			out.Errors[i].Field = fe.Field + " (" + name + ")"
		}
	}
	return out
}

// tlsFlagName is the flag that sets a tls field (or connection_reuse)
// of the spec, or "".
func tlsFlagName(field string) string {
	switch field {
	case "tls":
		return "-cacert/-cert/-key/-sni/-alpn/-tls-min/-no-tls-resumption/-curves"
	case "tls.ca_cert":
		return "-cacert"
	case "tls.client_cert":
		return "-cert"
	case "tls.client_key":
		return "-key"
	case "tls.server_name":
		return "-sni"
	case "tls.alpn":
		return "-alpn"
	case "tls.min_version":
		return "-tls-min"
	case "tls.curves":
		return "-curves"
	case "connection_reuse":
		return "-connection-reuse"
	}
	return ""
}
