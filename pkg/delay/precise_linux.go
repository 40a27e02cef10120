package delay

import (
	"syscall"
	"time"
)

// preciseSleep blocks the calling thread in nanosleep; the runtime hands the
// goroutine's P to another thread meanwhile.
func preciseSleep(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	for {
		var rem syscall.Timespec
		if err := syscall.Nanosleep(&ts, &rem); err != syscall.EINTR {
			return
		}
		ts = rem
	}
}
