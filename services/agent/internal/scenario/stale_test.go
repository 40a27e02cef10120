package scenario_test

import (
	"bufio"
	"net"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/barrage-dev/barrage/services/agent/internal/scenario"
)

// TestStaleConnectionIsRetried: a server that closes every kept-alive
// connection after one response, without saying so (no Connection:
// close), as one whose idle timeout passed does. The next iteration's
// request on that connection finds it closed before any response byte and
// is sent once more on a new connection, as net/http does: no errors, one
// connection per request.
func TestStaleConnectionIsRetried(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	var conns atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			go func() {
				defer func() { _ = c.Close() }()
				if _, err := http.ReadRequest(bufio.NewReader(c)); err != nil {
					return
				}
				_, _ = c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"))
			}()
		}
	}()
	plan := mustPlan(t, `
name: stale
steps:
  - name: get
    url: http://ECHO/x
    checks: [{name: ok, body_contains: ok}]
`, ln.Addr().String())
	res, err := scenario.Run(runCtx(t), scenario.Options{Plan: plan, IterationsPerSecond: 20, MaxIterations: 4, Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	if s := res.Steps[0]; res.Completed != 4 || s.Errors != 0 || s.RetCodes["200"] != 4 {
		t.Fatalf("completed %d; step %+v; want 4 answers", res.Completed, s)
	}
	if n := conns.Load(); n != 4 {
		t.Errorf("%d connections, want 4 (one per request)", n)
	}
}
