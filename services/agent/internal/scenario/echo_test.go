package scenario_test

import (
	"testing"

	"github.com/barrage-dev/barrage/services/agent/internal/echoproc"
)

// startEcho runs the real barrage-echo on free loopback ports until the
// test ends and returns its HTTP address.
func startEcho(t *testing.T) string {
	t.Helper()
	return echoproc.Start(t).HTTP
}
