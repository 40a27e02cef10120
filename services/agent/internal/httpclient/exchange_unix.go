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
		for r.wrote < len(r.out) {
			n, err := syscall.Write(int(fd), r.out[r.wrote:])
			if n > 0 {
				r.wrote += n
			}
			switch {
			case err == nil && n > 0:
				continue
			case errors.Is(err, syscall.EINTR):
				continue
			case errors.Is(err, syscall.EAGAIN):
				r.short = true
				return true
			case err != nil:
				r.werr = r.opError("write", err)
				return true
			default: // n == 0 without an error: let conn.Write finish it
				r.short = true
				return true
			}
		}
		return false
	}
	for {
		n, err := syscall.Read(int(fd), r.p)
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EAGAIN):
			return false
		case err != nil:
			r.rerr = r.opError("read", err)
			return true
		}
		r.n = n
		return true
	}
}
