package h2client

import (
	"context"
	"net/netip"
	"net/url"
	"testing"

	"github.com/barrage-dev/barrage/pkg/dnstest"
	"github.com/barrage-dev/barrage/pkg/netguard"
)

// TestDialsThroughGuard: the transport dials through the guard, which
// resolves the name on each new connection and refuses what moved to a
// refused address before any byte reaches the server.
func TestDialsThroughGuard(t *testing.T) {
	t.Parallel()
	srv := startH2C(t)
	u, err := url.Parse(srv.url)
	if err != nil {
		t.Fatal(err)
	}
	dns := dnstest.Start(t)
	dns.Set("target.test", netip.MustParseAddr("127.0.0.1"))
	allow, err := netguard.ParseAllowList([]string{"127.0.0.0/8"})
	if err != nil {
		t.Fatal(err)
	}
	g := netguard.Guard{Allow: allow, RequireListed: true, Resolver: dns.Resolver()}
	opts := Options{URL: "http://target.test:" + u.Port() + "/", H2C: true, Dial: g.DialContext}
	ctx := context.Background()
	if res := mustClient(t, mustFactory(t, opts), 0).Do(ctx); res.Code != 200 {
		t.Fatalf("allowed target: %+v", res)
	}

	dns.Set("target.test", netip.MustParseAddr("169.254.169.254"))
	if res := mustClient(t, mustFactory(t, opts), 1).Do(ctx); res.OK || res.Code != -1 {
		t.Fatalf("target moved to metadata: %+v, want a socket error", res)
	}
	if got := srv.conns.Load(); got != 1 {
		t.Errorf("server saw %d connections, want 1 (before the move)", got)
	}
}
