package httpclient

import (
	"io"
	"net"
	"os"
	"syscall"

	"github.com/barrage-dev/barrage/services/agent/internal/rawsock"
)

// connReader is what a client's bufio.Reader reads from: the connection,
// and on plain TCP and unix sockets the request written and the response
// awaited in one pass through the poller (arm, then the reader's next fill).
//
// Why: a plain conn.Write followed by conn.Read costs, per keep-alive
// request, the write, a read that usually finds nothing yet (EAGAIN), a
// wait on the poller and a second read
// (bench/results/agent-cpu-profile-2026-11-24.md). The wasted read can go,
// but only if the poller's readiness for the socket is reset before the
// request leaves: syscall.RawConn.Read resets it (internal/poll's
// prepareRead) and then calls its function, so that function writes the
// request and reports "not ready"; the poller then waits, and an answer
// arriving at any time after the write wakes it. Resetting after the write
// instead (a callback that only declines its first call) can lose a response
// that arrived in between, and hang (the profile's "Tried and not adopted").
type connReader struct {
	conn net.Conn
	// rc is conn's raw connection for the combined write and read: set
	// only on rawsock's wrapper of a TCP or unix socket (every one the
	// client dials, on Unix); nil on TLS and on any other conn, whose own
	// Read and Write must not be bypassed.
	rc syscall.RawConn
	// out is the request to write before the next read (armed); wrote and
	// werr are what writing it did.
	out   []byte
	wrote int
	werr  error
	// p, n and rerr carry the read through the raw callback, which is a
	// method value made once (rawFn) so that a request allocates nothing.
	p     []byte
	n     int
	rerr  error
	sent  bool // the armed request has been written (or failed)
	short bool // the write did not take it all: finish with conn.Write
	rawFn func(uintptr) bool
}

// reset points r at conn, disarmed.
func (r *connReader) reset(conn net.Conn) {
	r.conn, r.rc = conn, nil
	r.out, r.p = nil, nil
	if c, ok := conn.(rawsock.Raw); ok { // every socket the client dials, on Unix
		r.rc = c.RawConn()
	}
	if r.rawFn == nil {
		r.rawFn = r.raw
	}
}

// combined reports whether arm can be used on the current connection.
func (r *connReader) combined() bool { return r.rc != nil }

// arm makes the next Read write req first; the caller then reads (through
// its bufio.Reader, which must hold no buffered bytes) and takes the
// write's outcome from written.
func (r *connReader) arm(req []byte) {
	r.out, r.wrote, r.werr, r.sent, r.short = req, 0, nil, false, false
}

// written returns how much of the armed request was written and the write's
// error, and disarms r.
func (r *connReader) written() (int, error) {
	n, err := r.wrote, r.werr
	r.out = nil
	return n, err
}

// Read implements io.Reader for the client's bufio.Reader.
func (r *connReader) Read(p []byte) (int, error) {
	if r.out == nil || r.sent {
		return r.conn.Read(p)
	}
	r.p, r.n, r.rerr = p, 0, nil
	err := r.rc.Read(r.rawFn)
	r.p = nil
	if !r.sent { // the poller refused before the callback ran (closed, deadline passed)
		r.sent, r.werr = true, err
		return 0, err
	}
	if r.werr != nil {
		return 0, r.werr
	}
	if r.short {
		// The socket took part of the request: write the rest with the
		// poller's help (and the write deadline), then read as usual.
		n, err := r.conn.Write(r.out[r.wrote:])
		r.wrote += n
		if err != nil {
			r.werr = err
			return 0, err
		}
		return r.conn.Read(p)
	}
	if err != nil { // the wait failed: closed, or the deadline passed
		return 0, err
	}
	if r.n == 0 && r.rerr == nil {
		return 0, io.EOF
	}
	return r.n, r.rerr
}

// opError wraps a failed system call as net's own Read and Write do, so
// that errors.Is finds the errno (closedByPeer) and the text matches.
func (r *connReader) opError(op string, err error) error {
	local := r.conn.LocalAddr()
	return &net.OpError{Op: op, Net: local.Network(), Source: local, Addr: r.conn.RemoteAddr(),
		Err: os.NewSyscallError(op, err)}
}
