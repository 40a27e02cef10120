package scenario

import (
	"bytes"
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"time"

	spec "github.com/barrage-dev/barrage/pkg/scenario"
)

// h2client is one worker's client for the steps whose protocol is h2:
// HTTP/2 over TLS (ALPN h2) for https:// URLs and HTTP/2 with prior
// knowledge (h2c) for http:// ones, on the standard library's transport,
// one connection per host (a worker sends one request at a time). It
// follows no redirect and sends the iteration's cookies, as h1client does.
// HTTP/2's framing, flow control and HPACK make a hand-written client no
// cheaper by the margin that made h1client worth writing.
type h2client struct {
	rt      *http.Transport
	timeout time.Duration
	body    []byte
}

// newH2Client returns a client that dials with dial and verifies servers
// with base (nil: the system's roots, the URL's host).
func newH2Client(dial func(ctx context.Context, network, addr string) (net.Conn, error), base *tls.Config, timeout time.Duration) *h2client {
	var p http.Protocols
	p.SetHTTP2(true)
	p.SetUnencryptedHTTP2(true)
	return &h2client{
		rt: &http.Transport{
			Protocols:          &p,
			DialContext:        dial,
			TLSClientConfig:    clientTLS(base),
			DisableCompression: true, // as h1client: no Accept-Encoding, the body as sent
			MaxConnsPerHost:    1,
			IdleConnTimeout:    90 * time.Second,
		},
		timeout: timeout,
		body:    make([]byte, 0, 4096),
	}
}

// close closes the idle connections.
func (h *h2client) close() { h.rt.CloseIdleConnections() }

// do sends req to p over HTTP/2 and reads the response, its body into
// h.body (valid until the next do, up to MaxBody; the rest is
// discarded). The step's own Cookie header goes first, then the jar's
// cookies for the URL.
func (h *h2client) do(ctx context.Context, p *parsedURL, req *spec.Rendered, jar *cookiejar.Jar) (*spec.Response, []*http.Cookie, error) {
	ctx, cancel := context.WithTimeout(ctx, h.timeout) // as http.Client.Timeout: dial, send and read
	defer cancel()
	var body io.Reader = http.NoBody
	if req.HasBody || len(req.Body) > 0 {
		body = bytes.NewReader(req.Body)
	}
	hr, err := http.NewRequestWithContext(ctx, req.Method, p.raw, body)
	if err != nil {
		return nil, nil, err
	}
	for _, hd := range req.Headers {
		switch hd.Name {
		case "Host":
			hr.Host = string(hd.Value)
		case "Content-Length", "Transfer-Encoding", "Trailer":
		default:
			hr.Header[hd.Name] = []string{string(hd.Value)} // canonical, one per name
		}
	}
	if jar != nil {
		for _, c := range jar.Cookies(p.u) {
			hr.AddCookie(c)
		}
	}
	resp, err := h.rt.RoundTrip(hr)
	if err != nil {
		return nil, nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	if err := h.readBody(resp.Body); err != nil {
		return nil, nil, err
	}
	return &spec.Response{Status: resp.StatusCode, Header: resp.Header, Body: h.body}, resp.Cookies(), nil
}

// readBody reads up to MaxBody of r into h.body and discards the rest.
func (h *h2client) readBody(r io.Reader) error {
	buf := bytes.NewBuffer(h.body[:0])
	_, err := buf.ReadFrom(io.LimitReader(r, MaxBody))
	h.body = buf.Bytes()
	if err == nil {
		_, err = io.Copy(io.Discard, r)
	}
	return err
}
