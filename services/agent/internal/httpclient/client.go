// Package httpclient is the agent's own HTTP/1.1 keep-alive client: one
// connection per Client, the request bytes built once, responses parsed in place
// from a reused buffer (Content-Length, chunked, and read-to-close bodies), and
// nothing allocated per request. It reconnects when the server closes. HTTP/2 is
// in package h2client.
package httpclient

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/services/agent/internal/rawsock"
	"github.com/barrage-dev/barrage/services/agent/internal/request"
	"github.com/barrage-dev/barrage/services/agent/internal/sockerr"
)

// readBufferSize is the per-connection read buffer; a header line longer than it
// is skipped in pieces, not rejected.
const readBufferSize = 16 << 10

// CodeSocketError is the code of a request that failed below HTTP (Fortio's -1).
const CodeSocketError = -1

// Factory opens HTTP/1.1 clients for one target.
type Factory struct {
	addr      string
	tlsConfig *tls.Config
	req       []byte
	dyn       *dynamic   // set when the target or body is a template
	variants  []*dynamic // the entries of a request mix (DoEntry)
	noBody    bool       // HEAD: responses carry no body whatever their headers say
	// latency is the lower-cased name of the latency header; "" for none.
	latency string
	timeout time.Duration
	dial    request.DialFunc
	network string // "tcp", or "unix" with Options.UnixSocket
	// named is true when addr's host is a name, not an IP literal: only
	// then does a dial look it up, and time the lookup (lookupTimer).
	named bool
	// maxPerConn is Options.MaxRequestsPerConnection (0: no limit).
	maxPerConn int64
	// reuseMin and reuseMax are Options.ReuseMin and ReuseMax.
	reuseMin, reuseMax int64
	// sockErr is the first error below HTTP (SocketError).
	sockErr sockerr.First
}

var (
	_ request.Factory   = (*Factory)(nil)
	_ request.Connector = (*client)(nil)
)

// New prepares the request bytes and connection settings.
func New(opts Options) (*Factory, error) {
	t, err := parseTarget(opts.URL)
	if err != nil {
		return nil, err
	}
	if err := opts.normalize(); err != nil {
		return nil, err
	}
	if opts.ReuseMax != 0 && (opts.ReuseMin < 1 || opts.ReuseMin > opts.ReuseMax) {
		return nil, fmt.Errorf("connection reuse %d:%d: want 1 <= min <= max", opts.ReuseMin, opts.ReuseMax)
	}
	f := &Factory{
		addr:       t.addr,
		req:        buildRequest(&opts, t),
		dyn:        newDynamic(&opts, t),
		noBody:     opts.Method == "HEAD",
		latency:    strings.ToLower(opts.LatencyHeader),
		timeout:    opts.Timeout,
		dial:       opts.Dial,
		network:    "tcp",
		named:      !isIPLiteral(t.hostname),
		maxPerConn: opts.MaxRequestsPerConnection,
		reuseMin:   opts.ReuseMin,
		reuseMax:   opts.ReuseMax,
	}
	if opts.UnixSocket != "" {
		f.network, f.addr, f.named = "unix", opts.UnixSocket, false
	}
	if err := f.buildVariants(&opts, t); err != nil {
		return nil, err
	}
	if f.dial == nil {
		f.dial = (&net.Dialer{}).DialContext
	}
	if t.tls {
		f.tlsConfig = clientTLS(opts.TLS, t.hostname, opts.Insecure)
	}
	return f, nil
}

// clientTLS is base (nil: the defaults) for HTTP/1.1 to host.
func clientTLS(base *tls.Config, host string, insecure bool) *tls.Config {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if base != nil {
		cfg = base.Clone()
	}
	if cfg.ServerName == "" {
		cfg.ServerName = host
	}
	cfg.InsecureSkipVerify = cfg.InsecureSkipVerify || insecure // the user asked for -k
	cfg.NextProtos = []string{"http/1.1"}
	return cfg
}

// SocketError returns the first error below HTTP a client of f met
// (dial, TLS handshake, write or read, the run's end aside), or nil:
// requests that fail so only count as CodeSocketError, and this says why.
func (f *Factory) SocketError() error {
	return f.sockErr.Err()
}

// NewClient implements request.Factory; the client connects on its first request.
func (f *Factory) NewClient(context.Context, int) (request.Client, error) {
	return &client{f: f}, nil
}

// CodeName implements request.Factory: the status code, or "-1" for socket errors.
func (f *Factory) CodeName(code int32) string { return strconv.Itoa(int(code)) }

// RunType implements request.Factory.
func (f *Factory) RunType() string { return "HTTP" }

// RequestBytes returns the bytes sent for each request (for tests and -debug output).
func (f *Factory) RequestBytes() []byte { return f.req }

// client is one keep-alive connection.
type client struct {
	f    *Factory
	slot request.ConnSlot
	br   *bufio.Reader
	// cr is what br reads: the connection, which on plain TCP and unix
	// sockets also writes an armed request (exchange.go).
	cr connReader
	// reused is true when conn has already carried a response, so a failure
	// before any response byte may be a stale keep-alive and is retried once.
	reused bool
	// req is the request being sent: the Factory's bytes, or this client's
	// rendering of its templates.
	req    []byte
	noBody bool // the request being sent is a HEAD
	rnd    renderer
	// served counts the responses conn has carried; limit is the most it
	// may carry (0: no limit), set when it opens.
	served, limit int64
	// pending is the set-up of conn until a request takes it: the
	// connection phases are recorded with the first request on it.
	pending request.Phases
	// active is when conn last showed life: opened, or a response's first
	// byte. exchange combines write and read only on a reused connection
	// active within combineIdle.
	active time.Time
	// armed is when conn's deadline was last set (to armed + the timeout);
	// zero when it has none yet (refreshDeadline).
	armed time.Time
}

// deadlineSlack is how stale a connection's deadline may be before a
// request sets it again: setting it reads the clock three times and moves
// two runtime timers (4 % of the agent's CPU profile at max rate). A
// request's timeout is thereby between the timeout less deadlineSlack (at
// most 1 % of it) and the timeout.
const deadlineSlack = time.Millisecond

// combineIdle is how long a kept-alive connection may have been quiet and
// still have a request written and its answer awaited in one pass
// (connReader); a new connection's first request never is, as a server may
// refuse a connection by shutting it as soon as it accepts it. The
// combined pass cannot see a close the server made before the write: after a
// full close the write draws a reset, which wakes it at once, but a server
// that shuts down its side and lingers (net/http's lingering close) would be
// heard only when it closes for good, where a plain read returns EOF at
// once. Servers close connections idle for seconds, not for this long; a
// request after a longer pause pays one more read instead.
const combineIdle = 100 * time.Millisecond

var (
	_ request.EntryClient   = (*client)(nil)
	_ request.WriteReporter = (*client)(nil)
)

// Do implements request.Client.
func (c *client) Do(ctx context.Context) request.Result {
	c.req, c.noBody = c.f.req, c.f.noBody
	if c.f.dyn != nil {
		c.req = c.f.dyn.render(&c.rnd)
	}
	return c.send(ctx)
}

// DoEntry implements request.EntryClient: it sends entry e of the mix
// (Options.Variants).
func (c *client) DoEntry(ctx context.Context, e int) request.Result {
	v := c.f.variants[e]
	c.req, c.noBody = v.render(&c.rnd), v.opts.Method == "HEAD"
	return c.send(ctx)
}

// LastWrite implements request.WriteReporter: the request target of the
// request being or last sent, read from its request line, when its method
// writes. It is worked out only when asked, so a run that records nothing
// pays nothing per request.
func (c *client) LastWrite() []byte {
	method, rest, ok := bytes.Cut(c.req, []byte{' '})
	if !ok || !spec.IsWriteMethod(string(method)) {
		return nil
	}
	target, _, ok := bytes.Cut(rest, []byte{' '})
	if !ok {
		return nil
	}
	return target
}

// send sends c.req, once more on a new connection when a kept-alive one
// turns out to be closed.
func (c *client) send(ctx context.Context) request.Result {
	res, retry, err := c.try(ctx)
	if retry {
		// The server closed an idle keep-alive connection: send again on a new one.
		sent := res.Sent
		res, _, err = c.try(ctx)
		res.Sent += sent
	}
	if err != nil {
		c.f.sockErr.Note(ctx, err)
	}
	return res
}

// try sends the request once; retry is true when a reused connection turned
// out to be closed by the server before any response byte arrived. err is
// the write or read error (a dial error is noted by dial).
func (c *client) try(ctx context.Context) (res request.Result, retry bool, err error) {
	res.Code = CodeSocketError
	if c.slot.Conn() == nil {
		if c.dial(ctx) != nil {
			return res, false, nil
		}
	}
	reused := c.reused
	res.Phases, c.pending = c.pending, request.Phases{} // the connection's set-up goes with its first request
	quiet := time.Since(c.active)
	if err := c.refreshDeadline(quiet); err != nil {
		c.drop()
		return res, reused, err
	}
	n, werr, rerr := c.exchange(reused && quiet < combineIdle)
	res.Sent = int64(n)
	if werr != nil {
		c.drop()
		return res, reused && closedByPeer(werr), fmt.Errorf("write: %w", werr)
	}
	if rerr != nil {
		c.drop()
		return res, reused && closedByPeer(rerr), fmt.Errorf("read: %w", rerr)
	}
	res.Phases.FirstByte = time.Now()
	c.active = res.Phases.FirstByte
	h, received, err := readResponse(c.br, c.noBody, c.f.latency)
	res.Received = received
	if err != nil {
		c.drop()
		return res, reused && received == 0 && closedByPeer(err), fmt.Errorf("read: %w", err)
	}
	res.Code = int32(h.code)
	res.OK = h.code >= 200 && h.code < 300
	res.ServerTime, res.HasServerTime = h.serverTime, h.hasServerTime
	c.served++
	if h.keepAlive && (c.limit == 0 || c.served < c.limit) {
		c.reused = true
	} else {
		c.drop()
	}
	return res, false, nil
}

// refreshDeadline sets conn's deadline to the timeout from now unless it
// was set less than deadlineSlack (or 1 % of the timeout) ago; quiet is the
// time since c.active, so that the clock is read once.
func (c *client) refreshDeadline(quiet time.Duration) error {
	slack := min(deadlineSlack, c.f.timeout/100)
	if !c.armed.IsZero() && c.active.Sub(c.armed)+quiet < slack {
		return nil
	}
	c.armed = c.active.Add(quiet)
	return c.slot.Conn().SetDeadline(c.armed.Add(c.f.timeout))
}

// exchange writes c.req and waits for the response's first byte (the end
// of the waiting phase): in one pass through the poller when combine and
// the connection allow it (connReader), else a write and a read. n is the
// bytes written; werr the write's error, rerr the first read's.
func (c *client) exchange(combine bool) (n int, werr, rerr error) {
	if combine && c.cr.combined() && c.br.Buffered() == 0 {
		c.cr.arm(c.req)
		_, rerr = c.br.Peek(1)
		n, werr = c.cr.written()
		return n, werr, rerr
	}
	n, werr = c.slot.Conn().Write(c.req)
	if werr != nil {
		return n, werr, nil
	}
	_, rerr = c.br.Peek(1)
	return n, nil, rerr
}

// closedByPeer reports whether err means the server had closed the
// connection (what a stale keep-alive looks like), as opposed to a timeout.
func closedByPeer(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// Connect implements request.Connector.
func (c *client) Connect(ctx context.Context) error {
	if c.slot.Conn() != nil {
		return nil
	}
	return c.dial(ctx)
}

// dial opens the connection (and does its TLS handshake), timing its
// phases for the first request that uses it (c.pending).
func (c *client) dial(parent context.Context) error {
	ctx, cancel := context.WithTimeout(parent, c.f.timeout)
	defer cancel()
	var (
		ph     request.Phases
		lookup lookupTimer
	)
	dialCtx := ctx
	if c.f.named {
		dialCtx = lookup.traced(ctx)
	}
	start := time.Now()
	conn, err := c.f.dial(dialCtx, c.f.network, c.f.addr)
	if err == nil {
		conn = rawsock.Wrap(conn)
		ph.Ready = time.Now()
		lookup.note(&ph)
		ph.Open(request.PhaseConnect, ph.Ready.Sub(start)-ph.Conn[request.PhaseDNS])
	}
	if err == nil && c.f.tlsConfig != nil {
		tc := tls.Client(conn, c.f.tlsConfig)
		if err = tc.HandshakeContext(ctx); err != nil {
			_ = conn.Close()
		} else {
			connected := ph.Ready
			ph.Ready = time.Now()
			ph.Open(request.PhaseTLS, ph.Ready.Sub(connected))
		}
		conn = tc
	}
	if err != nil {
		err = fmt.Errorf("dial %s: %w", c.f.addr, err)
		c.f.sockErr.Note(parent, err)
		return err
	}
	if err := c.slot.Set(conn); err != nil {
		return err
	}
	c.pending, c.active, c.armed = ph, ph.Ready, time.Time{}
	c.reused, c.served, c.limit = false, 0, c.f.connLimit()
	c.cr.reset(conn)
	if c.br == nil {
		c.br = bufio.NewReaderSize(&c.cr, readBufferSize)
	} else {
		c.br.Reset(&c.cr)
	}
	return nil
}

// connLimit is the number of responses a new connection may carry:
// drawn from [reuseMin, reuseMax] (Fortio's -connection-reuse), else
// maxPerConn; 0 means no limit.
func (f *Factory) connLimit() int64 {
	if f.reuseMax == 0 {
		return f.maxPerConn
	}
	return f.reuseMin + rand.Int64N(f.reuseMax-f.reuseMin+1) //nolint:gosec // a spread of reuse counts, not a secret
}

// drop closes the connection after an error or a non-keep-alive response.
func (c *client) drop() { c.slot.Drop() }

// Close implements request.Client; it interrupts a Do in progress.
func (c *client) Close() error { return c.slot.Close() }
