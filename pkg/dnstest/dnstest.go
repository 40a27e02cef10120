// Package dnstest is a tiny DNS server on loopback UDP for tests: it answers
// A and AAAA questions from a table the test can change while it runs, so a
// test can make a name resolve to one address at one moment and to another
// later (DNS rebinding). Resolver returns a *net.Resolver that asks only
// this server.
//
// It is not a general DNS server: no TCP, no recursion, no records other
// than A and AAAA, no TTL beyond 0.
package dnstest

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/net/dns/dnsmessage"
)

// Server answers A and AAAA questions for the names set with Set; every
// other name is NXDOMAIN.
type Server struct {
	conn    net.PacketConn
	mu      sync.Mutex
	answers map[string][]netip.Addr // canonical lower-case name with final dot
	queries atomic.Int64
	done    chan struct{}
}

// Start starts a server on 127.0.0.1:0 and stops it when tb ends.
func Start(tb testing.TB) *Server {
	tb.Helper()
	conn, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("dnstest: listen: %v", err)
	}
	s := &Server{conn: conn, answers: map[string][]netip.Addr{}, done: make(chan struct{})}
	go s.serve()
	tb.Cleanup(func() {
		_ = conn.Close()
		<-s.done
	})
	return s
}

// Addr is the server's UDP address.
func (s *Server) Addr() string { return s.conn.LocalAddr().String() }

// Queries is the number of questions answered so far.
func (s *Server) Queries() int64 { return s.queries.Load() }

// Set makes name resolve to addrs from now on (no addresses: NXDOMAIN).
func (s *Server) Set(name string, addrs ...netip.Addr) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.answers[canonical(name)] = addrs
}

// Resolver returns a resolver that sends every question to s (the Go
// resolver, never the system's).
func (s *Server) Resolver() *net.Resolver {
	return &net.Resolver{
		PreferGo: true,
		Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "udp", s.Addr())
		},
	}
}

// canonical is name in lower case with a final dot.
func canonical(name string) string {
	name = strings.ToLower(name)
	if !strings.HasSuffix(name, ".") {
		name += "."
	}
	return name
}

// serve answers packets until the connection is closed.
func (s *Server) serve() {
	defer close(s.done)
	buf := make([]byte, 1500)
	for {
		n, from, err := s.conn.ReadFrom(buf)
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue
		}
		out, err := s.answer(buf[:n])
		if err != nil {
			continue
		}
		s.queries.Add(1)
		_, _ = s.conn.WriteTo(out, from)
	}
}

// answer builds the reply to one query.
func (s *Server) answer(query []byte) ([]byte, error) {
	var p dnsmessage.Parser
	h, err := p.Start(query)
	if err != nil {
		return nil, err
	}
	q, err := p.Question()
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	addrs, known := s.answers[strings.ToLower(q.Name.String())]
	s.mu.Unlock()
	rh := dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true, RecursionDesired: h.RecursionDesired}
	if !known || len(addrs) == 0 {
		rh.RCode = dnsmessage.RCodeNameError
	}
	b := dnsmessage.NewBuilder(make([]byte, 0, 512), rh)
	b.EnableCompression()
	if err := b.StartQuestions(); err != nil {
		return nil, err
	}
	if err := b.Question(q); err != nil {
		return nil, err
	}
	if err := b.StartAnswers(); err != nil {
		return nil, err
	}
	for _, a := range addrs {
		rr := dnsmessage.ResourceHeader{Name: q.Name, Class: dnsmessage.ClassINET}
		switch {
		case q.Type == dnsmessage.TypeA && a.Is4():
			err = b.AResource(rr, dnsmessage.AResource{A: a.As4()})
		case q.Type == dnsmessage.TypeAAAA && a.Is6():
			err = b.AAAAResource(rr, dnsmessage.AAAAResource{AAAA: a.As16()})
		}
		if err != nil {
			return nil, err
		}
	}
	return b.Finish()
}
