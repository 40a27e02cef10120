//go:build unix && race

package rawsock

import "syscall"

// rawIO, under the race detector, goes through package syscall after all:
// its annotations tell the detector that what a goroutine wrote before a
// write to a socket happens before what another does after reading it (a
// test's handler and the client, for one). The raw call (rawio_unix.go)
// would hide that edge and report races the kernel's ordering rules out.
func rawIO(trap, fd uintptr, b []byte) (int, error) {
	var (
		n   int
		err error
	)
	if trap == syscall.SYS_READ {
		n, err = syscall.Read(int(fd), b)
	} else {
		n, err = syscall.Write(int(fd), b)
	}
	if err != nil {
		return 0, err
	}
	return n, nil
}
