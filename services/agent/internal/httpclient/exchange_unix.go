//go:build unix

package httpclient

import (
	"errors"
	"syscall"
)

// rawSupported: the combined write and read works on Unix sockets' fds.
const rawSupported = true

// raw is the syscall.RawConn.Read callback: its first call writes the
// armed request and declines, so the poller waits for the answer; later
// calls read, declining while the socket has nothing (a stale wake-up).
func (r *connReader) raw(fd uintptr) bool {
	if !r.sent {
		r.sent = true
		n, err := writeSome(fd, r.out[r.wrote:])
		r.wrote += n
		switch {
		case r.wrote == len(r.out):
			return false
		case err == nil, errors.Is(err, syscall.EAGAIN):
			r.short = true // let conn.Write finish it
		default:
			r.werr = r.opError("write", err)
		}
		return true
	}
	n, err, ready := readOnce(fd, r.p)
	if err != nil {
		r.rerr = r.opError("read", err)
	}
	r.n = n
	return ready
}

// readOnce reads the non-blocking socket fd into b, once: ready is false
// when it had nothing yet (EAGAIN).
func readOnce(fd uintptr, b []byte) (n int, err error, ready bool) {
	for {
		n, err := rawIO(syscall.SYS_READ, fd, b)
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EAGAIN):
			return 0, nil, false
		case err != nil:
			return 0, err, true
		}
		return n, nil, true
	}
}

// writeSome writes b to the non-blocking socket fd until all of it is
// taken, the socket's buffer is full (EAGAIN) or the write fails; n is
// what was taken. A write that takes nothing without an error ends it
// with a nil error and n < len(b).
func writeSome(fd uintptr, b []byte) (n int, err error) {
	for n < len(b) {
		k, err := rawIO(syscall.SYS_WRITE, fd, b[n:])
		if k > 0 {
			n += k
		}
		switch {
		case err == nil && k > 0, errors.Is(err, syscall.EINTR):
			continue
		case err != nil:
			return n, err
		}
		return n, nil
	}
	return n, nil
}
