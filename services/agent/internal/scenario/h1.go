package scenario

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strconv"
	"time"

	spec "github.com/barrage-dev/barrage/pkg/scenario"
)

// h1client is one worker's HTTP/1.1 client: keep-alive connections by
// scheme and host (a worker sends one request at a time, so one
// connection per host), requests written from a rendered step into one
// reused buffer, responses parsed into reused buffers (h1read.go).
// Redirects are not followed (a step sees the redirect itself); cookies go
// through the iteration's jar. It takes the place of net/http, whose
// per-connection goroutines, channels, timers and header maps made a
// scenario request cost 1.7× the CPU of a plain load request, against
// 1.06× now (bench/results/scenario-cpu-2026-11-27.md).
type h1client struct {
	dial    func(ctx context.Context, network, addr string) (net.Conn, error)
	tls     *tls.Config // the https:// connections', ALPN http/1.1
	timeout time.Duration
	conns   map[string]*h1conn

	wbuf   []byte
	body   []byte
	header http.Header // the kept response headers, cleared per response
	urls   map[int]*parsedURL
}

// parsedURL is the last URL a step rendered, parsed.
type parsedURL struct {
	raw    string
	u      *url.URL
	key    string // scheme://host:port
	addr   string // host:port to dial
	target string // the request target (path and query)
}

type h1conn struct {
	c    net.Conn
	br   *bufio.Reader
	stop func() bool // undoes the context.AfterFunc that aborts it
	used bool        // has carried a request before: may have been closed
}

// clientTLS returns a copy of base, the run's TLS settings, for one
// client to set its ALPN in; nil gives verification with the system's
// roots and TLS 1.2 at least.
func clientTLS(base *tls.Config) *tls.Config {
	if base == nil {
		return &tls.Config{MinVersion: tls.VersionTLS12}
	}
	return base.Clone()
}

// newH1Client returns a client that dials with dial and verifies servers
// with base (nil: the system's roots, the URL's host).
func newH1Client(dial func(ctx context.Context, network, addr string) (net.Conn, error), base *tls.Config, timeout time.Duration) *h1client {
	cfg := clientTLS(base)
	cfg.NextProtos = []string{"http/1.1"}
	return &h1client{dial: dial, tls: cfg, timeout: timeout, conns: map[string]*h1conn{}, header: http.Header{}, urls: map[int]*parsedURL{},
		body: make([]byte, 0, 4096)}
}

// close closes every connection.
func (h *h1client) close() {
	for k, c := range h.conns {
		c.close()
		delete(h.conns, k)
	}
}

func (c *h1conn) close() {
	c.stop()
	_ = c.c.Close()
}

// target parses the step's rendered URL, reusing the last parse when the
// step rendered the same URL.
func (h *h1client) target(step int, raw []byte) (*parsedURL, error) {
	if p := h.urls[step]; p != nil && p.raw == string(raw) {
		return p, nil
	}
	u, err := url.Parse(string(raw))
	if err != nil {
		return nil, err
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New("unsupported URL " + strconv.Quote(u.Redacted()))
	}
	port := u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	addr := net.JoinHostPort(u.Hostname(), port)
	p := &parsedURL{raw: string(raw), u: u, key: u.Scheme + "://" + addr, addr: addr, target: u.RequestURI()}
	h.urls[step] = p
	return p, nil
}

// errNoResponse: the connection ended before any byte of a response.
var errNoResponse = errors.New("connection closed before a response")

// do sends req to p and reads the response into h's buffers (valid until
// the next do). jar may be nil (no cookies yet); setCookies is called with
// the response's cookies, if any.
func (h *h1client) do(ctx context.Context, p *parsedURL, req *spec.Rendered, jar *cookiejar.Jar, keep []string) (*spec.Response, []*http.Cookie, error) {
	h.wbuf = appendRequest(h.wbuf[:0], p, req, jar)
	deadline := time.Now().Add(h.timeout) // as http.Client.Timeout: dial, send and read
	for attempt := 0; ; attempt++ {
		c, err := h.conn(ctx, p, deadline)
		if err != nil {
			return nil, nil, err
		}
		reused := c.used
		c.used = true
		resp, cookies, keepAlive, err := h.exchange(ctx, c, deadline, req.Method, keep)
		if err != nil || !keepAlive {
			c.close()
			delete(h.conns, p.key)
		}
		// A kept-alive connection the server closed while idle fails
		// before any response byte: send again, once, on a new one.
		if err != nil && reused && attempt == 0 && errors.Is(err, errNoResponse) && ctx.Err() == nil {
			continue
		}
		return resp, cookies, err
	}
}

func (h *h1client) conn(ctx context.Context, p *parsedURL, deadline time.Time) (*h1conn, error) {
	if c := h.conns[p.key]; c != nil {
		return c, nil
	}
	dctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	nc, err := h.dial(dctx, "tcp", p.addr)
	if err != nil {
		return nil, err
	}
	if p.u.Scheme == "https" {
		cfg := h.tls
		if cfg.ServerName == "" {
			cfg = cfg.Clone() // net/http's transport does the same per connection
			cfg.ServerName = p.u.Hostname()
		}
		tc := tls.Client(nc, cfg)
		if err := tc.HandshakeContext(dctx); err != nil {
			_ = nc.Close()
			return nil, err
		}
		nc = tc
	}
	c := &h1conn{c: nc, br: bufio.NewReaderSize(nc, 4096)}
	// A cancelled run aborts the request in flight at once.
	c.stop = context.AfterFunc(ctx, func() { _ = nc.SetDeadline(time.Unix(1, 0)) })
	h.conns[p.key] = c
	return c, nil
}

// exchange writes the request in h.wbuf and reads the response.
func (h *h1client) exchange(ctx context.Context, c *h1conn, deadline time.Time, method string, keep []string) (*spec.Response, []*http.Cookie, bool, error) {
	if err := c.c.SetDeadline(deadline); err != nil {
		return nil, nil, false, err
	}
	// After SetDeadline: a cancellation from now on moves the deadline
	// to the past (conn's AfterFunc); one before it is seen here.
	if err := ctx.Err(); err != nil {
		return nil, nil, false, err
	}
	if _, err := c.c.Write(h.wbuf); err != nil {
		return nil, nil, false, errors.Join(errNoResponse, err)
	}
	return h.readResponse(c.br, method == http.MethodHead, keep)
}

// appendRequest writes the request head and body as net/http would for
// the same request: Host, User-Agent (unless the step sets one),
// Content-Length when there is a body (0 for POST, PUT and PATCH without
// one), the step's headers, then the jar's cookies.
func appendRequest(b []byte, p *parsedURL, r *spec.Rendered, jar *cookiejar.Jar) []byte {
	b = append(b, r.Method...)
	b = append(b, ' ')
	b = append(b, p.target...)
	b = append(b, " HTTP/1.1\r\nHost: "...)
	b = append(b, p.u.Host...)
	b = append(b, "\r\n"...)
	agent := false
	for _, hd := range r.Headers {
		agent = agent || hd.Name == "User-Agent"
	}
	if !agent {
		b = append(b, "User-Agent: Go-http-client/1.1\r\n"...)
	}
	if r.HasBody || r.Method == http.MethodPost || r.Method == http.MethodPut || r.Method == http.MethodPatch {
		b = append(b, "Content-Length: "...)
		b = strconv.AppendInt(b, int64(len(r.Body)), 10)
		b = append(b, "\r\n"...)
	}
	cookie := -1
	for i, hd := range r.Headers {
		switch hd.Name {
		case "Host", "User-Agent", "Content-Length", "Transfer-Encoding", "Trailer":
			if hd.Name == "User-Agent" {
				b = appendHeader(b, hd.Name, hd.Value)
			}
			continue // net/http writes its own
		case "Cookie":
			cookie = i
			continue
		}
		b = appendHeader(b, hd.Name, hd.Value)
	}
	b = appendCookies(b, r, cookie, jar, p.u)
	b = append(b, "\r\n"...)
	return append(b, r.Body...)
}

func appendHeader(b []byte, name string, value []byte) []byte {
	b = append(b, name...)
	b = append(b, ": "...)
	b = append(b, value...)
	return append(b, "\r\n"...)
}

// appendCookies writes the Cookie header: the step's own Cookie header
// then the jar's cookies for u, joined with "; " (http.Request.AddCookie).
func appendCookies(b []byte, r *spec.Rendered, own int, jar *cookiejar.Jar, u *url.URL) []byte {
	var cs []*http.Cookie
	if jar != nil {
		cs = jar.Cookies(u)
	}
	if own < 0 && len(cs) == 0 {
		return b
	}
	b = append(b, "Cookie: "...)
	sep := false
	if own >= 0 && len(r.Headers[own].Value) > 0 {
		b = append(b, r.Headers[own].Value...)
		sep = true
	}
	for _, c := range cs {
		if sep {
			b = append(b, "; "...)
		}
		b = append(b, c.String()...)
		sep = true
	}
	return append(b, "\r\n"...)
}

// readBody reads n bytes (-1: to EOF) of body from r, keeping up to
// MaxBody in h.body and discarding the rest.
func (h *h1client) readBody(r io.Reader, n int64) error {
	if n >= 0 {
		r = io.LimitReader(r, n)
	}
	h.body = h.body[:0]
	for len(h.body) < MaxBody {
		if len(h.body) == cap(h.body) {
			h.body = append(h.body, 0)[:len(h.body)]
		}
		end := min(cap(h.body), MaxBody)
		m, err := r.Read(h.body[len(h.body):end])
		h.body = h.body[:len(h.body)+m]
		if err == io.EOF {
			if n >= 0 && int64(len(h.body)) < n {
				return io.ErrUnexpectedEOF
			}
			return nil
		}
		if err != nil {
			return err
		}
	}
	got, err := io.Copy(io.Discard, r)
	if err == nil && n >= 0 && int64(len(h.body))+got < n {
		err = io.ErrUnexpectedEOF
	}
	return err
}
