package httpclient

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"testing"

	"github.com/barrage-dev/barrage/pkg/dnstest"
	"github.com/barrage-dev/barrage/pkg/netguard"
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
