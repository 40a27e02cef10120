//go:build unix

package rawsock

import (
	"errors"
	"io"
	"net"
	"os"
	"syscall"
)

// sysConn is a TCP or unix socket whose Read and Write make their system
// calls through rawIO, waiting on the poller (syscall.RawConn) when the
// socket is not ready, so that deadlines and Close work as on the conn
// itself. A TLS client on top reads and writes its records through it.
type sysConn struct {
	net.Conn
	rc syscall.RawConn
	// rd and wr carry a Read and a Write through their raw callbacks,
	// made once (readFn, writeFn) so that a request allocates nothing;
	// apart, so that a Read and a Write may run at once, as net.Conn allows.
	rd, wr          rawCall
	readFn, writeFn func(uintptr) bool
}

// rawCall is one Read's or Write's buffer, the bytes it moved and its
// error from the system call.
type rawCall struct {
	b   []byte
	n   int
	err error
}

// Wrap returns conn reading and writing through rawIO when it is exactly a
// *net.TCPConn or *net.UnixConn, else conn itself. The result implements
// Raw.
func Wrap(conn net.Conn) net.Conn {
	var rc syscall.RawConn
	switch c := conn.(type) {
	case *net.TCPConn:
		rc, _ = c.SyscallConn()
	case *net.UnixConn:
		rc, _ = c.SyscallConn()
	}
	if rc == nil {
		return conn
	}
	s := &sysConn{Conn: conn, rc: rc}
	s.readFn, s.writeFn = s.read, s.write
	return s
}

// RawConn implements Raw.
func (s *sysConn) RawConn() syscall.RawConn { return s.rc }

// Read implements net.Conn.
func (s *sysConn) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	s.rd = rawCall{b: b}
	err := s.rc.Read(s.readFn)
	s.rd.b = nil
	if err != nil { // the wait failed: closed, or the deadline passed
		return 0, s.opError("read", err)
	}
	if s.rd.err != nil {
		return 0, s.rd.err
	}
	if s.rd.n == 0 {
		return 0, io.EOF
	}
	return s.rd.n, nil
}

// read is Read's callback: it declines while the socket has nothing.
func (s *sysConn) read(fd uintptr) bool {
	n, err, ready := ReadOnce(fd, s.rd.b)
	if err != nil {
		s.rd.err = s.opError("read", os.NewSyscallError("read", err))
	}
	s.rd.n = n
	return ready
}

// Write implements net.Conn: all of b, or an error.
func (s *sysConn) Write(b []byte) (int, error) {
	s.wr = rawCall{b: b}
	err := s.rc.Write(s.writeFn)
	s.wr.b = nil
	if err != nil {
		return s.wr.n, s.opError("write", err)
	}
	return s.wr.n, s.wr.err
}

// write is Write's callback: it declines while the socket's buffer is full.
func (s *sysConn) write(fd uintptr) bool {
	n, err := WriteSome(fd, s.wr.b[s.wr.n:])
	s.wr.n += n
	switch {
	case s.wr.n == len(s.wr.b):
	case errors.Is(err, syscall.EAGAIN):
		return false
	case err != nil:
		s.wr.err = s.opError("write", os.NewSyscallError("write", err))
	default: // the socket took nothing without an error
		s.wr.err = s.opError("write", io.ErrShortWrite)
	}
	return true
}

// opError wraps err as net's own Read and Write do.
func (s *sysConn) opError(op string, err error) error {
	local := s.LocalAddr()
	return &net.OpError{Op: op, Net: local.Network(), Source: local, Addr: s.RemoteAddr(), Err: err}
}
