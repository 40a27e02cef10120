package cli

import (
	"os"
	"runtime"
	"strconv"
	"testing"
)

// TestMain pins GOMAXPROCS in the environment, which turns off the
// GOMAXPROCS governor (internal/procs) that load and serve start: the tests
// of this package run many loads at once in one process, and one load must
// not resize the Ps under the others.
func TestMain(m *testing.M) {
	if _, set := os.LookupEnv("GOMAXPROCS"); !set {
		_ = os.Setenv("GOMAXPROCS", strconv.Itoa(runtime.GOMAXPROCS(0)))
	}
	os.Exit(m.Run())
}
