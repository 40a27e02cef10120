package httpclient

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/services/agent/internal/cannedhttp"
	"github.com/barrage-dev/barrage/services/agent/internal/rawsock"
)

// TestCombinedOnlyOnPlainSockets: the combined write and read is used on
// plain TCP and unix sockets, never on TLS (whose Read and Write must run)
// nor on a wrapped conn.
func TestCombinedOnlyOnPlainSockets(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	server, piped := net.Pipe()
	t.Cleanup(func() { _ = server.Close(); _ = piped.Close() })
	tcp, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tcp.Close() })
	type wrapped struct{ net.Conn }
	for _, tt := range []struct {
		name string
		conn net.Conn
		want bool
	}{
		{"tcp, as dialed", rawsock.Wrap(tcp), rawSupported},
		{"pipe", piped, false},
		{"wrapped tcp", wrapped{tcp}, false},
		{"wrapped tcp, as dialed", rawsock.Wrap(wrapped{tcp}), false},
	} {
		var r connReader
		r.reset(tt.conn)
		if got := r.combined(); got != tt.want {
			t.Errorf("%s: combined = %v, want %v", tt.name, got, tt.want)
		}
	}
	// And through a client: a keep-alive connection over TCP uses it.
	addr := cannedhttp.Serve(t, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
	c := mustClient(t, mustFactory(t, Options{URL: "http://" + addr + "/"})).(*client)
	for i := range 3 {
		if res := c.Do(context.Background()); res.Code != 200 || res.Received != 40 {
			t.Fatalf("request %d: %+v", i, res)
		}
	}
	if !c.cr.combined() && rawSupported {
		t.Fatal("a TCP connection does not use the combined write and read")
	}
}

// TestCombinedShortWrite: a request larger than the socket takes at once is
// finished by conn.Write after the combined pass, and the response still
// arrives whole, its bytes counted.
func TestCombinedShortWrite(t *testing.T) {
	t.Parallel()
	const size = 16 << 20 // far more than loopback's socket buffers hold
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				br := bufio.NewReader(conn)
				for {
					time.Sleep(50 * time.Millisecond) // let the client's socket fill
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					n, err := io.Copy(io.Discard, req.Body)
					if err != nil {
						return
					}
					body := strconv.FormatInt(n, 10)
					if _, err := io.WriteString(conn, "HTTP/1.1 200 OK\r\nContent-Length: "+
						strconv.Itoa(len(body))+"\r\n\r\n"+body); err != nil {
						return
					}
				}
			}()
		}
	}()
	f := mustFactory(t, Options{URL: "http://" + ln.Addr().String() + "/", Method: "POST",
		Payload: make([]byte, size), Timeout: 30 * time.Second})
	c := mustClient(t, f)
	for i := range 2 {
		res := c.Do(context.Background())
		if res.Code != 200 || res.Sent != int64(len(f.RequestBytes())) {
			t.Fatalf("request %d: %+v, want 200 with all %d bytes sent", i, res, len(f.RequestBytes()))
		}
		if want := int64(len("HTTP/1.1 200 OK\r\nContent-Length: 8\r\n\r\n16777216")); res.Received != want {
			t.Fatalf("request %d: received %d bytes, want %d (the server read %d?)", i, res.Received, want, size)
		}
	}
}

// TestStaleConnectionAfterLingeringClose: a server that shut its side of an
// idle keep-alive connection and lingers (reading nothing, closing only
// later) must not hold the next request until it closes: the client sees
// the EOF at once and sends again on a new connection.
func TestStaleConnectionAfterLingeringClose(t *testing.T) {
	t.Parallel()
	const linger = 5 * time.Second
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	accepted := make(chan struct{}, 4)
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- struct{}{}
			go func() {
				defer conn.Close()
				buf := make([]byte, 4096)
				if _, err := conn.Read(buf); err != nil {
					return
				}
				if _, err := io.WriteString(conn, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"); err != nil {
					return
				}
				time.Sleep(20 * time.Millisecond) // idle: the server gives up on the connection
				_ = conn.(*net.TCPConn).CloseWrite()
				time.Sleep(linger)
			}()
		}
	}()
	c := mustClient(t, mustFactory(t, Options{URL: "http://" + ln.Addr().String() + "/", Timeout: 30 * time.Second}))
	if res := c.Do(context.Background()); res.Code != 200 {
		t.Fatalf("first request: %+v", res)
	}
	time.Sleep(2 * combineIdle) // the server has shut its side
	start := time.Now()
	if res := c.Do(context.Background()); res.Code != 200 {
		t.Fatalf("request after the server's close: %+v", res)
	}
	if took := time.Since(start); took > linger/2 {
		t.Fatalf("request after the server's close took %v: it waited for the lingering close", took)
	}
	if n := len(accepted); n != 2 {
		t.Fatalf("used %d connections, want 2", n)
	}
}

// TestDeadlineRefreshedAfterAPause: a keep-alive request after a pause gets
// the whole timeout again, though requests in quick succession share one
// deadline (refreshDeadline).
//
// The pause and the slow answer add up to more than the timeout, so the
// first request's deadline would cut the second short: sleeps never end
// early, so that holds on any machine. The second answer comes half the
// timeout before its own deadline: that is the room left for a busy CI
// host (-race, parallel packages, 2 cores) to run the server late. A 300 ms
// timeout with 100 ms of room once failed there.
func TestDeadlineRefreshedAfterAPause(t *testing.T) {
	t.Parallel()
	const timeout = time.Second
	srv := startRaw(t, func(i int) (string, bool) {
		if i == 1 {
			time.Sleep(timeout / 2) // slow, but within the timeout
		}
		return "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", false
	})
	c := mustClient(t, mustFactory(t, Options{URL: "http://" + srv.ln.Addr().String() + "/", Timeout: timeout}))
	if res := c.Do(context.Background()); res.Code != 200 {
		t.Fatalf("first request: %+v", res)
	}
	time.Sleep(timeout * 6 / 10) // the first deadline now falls within the slow answer
	if res := c.Do(context.Background()); res.Code != 200 {
		t.Fatalf("slow request after a pause: %+v, want 200 within its own timeout", res)
	}
	if got := srv.accepted.Load(); got != 1 {
		t.Fatalf("used %d connections, want 1", got)
	}
}
