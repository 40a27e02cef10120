//go:build unix

package httpclient

import (
	"errors"
	"syscall"
	"unsafe"
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
			n, err := rawIO(syscall.SYS_WRITE, fd, r.out[r.wrote:])
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
		n, err := rawIO(syscall.SYS_READ, fd, r.p)
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

// rawIO reads or writes (trap) the non-blocking socket fd without telling
// the scheduler it entered a system call (syscall.RawSyscall): such a call
// returns at once, EAGAIN when it cannot proceed. A call announced as a
// system call (syscall.Read, syscall.Write) lets the runtime's sysmon hand
// the goroutine's P to another thread when the call outlasts its 20 µs
// tick, which it does on loopback, where the write runs the receiver's side
// of the stack; with one P that means waking a thread (futex) and a context
// switch every few requests, for nothing.
func rawIO(trap, fd uintptr, b []byte) (int, error) {
	// b stays referenced until the call returns, as in syscall.Read and syscall.Write.
	p := unsafe.Pointer(unsafe.SliceData(b)) //nolint:gosec // a buffer's address for read(2)/write(2), as package syscall passes it
	n, _, errno := syscall.RawSyscall(trap, fd, uintptr(p), uintptr(len(b)))
	if errno != 0 {
		return 0, errno
	}
	return int(n), nil
}
