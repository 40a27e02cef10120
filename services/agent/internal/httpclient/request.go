package httpclient

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

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
	// Dial connects to the target (TLS goes on top); nil means a plain
	// net.Dialer. Called once per connection, bounded by Timeout.
	Dial request.DialFunc
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
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\n", o.Method, t.path)
	hasHost, hasAgent, hasAuth := false, false, false
	for _, h := range o.Headers {
		hasHost = hasHost || strings.EqualFold(h.Name, "Host")
		hasAgent = hasAgent || strings.EqualFold(h.Name, "User-Agent")
		hasAuth = hasAuth || strings.EqualFold(h.Name, "Authorization")
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
	for _, h := range o.Headers {
		fmt.Fprintf(&b, "%s: %s\r\n", h.Name, h.Value)
	}
	if o.ContentType != "" {
		fmt.Fprintf(&b, "Content-Type: %s\r\n", o.ContentType)
	}
	if len(o.Payload) > 0 || o.Method == "POST" || o.Method == "PUT" || o.Method == "PATCH" {
		fmt.Fprintf(&b, "Content-Length: %d\r\n", len(o.Payload))
	}
	b.WriteString("\r\n")
	b.Write(o.Payload)
	return []byte(b.String())
}
