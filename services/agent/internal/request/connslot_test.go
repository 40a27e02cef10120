package request

import (
	"errors"
	"net"
	"testing"
)

func TestConnSlot(t *testing.T) {
	t.Parallel()
	var s ConnSlot
	a, b := net.Pipe()
	defer b.Close()
	if err := s.Set(a); err != nil || s.Conn() != a {
		t.Fatalf("Set: %v, conn %v", err, s.Conn())
	}
	s.Drop()
	if s.Conn() != nil {
		t.Fatal("Drop kept the connection")
	}
	if _, err := a.Write([]byte("x")); err == nil {
		t.Fatal("Drop did not close the connection")
	}
	c, d := net.Pipe()
	defer d.Close()
	_ = s.Set(c)
	if err := s.Close(); err != nil || !s.Closed() {
		t.Fatalf("Close: %v closed=%v", err, s.Closed())
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	e, f := net.Pipe()
	defer f.Close()
	if err := s.Set(e); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("Set after Close: %v, want net.ErrClosed", err)
	}
	if _, err := e.Write([]byte("x")); err == nil {
		t.Fatal("Set after Close did not close the new connection")
	}
}
