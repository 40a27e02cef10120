package h2client

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/barrage-dev/barrage/pkg/version"
	"github.com/barrage-dev/barrage/services/agent/internal/request"
)

// DefaultTimeout bounds each request when Options.Timeout is not set (Fortio's default).
const DefaultTimeout = 3 * time.Second

// Options describe the request every client of a Factory sends.
type Options struct {
	// URL is the target: https:// for HTTP/2 over TLS (negotiated with ALPN
	// "h2"), or http:// with H2C set for cleartext HTTP/2 with prior knowledge.
	URL string
	// H2C must be set for an http:// URL, and only then.
	H2C bool
	// H3 speaks HTTP/3 over QUIC (UDP) to an https:// URL instead of HTTP/2.
	H3 bool
	// Method defaults to GET, or POST when there is a payload.
	Method string
	// Headers are sent in order; a Host header sets :authority and a
	// User-Agent header replaces the default "barrage/<version>".
	Headers []Header
	// Payload is the request body.
	Payload []byte
	// ContentType is sent as Content-Type when set.
	ContentType string
	// Timeout bounds each request, connecting and reading the whole body
	// included; default DefaultTimeout.
	Timeout time.Duration
	// Insecure skips TLS certificate verification.
	Insecure bool
	// TLS is the base TLS configuration of https:// (package tlsconf);
	// nil means the system roots and TLS 1.2 or later. The transport uses
	// a copy, verification off when Insecure; HTTP/3 too, at TLS 1.3.
	TLS *tls.Config
	// Dial connects to the target; nil means a plain net.Dialer. Called once
	// per connection, never per request.
	Dial request.DialFunc
	// LatencyHeader names a response header whose value is the target's own
	// latency (package servertime), reported in Result.ServerTime; "" for none.
	LatencyHeader string
	// HTTP1 speaks HTTP/1.1 on the standard library's transport instead of
	// HTTP/2, for http:// and https:// URLs: the client behind
	// FollowRedirects for runs the agent's own HTTP/1.1 client cannot serve
	// (Fortio's -L implies -stdclient too).
	HTTP1 bool
	// FollowRedirects follows 3xx answers, up to MaxRedirects, and reports
	// the final answer; Sent and Received then count the first request and
	// the final response.
	FollowRedirects bool
	// Compression sends Accept-Encoding: gzip (unless Headers has an
	// Accept-Encoding); bodies are counted as received, compressed.
	Compression bool
	// UnixSocket, when set, is the path of the Unix domain socket every
	// connection is dialed to; the URL then only gives the Host and the TLS
	// name. Not with H3.
	UnixSocket string
}

// Header is one request header.
type Header struct {
	// Name is the field name, in any case (HTTP/2 sends it lower-cased).
	Name string
	// Value is the field value.
	Value string
}

// Normalize applies the defaults and validates the options; New calls it.
func (o *Options) Normalize() error {
	u, err := url.Parse(o.URL)
	if err != nil {
		return fmt.Errorf("url %q: %w", o.URL, err)
	}
	switch {
	case u.Host == "":
		return fmt.Errorf("url %q: no host", o.URL)
	case o.H3 && (u.Scheme != "https" || o.H2C || o.HTTP1):
		return fmt.Errorf("url %q: HTTP/3 needs an https:// URL", o.URL)
	case o.H3 && o.UnixSocket != "":
		return errors.New("HTTP/3 runs over UDP, not a unix socket")
	case o.H2C && o.HTTP1:
		return errors.New("give h2c or HTTP/1.1, not both")
	case u.Scheme == "https" && o.H2C:
		return fmt.Errorf("url %q: h2c is for http:// URLs", o.URL)
	case u.Scheme == "http" && !o.H2C && !o.HTTP1:
		return fmt.Errorf("url %q: HTTP/2 over http:// needs h2c (prior knowledge); HTTP/1.1 is another client", o.URL)
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("url %q: scheme must be http or https", o.URL)
	}
	if o.Method == "" {
		o.Method = http.MethodGet
		if len(o.Payload) > 0 {
			o.Method = http.MethodPost
		}
	}
	if strings.ContainsAny(o.Method, " \t\r\n\x00:") {
		return fmt.Errorf("method %q: invalid", o.Method)
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	for _, h := range o.Headers {
		if h.Name == "" || strings.ContainsAny(h.Name, " \t:\r\n\x00") || strings.ContainsAny(h.Value, "\r\n\x00") {
			return fmt.Errorf("header %q: invalid name or value", h.Name)
		}
	}
	if strings.ContainsAny(o.ContentType, "\r\n\x00") {
		return errors.New("content type: invalid")
	}
	if strings.ContainsAny(o.LatencyHeader, " \t:\r\n\x00") {
		return fmt.Errorf("latency header %q: invalid name", o.LatencyHeader)
	}
	return nil
}

// template is the request every client sends, built once; its fields are
// never written after New, so clients share it.
type template struct {
	url    *url.URL
	host   string // :authority when a Host header overrides the URL's
	header http.Header
	// sentHead approximates the bytes of the request head (see headBytes).
	sentHead int64
}

// newTemplate builds the request template from normalized options.
func newTemplate(o *Options) (*template, error) {
	u, err := url.Parse(o.URL)
	if err != nil {
		return nil, fmt.Errorf("url %q: %w", o.URL, err)
	}
	t := &template{url: u, header: make(http.Header, len(o.Headers)+2)}
	for _, h := range o.Headers {
		if strings.EqualFold(h.Name, "Host") {
			t.host = h.Value
			continue
		}
		t.header.Add(h.Name, h.Value)
	}
	if len(t.header.Values("User-Agent")) == 0 {
		t.header.Set("User-Agent", "barrage/"+version.String())
	}
	if o.ContentType != "" {
		t.header.Set("Content-Type", o.ContentType)
	}
	if o.Compression && len(t.header.Values("Accept-Encoding")) == 0 {
		t.header.Set("Accept-Encoding", "gzip")
	}
	authority := u.Host
	if t.host != "" {
		authority = t.host
	}
	// Request line, Host, the headers above, Content-Length when there is a body.
	n := len(o.Method) + len(" ") + len(u.RequestURI()) + len(" HTTP/2.0\r\n")
	n += len("Host: \r\n") + len(authority)
	if len(o.Payload) > 0 {
		n += len("Content-Length: \r\n") + len(strconv.Itoa(len(o.Payload)))
	}
	t.sentHead = int64(n) + headBytes(t.header)
	return t, nil
}

// headBytes approximates the size of a header block as HTTP/1.1 text:
// "Name: value\r\n" per field plus the blank line. HTTP/2 sends the fields
// HPACK-compressed (after the first request most are a byte or two), so the
// real frames are smaller; the text size keeps sizes comparable with HTTP/1.1
// runs and independent of the compression state.
func headBytes(h http.Header) int64 {
	n := len("\r\n")
	for k, vs := range h {
		for _, v := range vs {
			n += len(k) + len(": ") + len(v) + len("\r\n")
		}
	}
	return int64(n)
}
