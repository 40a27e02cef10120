//go:build unix

package httpclient

import (
	"errors"
	"syscall"

	"github.com/barrage-dev/barrage/services/agent/internal/rawsock"
)

// rawSupported: the combined write and read works on Unix sockets' fds.
const rawSupported = true

// raw is the syscall.RawConn.Read callback: its first call writes the
// armed request and declines, so the poller waits for the answer; later
// calls read, declining while the socket has nothing (a stale wake-up).
func (r *connReader) raw(fd uintptr) bool {
	if !r.sent {
		r.sent = true
		n, err := rawsock.WriteSome(fd, r.out[r.wrote:])
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
	n, err, ready := rawsock.ReadOnce(fd, r.p)
	if err != nil {
		r.rerr = r.opError("read", err)
	}
	r.n = n
	return ready
}
