package request

import (
	"net"
	"sync"
)

// ConnSlot holds a Client's current connection so that Close, from any
// goroutine, can interrupt the request in progress. The goroutine running Do
// is the only one that calls Set, Drop and Conn.
type ConnSlot struct {
	mu     sync.Mutex
	conn   net.Conn
	closed bool
}

// Conn returns the current connection, nil when there is none. Only the Do
// goroutine calls it, so it needs no lock: that goroutine is the only writer.
func (s *ConnSlot) Conn() net.Conn { return s.conn }

// Set installs a new connection; after Close it closes c and returns net.ErrClosed.
func (s *ConnSlot) Set(c net.Conn) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		_ = c.Close()
		return net.ErrClosed
	}
	s.conn = c
	return nil
}

// Drop closes the current connection, if any; the next request dials again.
func (s *ConnSlot) Drop() {
	s.mu.Lock()
	if s.conn != nil {
		_ = s.conn.Close()
		s.conn = nil
	}
	s.mu.Unlock()
}

// Closed reports whether Close was called.
func (s *ConnSlot) Closed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// Close closes the current connection and refuses new ones; it is idempotent.
func (s *ConnSlot) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	if s.conn != nil {
		return s.conn.Close()
	}
	return nil
}
