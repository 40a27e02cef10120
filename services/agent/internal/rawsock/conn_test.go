//go:build unix

package rawsock

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"syscall"
	"testing"
	"time"
)

// pair returns the client side of a loopback TCP connection wrapped by
// Wrap, and the server side as it is.
func pair(t *testing.T) (*sysConn, net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ln.Close() }()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	srv := <-accepted
	s, ok := Wrap(c).(*sysConn)
	if !ok {
		t.Fatalf("Wrap(%T) did not wrap it", c)
	}
	t.Cleanup(func() { _ = s.Close(); _ = srv.Close() })
	return s, srv
}

func TestSysConnCarriesBytesBothWays(t *testing.T) {
	c, srv := pair(t)
	// 8 MiB does not fit the socket's buffers: the write waits on the poller
	// (EAGAIN) until the reader drains them, and must deliver every byte.
	out := bytes.Repeat([]byte("0123456789abcdef"), 512<<10)
	got := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(io.LimitReader(srv, int64(len(out))))
		got <- b
	}()
	n, err := c.Write(out)
	if err != nil || n != len(out) {
		t.Fatalf("Write = %d, %v; want %d, nil", n, err, len(out))
	}
	if b := <-got; !bytes.Equal(b, out) {
		t.Fatalf("the server read %d bytes, not the %d written", len(b), len(out))
	}
	// A read waits for the answer, then returns it.
	go func() {
		time.Sleep(20 * time.Millisecond)
		_, _ = srv.Write([]byte("pong"))
	}()
	buf := make([]byte, 16)
	n, err = c.Read(buf)
	if err != nil || string(buf[:n]) != "pong" {
		t.Fatalf("Read = %q, %v; want pong", buf[:n], err)
	}
	// The peer's close is EOF.
	_ = srv.Close()
	if n, err = c.Read(buf); n != 0 || !errors.Is(err, io.EOF) {
		t.Fatalf("Read after the peer closed = %d, %v; want 0, EOF", n, err)
	}
}

func TestSysConnDeadlineAndClose(t *testing.T) {
	c, _ := pair(t)
	if err := c.SetReadDeadline(time.Now().Add(30 * time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	_, err := c.Read(make([]byte, 16))
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() || !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("Read past the deadline: %v; want a net.Error that timed out", err)
	}
	var op *net.OpError
	if !errors.As(err, &op) || op.Op != "read" {
		t.Fatalf("Read past the deadline: %v; want a *net.OpError of read", err)
	}
	_ = c.Close()
	if _, err := c.Write([]byte("x")); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("Write after Close: %v; want net.ErrClosed", err)
	}
}

func TestSysConnReset(t *testing.T) {
	c, srv := pair(t)
	// A close with unread data sends a reset; the next read reports it as net does.
	if _, err := c.Write([]byte("unread")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	_ = srv.(*net.TCPConn).SetLinger(0)
	_ = srv.Close()
	time.Sleep(20 * time.Millisecond)
	_, err := c.Read(make([]byte, 16))
	var op *net.OpError
	if !errors.Is(err, syscall.ECONNRESET) || !errors.As(err, &op) || op.Op != "read" {
		t.Fatalf("Read after a reset: %v; want ECONNRESET in a read *net.OpError", err)
	}
}

func TestSysConnReadsWhileItWrites(t *testing.T) {
	c, srv := pair(t)
	out := bytes.Repeat([]byte("x"), 4<<20)
	go func() {
		_, _ = io.CopyN(io.Discard, srv, int64(len(out)))
		_, _ = srv.Write([]byte("done"))
	}()
	// A Read waits for the answer while the Write is still filling the
	// socket: net.Conn allows both at once, and neither may see the other's call.
	read := make(chan string, 1)
	go func() {
		buf := make([]byte, 16)
		n, err := c.Read(buf)
		if err != nil {
			read <- err.Error()
			return
		}
		read <- string(buf[:n])
	}()
	if n, err := c.Write(out); err != nil || n != len(out) {
		t.Fatalf("Write = %d, %v; want %d, nil", n, err, len(out))
	}
	if got := <-read; got != "done" {
		t.Fatalf("Read = %q; want done", got)
	}
}
