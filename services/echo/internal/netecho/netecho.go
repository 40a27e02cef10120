// Package netecho is the echo server's TCP and UDP echo: every byte or datagram
// received is sent back unchanged, as Fortio's tcp:// and udp:// runners expect,
// at once or after the delay of a saturation (-saturate).
package netecho

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/barrage-dev/barrage/services/echo/internal/metrics"
	"github.com/barrage-dev/barrage/services/echo/internal/saturation"
)

// maxDatagram is the largest UDP payload echoed.
const maxDatagram = 64 << 10

// TCP echoes every connection accepted on a listener.
type TCP struct {
	ln      net.Listener
	metrics *metrics.Metrics
	log     *slog.Logger
	sat     *saturation.Delayer

	mu    sync.Mutex
	conns map[net.Conn]struct{}
	wg    sync.WaitGroup
}

// NewTCP wraps an open listener. With sat (nil: none), each read is echoed
// after sat's delay: a client that waits for its echo before sending again
// makes one read per request.
func NewTCP(ln net.Listener, m *metrics.Metrics, log *slog.Logger, sat *saturation.Delayer) *TCP {
	return &TCP{ln: ln, metrics: m, log: log, sat: sat, conns: make(map[net.Conn]struct{})}
}

// Serve accepts connections until ctx is done, then closes the listener and every
// open connection and waits for their goroutines.
func (t *TCP) Serve(ctx context.Context) error {
	stop := context.AfterFunc(ctx, func() {
		_ = t.ln.Close()
		t.mu.Lock()
		for c := range t.conns {
			_ = c.Close()
		}
		t.mu.Unlock()
	})
	defer stop()
	defer t.wg.Wait()
	for {
		c, err := t.ln.Accept()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return nil
			}
			return err
		}
		t.metrics.TCPConnections.Inc()
		t.mu.Lock()
		t.conns[c] = struct{}{}
		t.mu.Unlock()
		t.wg.Go(func() { t.echo(ctx, c) })
	}
}

func (t *TCP) echo(ctx context.Context, c net.Conn) {
	defer func() {
		t.mu.Lock()
		delete(t.conns, c)
		t.mu.Unlock()
		_ = c.Close()
	}()
	var n int64
	var err error
	if t.sat == nil {
		// net.TCPConn's ReadFrom splices socket to socket on Linux: no copy in user space.
		n, err = io.Copy(c, c)
	} else {
		n, err = t.echoHeld(ctx, c)
	}
	t.metrics.TCPBytes.Add(float64(n))
	if err != nil && !errors.Is(err, net.ErrClosed) {
		t.log.Debug("tcp echo ended", slog.String("client", c.RemoteAddr().String()), slog.Any("err", err))
	}
}

// heldBuffer is the largest read echoed as one request under saturation.
const heldBuffer = 64 << 10

// echoHeld echoes each read after the saturation's delay, the read in
// flight until its echo is written; it returns the bytes echoed.
func (t *TCP) echoHeld(ctx context.Context, c net.Conn) (int64, error) {
	buf := make([]byte, heldBuffer)
	var total int64
	for {
		n, err := c.Read(buf)
		if n > 0 {
			v, ok := t.sat.Hold(ctx)
			if !ok {
				v.End(time.Now())
				return total, nil // shutting down: Serve closes the connection
			}
			w, werr := c.Write(buf[:n])
			v.End(time.Now())
			total += int64(w)
			if werr != nil {
				return total, werr //nolint:wrapcheck // logged with the client's address
			}
		}
		if errors.Is(err, io.EOF) {
			return total, nil
		}
		if err != nil {
			return total, err //nolint:wrapcheck // logged with the client's address
		}
	}
}

// maxHeld bounds the datagrams waiting out a saturation delay; beyond it
// datagrams are dropped, as a full socket buffer would drop them.
const maxHeld = 4096

// UDP echoes every datagram received on a packet connection.
type UDP struct {
	pc      net.PacketConn
	metrics *metrics.Metrics
	log     *slog.Logger
	sat     *saturation.Delayer
	// held counts the datagrams waiting out their delay, wg their goroutines.
	held atomic.Int64
	wg   sync.WaitGroup
}

// NewUDP wraps an open packet connection. With sat (nil: none), each
// datagram is echoed after sat's delay, in flight until then.
func NewUDP(pc net.PacketConn, m *metrics.Metrics, log *slog.Logger, sat *saturation.Delayer) *UDP {
	return &UDP{pc: pc, metrics: m, log: log, sat: sat}
}

// Serve echoes datagrams until ctx is done, then closes the connection and
// waits for the datagrams being held.
func (u *UDP) Serve(ctx context.Context) error {
	stop := context.AfterFunc(ctx, func() { _ = u.pc.Close() })
	defer stop()
	defer u.wg.Wait()
	buf := make([]byte, maxDatagram)
	for {
		n, addr, err := u.pc.ReadFrom(buf)
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return nil
			}
			u.log.Debug("udp read failed", slog.Any("err", err))
			continue
		}
		if u.sat == nil {
			u.reply(buf[:n], addr)
			continue
		}
		u.hold(ctx, buf[:n], addr)
	}
}

// hold echoes a copy of b after the saturation's delay, unless maxHeld
// datagrams are waiting already.
func (u *UDP) hold(ctx context.Context, b []byte, addr net.Addr) {
	if u.held.Add(1) > maxHeld {
		u.held.Add(-1)
		u.log.Debug("udp datagram dropped: too many held", slog.String("client", addr.String()))
		return
	}
	p := bytes.Clone(b)
	u.wg.Go(func() {
		defer u.held.Add(-1)
		v, ok := u.sat.Hold(ctx)
		if ok {
			u.reply(p, addr)
		}
		v.End(time.Now())
	})
}

// reply sends b back to addr.
func (u *UDP) reply(b []byte, addr net.Addr) {
	if _, err := u.pc.WriteTo(b, addr); err != nil {
		u.log.Debug("udp write failed", slog.String("client", addr.String()), slog.Any("err", err))
		return
	}
	u.metrics.UDPPackets.Inc()
	u.metrics.UDPBytes.Add(float64(len(b)))
}
