package httpclient

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/services/agent/internal/cannedhttp"
	"github.com/barrage-dev/barrage/services/agent/internal/request"
)

// TestPhasesOfEachRequest: a request that opens its connection carries its
// connect and TLS phases (and its Ready time), the next on the same
// connection none; every response has its first byte's time, between the
// send and the end of Do.
func TestPhasesOfEachRequest(t *testing.T) {
	t.Parallel()
	srv := startTLS(t, nil)
	c := mustClient(t, tlsFactory(t, srv, spec.Spec{Insecure: true}, 2))
	for i := range 4 {
		sent := time.Now()
		res := c.Do(context.Background())
		done := time.Now()
		if res.Code != 200 {
			t.Fatalf("request %d: %+v", i, res)
		}
		p := res.Phases
		opened := i%2 == 0 // two requests per connection
		if p.Has(request.PhaseConnect) != opened || p.Has(request.PhaseTLS) != opened || p.Has(request.PhaseDNS) {
			t.Fatalf("request %d: phases %08b, want connect and TLS %v, no DNS (an IP)", i, p.Opened, opened)
		}
		if opened && (p.Conn[request.PhaseConnect] <= 0 || p.Conn[request.PhaseTLS] <= 0 || p.Ready.Before(sent) || p.Ready.After(p.FirstByte)) {
			t.Fatalf("request %d: connect %v TLS %v ready %v; want both > 0, ready between send and first byte", i,
				p.Conn[request.PhaseConnect], p.Conn[request.PhaseTLS], p.Ready)
		}
		if p.FirstByte.Before(sent) || p.FirstByte.After(done) {
			t.Fatalf("request %d: first byte at %v, not between send %v and done %v", i, p.FirstByte, sent, done)
		}
	}
}

// TestPhasesLookUpNames: a host name is looked up, and the lookup is the
// DNS phase of the connection's first request; Connect (before any
// request) keeps the phases for that request.
func TestPhasesLookUpNames(t *testing.T) {
	t.Parallel()
	addr := cannedhttp.Serve(t, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
	port := addr[strings.LastIndex(addr, ":")+1:]
	c := mustClient(t, mustFactory(t, Options{URL: "http://localhost:" + port + "/"}))
	if err := c.(request.Connector).Connect(context.Background()); err != nil {
		t.Fatal(err)
	}
	first, second := c.Do(context.Background()), c.Do(context.Background())
	if first.Code != 200 || !first.Phases.Has(request.PhaseDNS) || !first.Phases.Has(request.PhaseConnect) || first.Phases.Has(request.PhaseTLS) {
		t.Fatalf("first request: code %d phases %08b, want DNS and connect", first.Code, first.Phases.Opened)
	}
	if second.Code != 200 || second.Phases.Opened != 0 || second.Phases.FirstByte.IsZero() {
		t.Fatalf("second request: code %d phases %08b first byte %v, want no connection phase, a first byte", second.Code,
			second.Phases.Opened, second.Phases.FirstByte)
	}
}
