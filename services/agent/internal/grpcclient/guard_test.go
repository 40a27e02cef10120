package grpcclient

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"sync"
	"testing"

	"github.com/barrage-dev/barrage/pkg/dnstest"
	"github.com/barrage-dev/barrage/pkg/netguard"
)

// TestDialsThroughGuard: gRPC connections are dialed through the guard,
// which resolves the name on each new connection and refuses what moved to
// a refused address.
func TestDialsThroughGuard(t *testing.T) {
	t.Parallel()
	addr, srv := startServer(t, nil)
	_, port, _ := net.SplitHostPort(addr)
	dns := dnstest.Start(t)
	dns.Set("target.test", netip.MustParseAddr("127.0.0.1"))
	allow, err := netguard.ParseAllowList([]string{"localhost", "127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	g := netguard.Guard{Allow: allow, RequireListed: true, Resolver: dns.Resolver()}
	var mu sync.Mutex
	var refusals []*netguard.RefusedError
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := g.DialContext(ctx, network, addr)
		if re := (*netguard.RefusedError)(nil); errors.As(err, &re) {
			mu.Lock()
			refusals = append(refusals, re)
			mu.Unlock()
		}
		return conn, err
	}
	opts := Options{Target: "target.test:" + port, Mode: ModePing, Dial: dial}
	ctx := context.Background()
	if _, c := mustClient(t, opts); c.Do(ctx).Code != CodeServing {
		t.Fatal("allowed target: not SERVING")
	}

	dns.Set("target.test", netip.MustParseAddr("127.0.0.2")) // loopback, but not listed
	if _, c := mustClient(t, opts); c.Do(ctx).Code != CodeError {
		t.Fatal("target moved off the list: want ERROR")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(refusals) == 0 || refusals[0].Reason != "loopback address" || refusals[0].IP != netip.MustParseAddr("127.0.0.2") {
		t.Errorf("refusals %v, want the guard to refuse 127.0.0.2 as a loopback address", refusals)
	}
	if seqs, _ := srv.received(); len(seqs) != 1 {
		t.Errorf("server received %d pings, want 1 (before the move)", len(seqs))
	}
}
