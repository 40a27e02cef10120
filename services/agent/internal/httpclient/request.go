package httpclient

import (
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/barrage-dev/barrage/pkg/reqtemplate"
	"github.com/barrage-dev/barrage/pkg/version"
	"github.com/barrage-dev/barrage/services/agent/internal/request"
)

// Options describe the request every client of a Factory sends.
type Options struct {
	// URL is the http:// or https:// target.
	URL string
	// Method defaults to GET, or POST when there is a payload.
	Method string
	// Headers are sent in order; a Host or User-Agent header replaces the default.
	Headers []Header
	// Payload is the request body.
	Payload []byte
	// ContentType is sent when set.
	ContentType string
	// Timeout bounds connecting and each request; default 3 s.
	Timeout time.Duration
	// Insecure skips TLS certificate verification.
	Insecure bool
	// TLS is the base TLS configuration of an https:// URL (roots, client
	// certificate, SNI, minimum version, session cache; see package
	// tlsconf); nil means the system roots and TLS 1.2 or later. The
	// client uses a copy, offering ALPN http/1.1, with ServerName the URL's
	// host unless set, and verification off when Insecure.
	TLS *tls.Config
	// Dial connects to the target (TLS goes on top); nil means a plain
	// net.Dialer. Called once per connection, bounded by Timeout.
	Dial request.DialFunc
	// LatencyHeader names a response header whose value is the target's own
	// latency (package servertime), reported in Result.ServerTime; "" for none.
	LatencyHeader string
	// Targets, when there are several or one has placeholders, replace
	// the URL's path and query: each request takes the next (or, with
	// RandomTarget, a random one) and renders it (see package reqtemplate).
	Targets []*reqtemplate.Template
	// RandomTarget picks a random entry of Targets for every request
	// instead of going round them in order.
	RandomTarget bool
	// Body, when it has placeholders, replaces Payload and is rendered for
	// every request.
	Body *reqtemplate.Template
	// Seq numbers the requests for {seq}; nil means 1, 2, 3...
	Seq *reqtemplate.Seq
	// Variants are the entries of a request mix, sent by DoEntry: each
	// with its own method, target, extra headers and body, on the same
	// connection (same scheme and host as URL).
	Variants []Variant
	// HTTP10 sends "HTTP/1.0" requests: the server closes the connection
	// after each response unless it answers with Connection: keep-alive.
	HTTP10 bool
	// Compression sends Accept-Encoding: gzip (unless Headers has an
	// Accept-Encoding); bodies are counted as received, compressed.
	Compression bool
	// UnixSocket, when set, is the path of the Unix domain socket every
	// connection is dialed to (network "unix"); the URL then only gives the
	// Host header and the TLS name.
	UnixSocket string
	// MaxRequestsPerConnection closes a connection after this many
	// responses, so the next request opens a new one; 0 means no limit.
	MaxRequestsPerConnection int64
	// ReuseMin and ReuseMax, when ReuseMax > 0, are Fortio's
	// -connection-reuse min:max: each new connection is closed after a
	// number of responses drawn uniformly from [ReuseMin, ReuseMax]; it
	// replaces MaxRequestsPerConnection.
	ReuseMin, ReuseMax int64
}

// Variant is one entry of a request mix.
type Variant struct {
	// Method defaults to GET, or POST with a body.
	Method string
	// Target is the path and query, possibly a template.
	Target *reqtemplate.Template
	// Headers are sent after Options.Headers.
	Headers []Header
	// Body is the body template; nil means none (or BodySize).
	Body *reqtemplate.Template
	// BodySize, when Max > 0, sends random bytes of a random size instead.
	BodySize BodySize
}

// BodySize is a range of random body sizes.
type BodySize struct {
	// Min and Max bound the size in bytes, inclusive.
	Min, Max int
	// Fair draws sizes with density 1/size, so each size range carries
	// the same share of the bytes (Goader's fair random).
	Fair bool
}

// Header is one request header.
type Header struct{ Name, Value string }

func (o *Options) normalize() error {
	if o.Method == "" {
		o.Method = "GET"
		if len(o.Payload) > 0 {
			o.Method = "POST"
		}
	}
	if o.Timeout <= 0 {
		o.Timeout = 3 * time.Second
	}
	for _, h := range o.Headers {
		if h.Name == "" || strings.ContainsAny(h.Name+h.Value, "\r\n\x00") || strings.ContainsAny(h.Name, " :") {
			return fmt.Errorf("header %q: invalid name or value", h.Name)
		}
	}
	if strings.ContainsAny(o.LatencyHeader, " :\t\r\n\x00") {
		return fmt.Errorf("latency header %q: invalid name", o.LatencyHeader)
	}
	if strings.ContainsAny(o.Method, " \r\n") {
		return fmt.Errorf("method %q: invalid", o.Method)
	}
	return nil
}

// target is a parsed URL.
type target struct {
	addr     string // host:port to dial
	hostname string // for SNI
	host     string // Host header: the URL's host, port omitted when default
	path     string // request target: path and query
	tls      bool
	// basicAuth is the Authorization value of the URL's userinfo
	// ("Basic base64(user:password)"), or "" without one. An
	// Authorization header of the request wins over it, as in net/http.
	basicAuth string
}

func parseTarget(raw string) (target, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return target{}, fmt.Errorf("url %q: %w", raw, err)
	}
	var t target
	port := u.Port()
	switch u.Scheme {
	case "http":
		port = cmpOr(port, "80")
	case "https":
		port = cmpOr(port, "443")
		t.tls = true
	default:
		return target{}, fmt.Errorf("url %q: scheme must be http or https", raw)
	}
	if u.Hostname() == "" {
		return target{}, errors.New("url " + strconv.Quote(raw) + ": no host")
	}
	t.hostname = u.Hostname()
	t.addr = net.JoinHostPort(t.hostname, port)
	t.host = u.Host
	t.path = u.RequestURI()
	if u.User != nil {
		password, _ := u.User.Password()
		t.basicAuth = "Basic " + base64.StdEncoding.EncodeToString([]byte(u.User.Username()+":"+password))
	}
	return t, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// buildRequest renders the request once; every client sends these bytes.
func buildRequest(o *Options, t target) []byte {
	var b strings.Builder
	b.WriteString(o.Method + " " + t.path)
	b.WriteString(headerBlock(o, t))
	if needsLength(o, len(o.Payload)) {
		fmt.Fprintf(&b, "Content-Length: %d\r\n", len(o.Payload))
	}
	b.WriteString("\r\n")
	b.Write(o.Payload)
	return []byte(b.String())
}

// needsLength reports whether a request with a body of n bytes carries a
// Content-Length header.
func needsLength(o *Options, n int) bool {
	return n > 0 || o.Method == "POST" || o.Method == "PUT" || o.Method == "PATCH"
}

// headerBlock renders what follows the request target: the protocol, Host,
// User-Agent, Authorization, the headers and Content-Type, each line ended
// with CRLF (no Content-Length, no blank line).
func headerBlock(o *Options, t target) string {
	var b strings.Builder
	if o.HTTP10 {
		b.WriteString(" HTTP/1.0\r\n")
	} else {
		b.WriteString(" HTTP/1.1\r\n")
	}
	hasHost, hasAgent, hasAuth, hasEncoding := false, false, false, false
	for _, h := range o.Headers {
		hasHost = hasHost || strings.EqualFold(h.Name, "Host")
		hasAgent = hasAgent || strings.EqualFold(h.Name, "User-Agent")
		hasAuth = hasAuth || strings.EqualFold(h.Name, "Authorization")
		hasEncoding = hasEncoding || strings.EqualFold(h.Name, "Accept-Encoding")
	}
	if !hasHost {
		fmt.Fprintf(&b, "Host: %s\r\n", t.host)
	}
	if !hasAgent {
		fmt.Fprintf(&b, "User-Agent: barrage/%s\r\n", version.String())
	}
	if !hasAuth && t.basicAuth != "" {
		fmt.Fprintf(&b, "Authorization: %s\r\n", t.basicAuth)
	}
	if o.Compression && !hasEncoding {
		b.WriteString("Accept-Encoding: gzip\r\n")
	}
	for _, h := range o.Headers {
		fmt.Fprintf(&b, "%s: %s\r\n", h.Name, h.Value)
	}
	if o.ContentType != "" {
		fmt.Fprintf(&b, "Content-Type: %s\r\n", o.ContentType)
	}
	return b.String()
}
