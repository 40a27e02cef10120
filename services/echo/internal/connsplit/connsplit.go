// Package connsplit shares one listening port between HTTP/1.x and HTTP/2
// with prior knowledge (h2c): it reads the first bytes of each accepted
// connection and hands it, bytes replayed, to one of two listeners. The echo
// server serves HTTP/1.x with fasthttp (the fast path load tests hit) and h2c
// with net/http. It knows nothing else about HTTP.
package connsplit

import (
	"bytes"
	"errors"
	"net"
	"sync"
	"time"
)

// preface is how every HTTP/2 prior-knowledge connection starts (RFC 9113 §3.4);
// no HTTP/1.x request line does.
const preface = "PRI * HTTP/2.0\r\n"

// sniffTimeout bounds how long a new connection may take to send its first bytes.
const sniffTimeout = 10 * time.Second

// Split accepts from ln until it is closed and routes each connection.
type Split struct {
	ln     net.Listener
	http1  *chanListener
	http2  *chanListener
	wg     sync.WaitGroup
	closed chan struct{}
	once   sync.Once

	mu       sync.Mutex
	sniffing map[net.Conn]struct{} // connections whose first bytes are being read
}

// New starts splitting ln; HTTP1 and HTTP2 return the two sides.
func New(ln net.Listener) *Split {
	s := &Split{
		ln:       ln,
		http1:    newChanListener(ln.Addr()),
		http2:    newChanListener(ln.Addr()),
		closed:   make(chan struct{}),
		sniffing: make(map[net.Conn]struct{}),
	}
	s.wg.Go(s.accept)
	return s
}

// HTTP1 returns the listener of HTTP/1.x connections.
func (s *Split) HTTP1() net.Listener { return s.http1 }

// HTTP2 returns the listener of h2c connections.
func (s *Split) HTTP2() net.Listener { return s.http2 }

// Close closes the real listener and both sides; connections not yet routed
// are closed.
func (s *Split) Close() error {
	var err error
	s.once.Do(func() {
		close(s.closed)
		err = s.ln.Close()
		s.mu.Lock()
		for c := range s.sniffing {
			_ = c.Close()
		}
		s.mu.Unlock()
		s.wg.Wait()
		_ = s.http1.Close()
		_ = s.http2.Close()
	})
	return err
}

// accept runs until the real listener is closed. Other accept errors (too
// many open files, for one) are retried with a growing pause, as net/http does:
// a load-test target must not stop accepting for good.
func (s *Split) accept() {
	var pause time.Duration
	for {
		c, err := s.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				_ = s.http1.Close()
				_ = s.http2.Close()
				return
			}
			pause = min(max(2*pause, 5*time.Millisecond), time.Second)
			select {
			case <-time.After(pause):
				continue
			case <-s.closed:
				return
			}
		}
		pause = 0
		if !s.track(c) {
			_ = c.Close()
			return
		}
		s.wg.Go(func() { s.route(c) })
	}
}

// track registers c as being sniffed; false once the split is closed.
func (s *Split) track(c net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.closed:
		return false
	default:
	}
	s.sniffing[c] = struct{}{}
	return true
}

func (s *Split) untrack(c net.Conn) {
	s.mu.Lock()
	delete(s.sniffing, c)
	s.mu.Unlock()
}

// route reads enough of c to tell the protocols apart and hands it over.
func (s *Split) route(c net.Conn) {
	defer s.untrack(c)
	_ = c.SetReadDeadline(time.Now().Add(sniffTimeout))
	buf := make([]byte, len(preface))
	n := 0
	for n < len(buf) && bytes.HasPrefix([]byte(preface), buf[:n]) {
		m, err := c.Read(buf[n:])
		n += m
		if err != nil {
			break
		}
	}
	_ = c.SetReadDeadline(time.Time{})
	if n == 0 {
		_ = c.Close()
		return
	}
	pc := &prefixConn{Conn: c, prefix: buf[:n]}
	target := s.http1
	if n == len(preface) && string(buf) == preface {
		target = s.http2
	}
	select {
	case target.conns <- pc:
	case <-s.closed:
		_ = c.Close()
	}
}

// prefixConn replays the sniffed bytes before reading from the connection.
type prefixConn struct {
	net.Conn
	prefix []byte
}

func (p *prefixConn) Read(b []byte) (int, error) {
	if len(p.prefix) > 0 {
		n := copy(b, p.prefix)
		p.prefix = p.prefix[n:]
		return n, nil
	}
	return p.Conn.Read(b)
}

// chanListener is a net.Listener fed by Split.
type chanListener struct {
	addr  net.Addr
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func newChanListener(addr net.Addr) *chanListener {
	return &chanListener{addr: addr, conns: make(chan net.Conn), done: make(chan struct{})}
}

// Accept implements net.Listener.
func (l *chanListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

// Close implements net.Listener; it does not close the real listener.
func (l *chanListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

// Addr implements net.Listener.
func (l *chanListener) Addr() net.Addr { return l.addr }
