//go:build accuracy

package accuracy_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/services/agent/internal/echoproc"
)

// echoAddrs are the addresses a barrage-echo process bound.
type echoAddrs struct{ http, grpc, tcp, udp, h3, redirect string }

// startEcho runs the real barrage-echo on free loopback ports until the test ends.
func startEcho(t *testing.T, extra ...string) echoAddrs {
	t.Helper()
	a := echoproc.Start(t, extra...)
	return echoAddrs{http: a.HTTP, grpc: a.GRPC, tcp: a.TCP, udp: a.UDP, h3: a.H3, redirect: a.Redirect}
}

// runCtx bounds every load of these tests.
func runCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func httpURL(a echoAddrs, query string) string {
	if query == "" {
		return "http://" + a.http + "/"
	}
	return "http://" + a.http + "/?" + strings.TrimPrefix(query, "?")
}
