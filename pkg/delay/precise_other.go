//go:build !linux

package delay

import "time"

func preciseSleep(d time.Duration) { time.Sleep(d) }
