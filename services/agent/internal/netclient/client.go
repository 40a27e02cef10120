// Package netclient is the agent's TCP and UDP echo client: each request writes
// a payload and expects the same bytes back (Fortio's tcp:// and udp:// runners).
// A Client owns one socket and preallocated buffers, so a request allocates
// nothing. It does not speak any protocol above the echo; HTTP is in httpclient
// and h2client, gRPC in grpcclient.
package netclient

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"syscall"
	"time"

	"github.com/barrage-dev/barrage/services/agent/internal/rawsock"
	"github.com/barrage-dev/barrage/services/agent/internal/request"
)

// Result codes; Factory.CodeName renders them with Fortio's wording.
const (
	// CodeOK is a request whose payload came back intact ("OK").
	CodeOK int32 = iota
	// CodeShortRead is a reply shorter than the payload: the peer closed or
	// reset the connection, or sent a short datagram ("short read").
	CodeShortRead
	// CodeMismatch is a reply with other bytes than sent, or a datagram longer
	// than the payload ("read not echoing writes").
	CodeMismatch
	// CodeTimeout is a request that did not complete within the timeout ("timeout").
	CodeTimeout
	// CodeRefused is a refused connection: TCP connect refused, or for UDP an
	// ICMP port-unreachable reported by the kernel ("connection refused").
	CodeRefused
	// CodeError is any other I/O error, including use after Close ("error").
	CodeError
)

// Factory opens echo clients for one target.
type Factory struct {
	opts Options
}

var _ request.Factory = (*Factory)(nil)

// New validates opts (see Options.Normalize) and keeps a copy of the payload.
func New(opts Options) (*Factory, error) {
	if err := opts.Normalize(); err != nil {
		return nil, fmt.Errorf("netclient: %w", err)
	}
	opts.Payload = bytes.Clone(opts.Payload)
	return &Factory{opts: opts}, nil
}

// NewClient implements request.Factory; the client connects on its first request.
func (f *Factory) NewClient(_ context.Context, conn int) (request.Client, error) {
	c := &client{f: f, udp: f.opts.Network == "udp", req: f.opts.Payload}
	if len(c.req) == 0 {
		c.req = newGeneratedPayload(conn)
		c.generate = true
	}
	n := len(c.req)
	if c.udp {
		n++ // a spare byte reveals a datagram longer than the payload
	}
	c.buf = make([]byte, n)
	return c, nil
}

// CodeName implements request.Factory.
func (f *Factory) CodeName(code int32) string {
	switch code {
	case CodeOK:
		return "OK"
	case CodeShortRead:
		return "short read"
	case CodeMismatch:
		return "read not echoing writes"
	case CodeTimeout:
		return "timeout"
	case CodeRefused:
		return "connection refused"
	case CodeError:
		return "error"
	}
	return strconv.Itoa(int(code))
}

// RunType implements request.Factory: "TCP" or "UDP".
func (f *Factory) RunType() string {
	if f.opts.Network == "udp" {
		return "UDP"
	}
	return "TCP"
}

// client is one echo socket.
type client struct {
	f        *Factory
	req      []byte // the payload; the client's own buffer when generated
	buf      []byte // the reply
	udp      bool
	generate bool
	seq      int64
	slot     request.ConnSlot
	// reused is true when conn has already echoed a payload, so a failure
	// before any reply byte may be a connection the peer dropped while idle,
	// and the request is retried once on a new connection.
	reused bool
}

// Do implements request.Client. One deadline covers dialing and the round trip.
func (c *client) Do(ctx context.Context) request.Result {
	if c.generate {
		c.seq++
		setSeq(c.req, c.seq)
	}
	deadline := time.Now().Add(c.f.opts.Timeout)
	var res request.Result
	for attempt := 0; attempt < 2; attempt++ {
		if !c.try(ctx, deadline, &res) {
			break
		}
	}
	res.OK = res.Code == CodeOK
	return res
}

// try performs one round trip, adding to res; it returns true when a reused
// connection failed before any reply byte and the request should be retried.
func (c *client) try(ctx context.Context, deadline time.Time, res *request.Result) (retry bool) {
	if c.slot.Conn() == nil {
		if err := c.dial(ctx, deadline); err != nil {
			res.Code = classify(err)
			return false
		}
	}
	reused := c.reused
	if err := c.slot.Conn().SetDeadline(deadline); err != nil {
		res.Code = c.fail(err)
		return reused
	}
	n, err := c.slot.Conn().Write(c.req)
	res.Sent += int64(n)
	if err != nil {
		res.Code = c.fail(err)
		return reused
	}
	if c.udp {
		n, err = c.slot.Conn().Read(c.buf)
	} else {
		n, err = io.ReadFull(c.slot.Conn(), c.buf)
	}
	res.Received += int64(n)
	switch {
	case err != nil:
		res.Code = c.fail(err)
		return reused && n == 0 && res.Code == CodeShortRead
	case n < len(c.req):
		res.Code = CodeShortRead
	case n > len(c.req) || !bytes.Equal(c.buf[:n], c.req):
		res.Code = CodeMismatch
	default:
		res.Code = CodeOK
		c.reused = true
		return false
	}
	// A bad reply leaves the stream (or stray datagrams) out of step: start afresh.
	c.drop()
	return false
}

// classify maps an I/O error to a result code.
func classify(err error) int32 {
	var ne net.Error
	switch {
	case errors.As(err, &ne) && ne.Timeout():
		return CodeTimeout
	case errors.Is(err, syscall.ECONNREFUSED):
		return CodeRefused
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.ECONNRESET):
		return CodeShortRead
	}
	return CodeError
}

// fail drops the connection after err and returns err's code.
func (c *client) fail(err error) int32 {
	c.drop()
	return classify(err)
}

// Connect implements request.Connector (TCP only: UDP has nothing to set up
// beyond the socket, which dial creates).
func (c *client) Connect(ctx context.Context) error {
	if c.slot.Conn() != nil {
		return nil
	}
	return c.dial(ctx, time.Now().Add(c.f.opts.Timeout))
}

func (c *client) dial(ctx context.Context, deadline time.Time) error {
	if c.slot.Closed() {
		return net.ErrClosed
	}
	var conn net.Conn
	var err error
	if dial := c.f.opts.Dial; dial != nil {
		dctx, cancel := context.WithDeadline(ctx, deadline)
		conn, err = dial(dctx, c.f.opts.Network, c.f.opts.Address)
		cancel()
	} else {
		d := net.Dialer{Deadline: deadline}
		conn, err = d.DialContext(ctx, c.f.opts.Network, c.f.opts.Address)
	}
	if err != nil {
		return fmt.Errorf("dial %s %s: %w", c.f.opts.Network, c.f.opts.Address, err)
	}
	// A TCP socket's reads and writes go through raw system calls
	// (package rawsock); a UDP socket stays as it is.
	if err := c.slot.Set(rawsock.Wrap(conn)); err != nil {
		return err
	}
	c.reused = false
	return nil
}

// drop closes the connection; the next request dials again.
func (c *client) drop() { c.slot.Drop() }

// Close implements request.Client; it interrupts a Do in progress.
func (c *client) Close() error {
	if err := c.slot.Close(); err != nil {
		return fmt.Errorf("close %s connection: %w", c.f.opts.Network, err)
	}
	return nil
}
