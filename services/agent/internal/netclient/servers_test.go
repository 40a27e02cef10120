package netclient

import (
	"io"
	"net"
	"sync"
	"testing"
)

// startTCP serves every accepted connection with handle until the test ends
// and returns the address and a count of accepted connections.
func startTCP(tb testing.TB, handle func(net.Conn)) (addr string, accepted func() int) {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("listen tcp: %v", err)
	}
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		conns  []net.Conn
		closed bool
	)
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			if closed {
				_ = c.Close()
			}
			mu.Unlock()
			wg.Go(func() {
				defer c.Close()
				handle(c)
			})
		}
	})
	tb.Cleanup(func() {
		_ = ln.Close()
		mu.Lock()
		closed = true
		for _, c := range conns {
			_ = c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return ln.Addr().String(), func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(conns)
	}
}

// echoTCP echoes until the peer closes.
func echoTCP(c net.Conn) { serveTCP(c, func(b []byte) []byte { return b }) }

// serveTCP answers every read with reply(read) until the peer closes.
func serveTCP(c net.Conn, reply func([]byte) []byte) {
	buf := make([]byte, 64<<10)
	for {
		n, err := c.Read(buf)
		if err != nil {
			return
		}
		if _, err := c.Write(reply(buf[:n])); err != nil {
			return
		}
	}
}

// onceTCP reads size bytes, writes reply(them) and closes.
func onceTCP(size int, reply func([]byte) []byte) func(net.Conn) {
	return func(c net.Conn) {
		buf := make([]byte, size)
		if _, err := io.ReadFull(c, buf); err != nil {
			return
		}
		_, _ = c.Write(reply(buf))
	}
}

// startUDP answers every datagram with reply(datagram) until the test ends; a
// nil reply sends nothing.
func startUDP(tb testing.TB, reply func([]byte) []byte) string {
	tb.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("listen udp: %v", err)
	}
	uc, ok := pc.(*net.UDPConn)
	if !ok {
		tb.Fatalf("listen udp: got %T", pc)
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		buf := make([]byte, 64<<10)
		for {
			n, from, err := uc.ReadFromUDPAddrPort(buf)
			if err != nil {
				return
			}
			if out := reply(buf[:n]); out != nil {
				_, _ = uc.WriteToUDPAddrPort(out, from)
			}
		}
	})
	tb.Cleanup(func() {
		_ = uc.Close()
		wg.Wait()
	})
	return uc.LocalAddr().String()
}

// closedPort returns an address on which nothing listens (it did a moment ago).
func closedPort(tb testing.TB, network string) string {
	tb.Helper()
	var addr string
	if network == "udp" {
		pc, err := net.ListenPacket(network, "127.0.0.1:0")
		if err != nil {
			tb.Fatalf("listen: %v", err)
		}
		addr = pc.LocalAddr().String()
		_ = pc.Close()
	} else {
		ln, err := net.Listen(network, "127.0.0.1:0")
		if err != nil {
			tb.Fatalf("listen: %v", err)
		}
		addr = ln.Addr().String()
		_ = ln.Close()
	}
	return addr
}

func same(b []byte) []byte { return b }

func flipFirst(b []byte) []byte {
	b[0] ^= 0xff
	return b
}

func half(b []byte) []byte { return b[:len(b)/2] }

func none([]byte) []byte { return nil }

// longer appends a byte within the buffer's capacity.
func longer(b []byte) []byte { return append(b, 'x') }

// mustNew builds a factory and a client for connection conn.
func mustNew(tb testing.TB, opts Options, conn int) *client {
	tb.Helper()
	f, err := New(opts)
	if err != nil {
		tb.Fatalf("New: %v", err)
	}
	c, err := f.NewClient(tb.Context(), conn)
	if err != nil {
		tb.Fatalf("NewClient: %v", err)
	}
	tb.Cleanup(func() { _ = c.Close() })
	cl, ok := c.(*client)
	if !ok {
		tb.Fatalf("NewClient: got %T", c)
	}
	return cl
}
