package spec

import (
	"net/url"
	"path"
	"strings"
)

// validateHTTPOptions checks the HTTP client options of issue #14
// (http10, compression, unix_socket, max_requests_per_connection,
// follow_redirects) and burst; u is the parsed URL or nil when it is
// invalid.
func (s Spec) validateHTTPOptions(p *problems, u *url.URL) {
	s.validateBurst(p)
	if u == nil {
		if s.UnixSocket != "" {
			checkUnixSocket(p, s.UnixSocket)
		}
		return
	}
	proto, _ := schemeProtocol(u.Scheme)
	const httpOnly = "only applies to http, https and h2c URLs"
	// HTTP/1.1 means the agent's own client: not h2 or h3, and not the
	// standard library's client that follow_redirects uses.
	h11 := proto == ProtocolHTTP && !s.HTTP2() && !s.HTTP3()
	switch {
	case !s.HTTP10:
	case proto != ProtocolHTTP:
		p.add("http10", httpOnly)
	case !h11:
		p.add("http10", "only applies to HTTP/1.x: not with h2, h3 or an h2c:// URL")
	case s.FollowRedirects:
		p.add("http10", "cannot be combined with follow_redirects")
	}
	if s.Compression && proto != ProtocolHTTP {
		p.add("compression", httpOnly)
	}
	if s.FollowRedirects && proto != ProtocolHTTP {
		p.add("follow_redirects", httpOnly)
	}
	switch {
	case s.MaxRequestsPerConnection == 0:
	case s.MaxRequestsPerConnection < 0 || s.MaxRequestsPerConnection > MaxCount:
		p.add("max_requests_per_connection", "must be from 0 (no limit) to %d", MaxCount)
	case !h11:
		p.add("max_requests_per_connection", "only applies to HTTP/1.1: http and https URLs without h2 or h3")
	case s.FollowRedirects:
		p.add("max_requests_per_connection", "cannot be combined with follow_redirects")
	}
	s.validateConnectionReuse(p, h11)
	if s.UnixSocket == "" {
		return
	}
	switch {
	case proto != ProtocolHTTP:
		p.add("unix_socket", httpOnly)
	case s.HTTP3():
		p.add("unix_socket", "cannot be combined with h3 (QUIC runs over UDP)")
	default:
		checkUnixSocket(p, s.UnixSocket)
	}
}

// checkUnixSocket checks the form of a unix_socket path.
func checkUnixSocket(p *problems, socket string) {
	const f = "unix_socket"
	switch {
	case len(socket) > MaxUnixSocketLength:
		p.add(f, "must be at most %d bytes", MaxUnixSocketLength)
	case hasControl(socket):
		p.add(f, "must not contain NUL or other control characters")
	case !strings.HasPrefix(socket, "/"):
		p.add(f, "must be an absolute path, like /run/app.sock")
	case path.Clean(socket) != socket:
		p.add(f, "must be a clean path (no //, . or .. parts, no trailing /)")
	}
}

// validateBurst checks the burst size against the pacing.
func (s Spec) validateBurst(p *problems) {
	switch {
	case s.Burst == 0:
	case s.Burst < 0 || s.Burst > MaxBurst:
		p.add("burst", "must be from 0 (no bursts) to %d", MaxBurst)
	case s.Burst > 1 && s.Pacing.Valid() && s.Pacing != PacingOpen:
		p.add("burst", "requires open pacing (qps greater than 0)")
	}
}

// ownHTTP1Client reports whether an HTTP run goes through the agent's own
// HTTP/1.1 client, the one that renders templates, URL lists and request
// mixes: not with h2, h2c or h3, nor with follow_redirects (which takes the
// standard library's client).
func (s Spec) ownHTTP1Client() bool {
	return !s.HTTP2() && !s.HTTP3() && !s.FollowRedirects
}
