package connsplit

import (
	"errors"
	"io"
	"net"
	"testing"
	"time"
)

func TestSplitRoutesByPreface(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := New(ln)
	t.Cleanup(func() { _ = s.Close() })
	tests := []struct {
		name    string
		send    string
		wantH2  bool
		wantGot string
	}{
		{"http/1.1", "GET / HTTP/1.1\r\nHost: x\r\n\r\n", false, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"},
		{"h2c preface", preface + "\r\nSM\r\n\r\n", true, preface + "\r\nSM\r\n\r\n"},
		{"short http/1 request", "GET /\n", false, "GET /\n"},
		{"looks like preface then differs", "PRI * HTTP/1.1\r\n\r\n", false, "PRI * HTTP/1.1\r\n\r\n"},
	}
	for _, tt := range tests {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(c, tt.send); err != nil {
			t.Fatal(err)
		}
		side := s.HTTP1()
		if tt.wantH2 {
			side = s.HTTP2()
		}
		got, err := acceptWithin(side, 5*time.Second)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		buf := make([]byte, len(tt.wantGot))
		_ = got.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := io.ReadFull(got, buf); err != nil || string(buf) != tt.wantGot {
			t.Fatalf("%s: replayed %q, %v; want %q", tt.name, buf, err, tt.wantGot)
		}
		_ = got.Close()
		_ = c.Close()
	}
}

func TestCloseStopsBothSides(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := New(ln)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for _, side := range []net.Listener{s.HTTP1(), s.HTTP2()} {
		if _, err := side.Accept(); err == nil {
			t.Fatal("Accept after Close succeeded")
		}
	}
	if _, err := net.DialTimeout("tcp", ln.Addr().String(), time.Second); err == nil {
		t.Fatal("real listener still open")
	}
}

func acceptWithin(l net.Listener, d time.Duration) (net.Conn, error) {
	type result struct {
		c   net.Conn
		err error
	}
	ch := make(chan result, 1)
	go func() {
		c, err := l.Accept()
		ch <- result{c, err}
	}()
	select {
	case r := <-ch:
		return r.c, r.err
	case <-time.After(d):
		return nil, io.ErrNoProgress
	}
}

// flakyListener fails Accept with a transient error before passing through.
type flakyListener struct {
	net.Listener
	failures int
}

func (l *flakyListener) Accept() (net.Conn, error) {
	if l.failures > 0 {
		l.failures--
		return nil, &net.OpError{Op: "accept", Err: errors.New("too many open files")}
	}
	return l.Listener.Accept()
}

func TestAcceptErrorsAreRetried(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := New(&flakyListener{Listener: ln, failures: 3})
	t.Cleanup(func() { _ = s.Close() })
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, _ = io.WriteString(c, "GET / HTTP/1.1\r\n\r\n")
	got, err := acceptWithin(s.HTTP1(), 5*time.Second)
	if err != nil {
		t.Fatalf("no connection after transient accept errors: %v", err)
	}
	_ = got.Close()
}

func TestCloseDoesNotWaitForSilentConnections(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := New(ln)
	c, err := net.Dial("tcp", ln.Addr().String()) // connects, never sends
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		s.mu.Lock()
		n := len(s.sniffing)
		s.mu.Unlock()
		if n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("connection never reached the sniffer")
		}
		time.Sleep(5 * time.Millisecond)
	}
	start := time.Now()
	_ = s.Close()
	if elapsed := time.Since(start); elapsed > 2*time.Second {
		t.Fatalf("Close waited %v for a silent connection (sniff timeout is %v)", elapsed, sniffTimeout)
	}
}
