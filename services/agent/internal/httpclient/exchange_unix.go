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
