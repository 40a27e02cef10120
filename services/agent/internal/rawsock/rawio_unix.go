//go:build unix && !race

package rawsock

import (
	"syscall"
	"unsafe"
)

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
