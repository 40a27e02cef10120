// Package h2client is the agent's HTTP/2 and HTTP/3 client: h2 over TLS for
// https:// targets and h2c with prior knowledge for http:// ones, on the
// standard library's transport, or HTTP/3 over QUIC (quic-go) for https://
// targets with Options.H3. Each Client owns its own transport limited to one
// connection, so one engine connection is one HTTP/2 connection or one QUIC
// connection. It also follows redirects (Options.FollowRedirects), and for
// that alone speaks HTTP/1.1 on the standard transport (Options.HTTP1).
// The agent's fast HTTP/1.1 client is package httpclient; gRPC is package
// grpcclient.
package h2client

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/textproto"
	"strconv"
	"sync"

	"github.com/barrage-dev/barrage/services/agent/internal/rawsock"
	"github.com/barrage-dev/barrage/services/agent/internal/request"
	"github.com/barrage-dev/barrage/services/agent/internal/servertime"
	"github.com/barrage-dev/barrage/services/agent/internal/sockerr"
)

// CodeSocketError is the code of a request that failed below HTTP: connect,
// TLS, protocol or timeout errors, and body read errors (Fortio's -1).
const CodeSocketError = -1

// readBufferSize is the per-client buffer the response body is read into and discarded.
const readBufferSize = 32 << 10

// Factory opens HTTP/2 clients for one target. Their results count bodies
// exactly and approximate heads as their HTTP/1.1 text (see headBytes): Sent is
// the request line, Host, headers, Content-Length and body; Received is
// "HTTP/2.0 <status>", the response headers, body and trailers. A request that
// fails before a response reports 0 sent.
type Factory struct {
	opts Options
	tmpl *template
	// latency is the canonical latency header name; "" for none.
	latency string
	// sockErr is the first error of a request without a response (SocketError).
	sockErr sockerr.First
}

var _ request.Factory = (*Factory)(nil)

// New validates opts (see Options.Normalize) and builds the request template.
func New(opts Options) (*Factory, error) {
	if err := opts.Normalize(); err != nil {
		return nil, fmt.Errorf("h2client: %w", err)
	}
	t, err := newTemplate(&opts)
	if err != nil {
		return nil, fmt.Errorf("h2client: %w", err)
	}
	opts.Payload = bytes.Clone(opts.Payload)
	f := &Factory{opts: opts, tmpl: t}
	if opts.LatencyHeader != "" {
		f.latency = textproto.CanonicalMIMEHeaderKey(opts.LatencyHeader)
	}
	return f, nil
}

// NewClient implements request.Factory; the client connects on its first request.
func (f *Factory) NewClient(context.Context, int) (request.Client, error) {
	t := f.tmpl
	var tr roundTripper = f.newTransport()
	if f.opts.H3 {
		tr = f.newH3Transport()
	}
	c := &client{f: f, tr: tr, buf: make([]byte, readBufferSize), phases: newPhaseTrace()}
	c.do = tr.RoundTrip
	if f.opts.FollowRedirects {
		c.do = (&http.Client{Transport: tr, CheckRedirect: CheckRedirect(true)}).Do
	}
	c.base = &http.Request{
		Method:        f.opts.Method,
		URL:           t.url,
		Proto:         "HTTP/2.0",
		ProtoMajor:    2,
		Header:        t.header,
		Host:          t.host,
		ContentLength: int64(len(f.opts.Payload)),
	}
	if len(f.opts.Payload) > 0 {
		c.base.GetBody = f.body
	}
	return c, nil
}

// body returns a fresh reader of the payload (for each request, and for the
// transport when it replays a request on a new connection).
func (f *Factory) body() (io.ReadCloser, error) {
	return io.NopCloser(bytes.NewReader(f.opts.Payload)), nil
}

// newTransport returns a transport that speaks only HTTP/2 over at most one connection.
func (f *Factory) newTransport() *http.Transport {
	var p http.Protocols
	switch {
	case f.opts.HTTP1:
		p.SetHTTP1(true)
	case f.opts.H2C:
		p.SetUnencryptedHTTP2(true)
	default:
		p.SetHTTP2(true)
	}
	dial := f.opts.Dial
	if dial == nil {
		dial = (&net.Dialer{}).DialContext
	}
	timeout, socket := f.opts.Timeout, f.opts.UnixSocket
	return &http.Transport{
		Protocols: &p,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			ctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			if socket != "" {
				network, addr = "unix", socket
			}
			conn, err := dial(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			// Frames (and TLS's records) go through raw system calls:
			// see package rawsock.
			return rawsock.Wrap(conn), nil
		},
		TLSClientConfig:     f.tlsConfig(),
		TLSHandshakeTimeout: f.opts.Timeout,
		MaxConnsPerHost:     1,
		MaxIdleConnsPerHost: 1,
		DisableCompression:  true, // measure the bytes the server chose to send
	}
}

// tlsConfig is Options.TLS (or the defaults) with Insecure applied; the
// transport sets ALPN itself.
func (f *Factory) tlsConfig() *tls.Config {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if f.opts.TLS != nil {
		cfg = f.opts.TLS.Clone()
	}
	cfg.InsecureSkipVerify = cfg.InsecureSkipVerify || f.opts.Insecure // the user asked for -k
	return cfg
}

// SocketError returns the first error of a request that got no response
// (dial, TLS handshake, QUIC, protocol; the run's end aside), or nil:
// those requests only count as CodeSocketError, and this says why.
func (f *Factory) SocketError() error {
	return f.sockErr.Err()
}

// CodeName implements request.Factory: the status code, or "-1" for socket errors.
func (f *Factory) CodeName(code int32) string { return strconv.Itoa(int(code)) }

// RunType implements request.Factory.
func (f *Factory) RunType() string { return "HTTP" }

// client is one HTTP/2 connection with its own transport.
type client struct {
	f    *Factory
	tr   roundTripper
	do   func(*http.Request) (*http.Response, error) // tr.RoundTrip, or a redirect-following http.Client's Do
	base *http.Request                               // shallow-copied per request with its context
	buf  []byte
	// phases times each request's phases.
	phases *phaseTrace

	mu     sync.Mutex
	cancel context.CancelFunc // of the request in progress, for Close
	closed bool
}

// Do implements request.Client.
func (c *client) Do(ctx context.Context) (res request.Result) {
	res = request.Result{Code: CodeSocketError}
	run := ctx
	ctx, cancel := context.WithTimeout(ctx, c.f.opts.Timeout)
	defer cancel()
	if !c.begin(cancel) {
		return res
	}
	defer c.end()
	c.phases.take() // what a dial of an earlier request left late
	defer func() { res.Phases = c.phases.take() }()
	req := c.base.WithContext(httptrace.WithClientTrace(ctx, c.phases.trace))
	if req.GetBody != nil {
		// Never reuse a body reader: the transport may still be reading the
		// previous one when it returns early with a response.
		req.Body, _ = req.GetBody()
	}
	resp, err := c.do(req)
	if err != nil {
		c.f.sockErr.Note(run, err)
		return res
	}
	defer resp.Body.Close()
	res.Sent = c.f.tmpl.sentHead + req.ContentLength
	res.Received = int64(len("HTTP/2.0 \r\n")+len(resp.Status)) + headBytes(resp.Header)
	if vs := resp.Header[c.f.latency]; c.f.latency != "" && len(vs) > 0 {
		res.ServerTime, res.HasServerTime = servertime.Parse([]byte(vs[0]))
	}
	for range maxBodyReads {
		n, err := resp.Body.Read(c.buf)
		res.Received += int64(n)
		if err == io.EOF {
			if len(resp.Trailer) > 0 {
				res.Received += headBytes(resp.Trailer)
			}
			res.Code = int32(resp.StatusCode)
			res.OK = resp.StatusCode >= 200 && resp.StatusCode < 300
			return res
		}
		if err != nil {
			return res
		}
	}
	return res
}

// maxBodyReads is a backstop bound on the body loop (2 TiB in full reads);
// the request timeout ends a long body first.
const maxBodyReads = 1 << 26

// begin registers the request's cancel func; it reports false after Close.
func (c *client) begin(cancel context.CancelFunc) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return false
	}
	c.cancel = cancel
	return true
}

// end forgets the request; after Close it closes the connection it left idle.
func (c *client) end() {
	c.mu.Lock()
	c.cancel = nil
	closed := c.closed
	c.mu.Unlock()
	if closed {
		c.tr.CloseIdleConnections()
	}
}

// Close implements request.Client: it cancels a request in progress and closes
// the connection.
func (c *client) Close() error {
	c.mu.Lock()
	c.closed = true
	if c.cancel != nil {
		c.cancel()
	}
	c.mu.Unlock()
	c.tr.CloseIdleConnections()
	if cl, ok := c.tr.(io.Closer); ok {
		_ = cl.Close() // HTTP/3: the QUIC connection and its UDP socket
	}
	return nil
}
