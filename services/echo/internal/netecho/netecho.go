// Package netecho is the echo server's TCP and UDP echo: every byte or datagram
// received is sent back unchanged, as Fortio's tcp:// and udp:// runners expect.
package netecho

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"sync"

	"github.com/barrage-dev/barrage/services/echo/internal/metrics"
)

// maxDatagram is the largest UDP payload echoed.
const maxDatagram = 64 << 10

// TCP echoes every connection accepted on a listener.
type TCP struct {
	ln      net.Listener
	metrics *metrics.Metrics
	log     *slog.Logger

	mu    sync.Mutex
	conns map[net.Conn]struct{}
	wg    sync.WaitGroup
}

// NewTCP wraps an open listener.
func NewTCP(ln net.Listener, m *metrics.Metrics, log *slog.Logger) *TCP {
	return &TCP{ln: ln, metrics: m, log: log, conns: make(map[net.Conn]struct{})}
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
		t.wg.Go(func() { t.echo(c) })
	}
}

func (t *TCP) echo(c net.Conn) {
	defer func() {
		t.mu.Lock()
		delete(t.conns, c)
		t.mu.Unlock()
		_ = c.Close()
	}()
	// net.TCPConn's ReadFrom splices socket to socket on Linux: no copy in user space.
	n, err := io.Copy(c, c)
	t.metrics.TCPBytes.Add(float64(n))
	if err != nil && !errors.Is(err, net.ErrClosed) {
		t.log.Debug("tcp echo ended", slog.String("client", c.RemoteAddr().String()), slog.Any("err", err))
	}
}

// UDP echoes every datagram received on a packet connection.
type UDP struct {
	pc      net.PacketConn
	metrics *metrics.Metrics
	log     *slog.Logger
}

// NewUDP wraps an open packet connection.
func NewUDP(pc net.PacketConn, m *metrics.Metrics, log *slog.Logger) *UDP {
	return &UDP{pc: pc, metrics: m, log: log}
}

// Serve echoes datagrams until ctx is done, then closes the connection.
func (u *UDP) Serve(ctx context.Context) error {
	stop := context.AfterFunc(ctx, func() { _ = u.pc.Close() })
	defer stop()
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
		if _, err := u.pc.WriteTo(buf[:n], addr); err != nil {
			u.log.Debug("udp write failed", slog.String("client", addr.String()), slog.Any("err", err))
			continue
		}
		u.metrics.UDPPackets.Inc()
		u.metrics.UDPBytes.Add(float64(n))
	}
}
