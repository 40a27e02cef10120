// Package cannedhttp is test support: a loopback server that answers every
// read with one fixed HTTP/1.1 response and allocates nothing per request, so
// allocation counts and benchmarks of the agent's request path measure the
// agent alone. It is not an HTTP server.
package cannedhttp

import (
	"net"
	"testing"
)

// Serve starts the server for the test's lifetime and returns its address.
func Serve(tb testing.TB, response string) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = ln.Close() })
	out := []byte(response)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go answer(c, out)
		}
	}()
	return ln.Addr().String()
}

func answer(c net.Conn, out []byte) {
	defer c.Close()
	buf := make([]byte, 4096)
	for {
		if _, err := c.Read(buf); err != nil {
			return
		}
		if _, err := c.Write(out); err != nil {
			return
		}
	}
}
