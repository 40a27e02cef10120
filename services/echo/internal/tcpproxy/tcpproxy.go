// Package tcpproxy is barrage-echo's TCP proxy (Fortio's `-tcp-proxy`): every
// connection accepted on a listener is joined to a new connection to one
// fixed destination, bytes copied both ways, each half closed when its
// source ends. It is not a load balancer and does not look at the bytes.
package tcpproxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"time"
)

// Route is one "listen dest" pair.
type Route struct {
	Listen string
	Dest   string
}

// ParseRoute parses "listen dest" (two host:port addresses separated by
// spaces), the form of Fortio's -tcp-proxy.
func ParseRoute(s string) (Route, error) {
	f := strings.Fields(s)
	if len(f) != 2 {
		return Route{}, fmt.Errorf("tcp proxy %q: want \"listen-address destination-address\"", s)
	}
	for _, a := range f {
		if _, _, err := net.SplitHostPort(a); err != nil {
			return Route{}, fmt.Errorf("tcp proxy %q: %w", s, err)
		}
	}
	return Route{Listen: f[0], Dest: f[1]}, nil
}

// dialTimeout bounds the connection to the destination.
const dialTimeout = 10 * time.Second

// Proxy serves one route on its listener.
type Proxy struct {
	ln   net.Listener
	dest string
	log  *slog.Logger

	mu    sync.Mutex
	conns map[net.Conn]struct{}
	wg    sync.WaitGroup
}

// New returns a proxy to dest serving on ln.
func New(ln net.Listener, dest string, log *slog.Logger) *Proxy {
	return &Proxy{ln: ln, dest: dest, log: log, conns: map[net.Conn]struct{}{}}
}

// Serve accepts until ctx is done, then closes the listener and every
// proxied connection and waits for their copies to end.
func (p *Proxy) Serve(ctx context.Context) error {
	stop := context.AfterFunc(ctx, func() { _ = p.ln.Close() })
	defer stop()
	defer p.closeAll()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return nil
			}
			return fmt.Errorf("tcp proxy %s: accept: %w", p.ln.Addr(), err)
		}
		p.wg.Go(func() { p.join(ctx, c) })
	}
}

// join dials the destination and copies between it and c until both
// directions are done.
func (p *Proxy) join(ctx context.Context, c net.Conn) {
	d := net.Dialer{Timeout: dialTimeout}
	up, err := d.DialContext(ctx, "tcp", p.dest)
	if err != nil {
		p.log.Warn("tcp proxy: dial destination", slog.String("dest", p.dest), slog.Any("error", err))
		_ = c.Close()
		return
	}
	if !p.track(c, up) {
		return
	}
	defer p.untrack(c, up)
	var wg sync.WaitGroup
	wg.Go(func() { pipe(up, c) })
	pipe(c, up)
	wg.Wait()
}

// pipe copies src to dst, then half-closes dst (or closes it when it
// cannot be half-closed) so the peer sees the end.
func pipe(dst, src net.Conn) {
	_, _ = io.Copy(dst, src)
	if tc, ok := dst.(interface{ CloseWrite() error }); ok {
		_ = tc.CloseWrite()
		return
	}
	_ = dst.Close()
}

// track registers a pair; false (both closed) when the proxy is closing.
func (p *Proxy) track(a, b net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.conns == nil {
		_ = a.Close()
		_ = b.Close()
		return false
	}
	p.conns[a], p.conns[b] = struct{}{}, struct{}{}
	return true
}

func (p *Proxy) untrack(a, b net.Conn) {
	p.mu.Lock()
	if p.conns != nil {
		delete(p.conns, a)
		delete(p.conns, b)
	}
	p.mu.Unlock()
	_ = a.Close()
	_ = b.Close()
}

func (p *Proxy) closeAll() {
	p.mu.Lock()
	for c := range p.conns {
		_ = c.Close()
	}
	p.conns = nil
	p.mu.Unlock()
	p.wg.Wait()
}
