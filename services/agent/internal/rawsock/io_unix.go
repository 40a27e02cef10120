//go:build unix

package rawsock

import (
	"errors"
	"syscall"
)

// ReadOnce reads the non-blocking socket fd into b, once: ready is false
// when it had nothing yet (EAGAIN).
func ReadOnce(fd uintptr, b []byte) (n int, err error, ready bool) {
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

// WriteSome writes b to the non-blocking socket fd until all of it is
// taken, the socket's buffer is full (EAGAIN) or the write fails; n is
// what was taken. A write that takes nothing without an error ends it
// with a nil error and n < len(b).
func WriteSome(fd uintptr, b []byte) (n int, err error) {
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
