//go:build !unix

package procs

import "time"

// ProcessCPU is not measured on this platform.
func ProcessCPU() (time.Duration, bool) { return 0, false }
