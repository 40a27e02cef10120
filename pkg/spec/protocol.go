package spec

import (
	"net"
	"net/url"
	"strings"
)

// Protocol is the protocol family of a spec, derived from its URL scheme.
type Protocol string

// Protocols.
const (
	// ProtocolUnknown is the protocol of a URL that does not parse or has an
	// unsupported scheme.
	ProtocolUnknown Protocol = ""
	// ProtocolHTTP is HTTP/1.1 or HTTP/2: http://, https:// and h2c://.
	ProtocolHTTP Protocol = "http"
	// ProtocolGRPC is gRPC: grpc:// and grpcs://.
	ProtocolGRPC Protocol = "grpc"
	// ProtocolTCP is a TCP echo round trip: tcp://.
	ProtocolTCP Protocol = "tcp"
	// ProtocolUDP is a UDP echo round trip: udp://.
	ProtocolUDP Protocol = "udp"
)

// String returns the protocol's name, or "unknown".
func (p Protocol) String() string {
	if p == ProtocolUnknown {
		return "unknown"
	}
	return string(p)
}

// schemeProtocol maps a URL scheme to its protocol and whether it uses TLS.
func schemeProtocol(scheme string) (p Protocol, tls bool) {
	switch scheme {
	case "http", "h2c":
		return ProtocolHTTP, false
	case "https":
		return ProtocolHTTP, true
	case "grpc":
		return ProtocolGRPC, false
	case "grpcs":
		return ProtocolGRPC, true
	case "tcp":
		return ProtocolTCP, false
	case "udp":
		return ProtocolUDP, false
	default:
		return ProtocolUnknown, false
	}
}

// parsedURL parses s.URL; it returns nil when the URL does not parse.
func (s Spec) parsedURL() *url.URL {
	u, err := url.Parse(s.URL)
	if err != nil {
		return nil
	}
	return u
}

// Protocol returns the protocol family of the URL's scheme, or
// ProtocolUnknown when the URL does not parse or its scheme is unsupported.
func (s Spec) Protocol() Protocol {
	u := s.parsedURL()
	if u == nil {
		return ProtocolUnknown
	}
	p, _ := schemeProtocol(u.Scheme)
	return p
}

// TLS reports whether the target is reached over TLS (https://, grpcs://).
func (s Spec) TLS() bool {
	u := s.parsedURL()
	if u == nil {
		return false
	}
	_, tls := schemeProtocol(u.Scheme)
	return tls
}

// HTTP3 reports whether an HTTP spec is sent over HTTP/3 (QUIC): https://
// with H3.
func (s Spec) HTTP3() bool {
	u := s.parsedURL()
	return u != nil && u.Scheme == "https" && s.H3
}

// HTTP2 reports whether an HTTP spec is sent over HTTP/2: h2c:// (cleartext,
// prior knowledge) or https:// with H2 (or tls.alpn h2). It is false for every other protocol,
// gRPC included (which is always HTTP/2 under the hood).
func (s Spec) HTTP2() bool {
	u := s.parsedURL()
	if u == nil {
		return false
	}
	return u.Scheme == "h2c" || (u.Scheme == "https" && (s.H2 || s.alpnH2()))
}

// Target returns the host:port to dial. For HTTP URLs without a port it adds
// the scheme's default (443 for https, 80 otherwise). It returns "" when the
// URL does not parse, has an unsupported scheme or has no host.
func (s Spec) Target() string {
	u := s.parsedURL()
	if u == nil || u.Host == "" {
		return ""
	}
	p, tls := schemeProtocol(u.Scheme)
	switch {
	case p == ProtocolUnknown:
		return ""
	case u.Port() != "" || p != ProtocolHTTP:
		return u.Host
	case tls:
		return net.JoinHostPort(u.Hostname(), "443")
	default:
		return net.JoinHostPort(u.Hostname(), "80")
	}
}

// DialTarget returns the network and address the agent connects to:
// "unix" and the socket path with UnixSocket, else "udp" or "tcp" and
// Target().
func (s Spec) DialTarget() (network, addr string) {
	switch {
	case s.UnixSocket != "":
		return "unix", s.UnixSocket
	case s.Protocol() == ProtocolUDP:
		return "udp", s.Target()
	default:
		return "tcp", s.Target()
	}
}

// HTTPURL returns the URL an HTTP client requests: the spec's URL with an
// h2c:// scheme turned into http://. Other URLs are returned unchanged.
func (s Spec) HTTPURL() string {
	if rest, ok := cutPrefixFold(s.URL, "h2c://"); ok {
		return "http://" + rest
	}
	return s.URL
}

// cutPrefixFold is strings.CutPrefix with an ASCII case-insensitive prefix.
func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) < len(prefix) || !strings.EqualFold(s[:len(prefix)], prefix) {
		return s, false
	}
	return s[len(prefix):], true
}
