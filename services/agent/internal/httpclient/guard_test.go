package httpclient

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"testing"

	"github.com/barrage-dev/barrage/pkg/dnstest"
	"github.com/barrage-dev/barrage/pkg/netguard"
	"github.com/barrage-dev/barrage/services/agent/internal/cannedhttp"
	"github.com/barrage-dev/barrage/services/agent/internal/request"
)

// TestDialsThroughGuard: every connection is dialed through the guard,
// which resolves the name again, so a name that moves to a refused address
// between two connections is refused and nothing reaches the server.
func TestDialsThroughGuard(t *testing.T) {
	t.Parallel()
	// Close after every response: each request dials again.
	srv := startRaw(t, func(int) (string, bool) { return "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", true })
	_, port, _ := net.SplitHostPort(srv.ln.Addr().String())
	dns := dnstest.Start(t)
	dns.Set("target.test", netip.MustParseAddr("127.0.0.1"))
	allow, err := netguard.ParseAllowList([]string{"127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	g := netguard.Guard{Allow: allow, RequireListed: true, Resolver: dns.Resolver()}
	c := mustClient(t, mustFactory(t, Options{URL: "http://target.test:" + port + "/", Dial: g.DialContext}))
	ctx := context.Background()
	if res := c.Do(ctx); res.Code != 200 {
		t.Fatalf("allowed target: %+v", res)
	}

	dns.Set("target.test", netip.MustParseAddr("169.254.169.254"))
	if res := c.Do(ctx); res.Code != CodeSocketError || res.OK {
		t.Fatalf("target moved to metadata: %+v, want a socket error", res)
	}
	err = c.(request.Connector).Connect(ctx)
	var refused *netguard.RefusedError
	if !errors.As(err, &refused) || refused.Reason != "cloud metadata address" || refused.Host != "target.test" {
		t.Fatalf("Connect = %v, want a refusal of target.test as a cloud metadata address", err)
	}
	if got := srv.accepted.Load(); got != 1 {
		t.Errorf("server accepted %d connections, want 1 (before the move)", got)
	}
}

// guardedClient is a client of addr dialing through a guard that allows
// loopback only, as a worker's shard does.
func guardedClient(tb testing.TB, addr string) request.Client {
	tb.Helper()
	allow, err := netguard.ParseAllowList([]string{"127.0.0.0/8"})
	if err != nil {
		tb.Fatal(err)
	}
	deny, err := netguard.ParseAllowList([]string{"127.0.0.1:8080"})
	if err != nil {
		tb.Fatal(err)
	}
	g := netguard.Guard{Allow: allow, RequireListed: true, Deny: deny}
	return mustClient(tb, mustFactory(tb, Options{URL: "http://" + addr + "/", Payload: []byte("ping"), Dial: g.DialContext}))
}

// TestGuardedDoDoesNotAllocate: the guard runs per dial, never per request,
// so a kept-alive request through it still allocates nothing.
func TestGuardedDoDoesNotAllocate(t *testing.T) {
	addr := cannedhttp.Serve(t, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-Pad: 1\r\n\r\nhello")
	c := guardedClient(t, addr)
	c.Do(context.Background()) // connect
	allocs := testing.AllocsPerRun(2000, func() {
		if res := c.Do(context.Background()); res.Code != 200 {
			t.Fatalf("%+v", res)
		}
	})
	if allocs != 0 {
		t.Fatalf("Do through a guard allocates %.2f times per request, want 0", allocs)
	}
}

func BenchmarkGuardedDo(b *testing.B) {
	addr := cannedhttp.Serve(b, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello")
	c := guardedClient(b, addr)
	b.ReportAllocs()
	for b.Loop() {
		c.Do(context.Background())
	}
}
