package netclient

import (
	"context"
	"net"
	"net/netip"
	"sync/atomic"
	"testing"

	"github.com/barrage-dev/barrage/pkg/dnstest"
	"github.com/barrage-dev/barrage/pkg/netguard"
)

// TestDialsThroughGuard: TCP and UDP sockets are dialed through the guard,
// which resolves the name on each dial and refuses what moved to a refused
// address before anything is sent.
func TestDialsThroughGuard(t *testing.T) {
	t.Parallel()
	var udpPackets atomic.Int64
	tcpAddr, accepted := startTCP(t, echoTCP)
	udpAddr := startUDP(t, func(b []byte) []byte {
		udpPackets.Add(1)
		return b
	})
	tests := []struct {
		network string
		addr    string
		reached func() int64
	}{
		{network: "tcp", addr: tcpAddr, reached: func() int64 { return int64(accepted()) }},
		{network: "udp", addr: udpAddr, reached: udpPackets.Load},
	}
	for _, tt := range tests {
		t.Run(tt.network, func(t *testing.T) {
			t.Parallel()
			_, port, _ := net.SplitHostPort(tt.addr)
			dns := dnstest.Start(t)
			dns.Set("target.test", netip.MustParseAddr("127.0.0.1"))
			allow, err := netguard.ParseAllowList([]string{"127.0.0.1:" + port})
			if err != nil {
				t.Fatal(err)
			}
			g := netguard.Guard{Allow: allow, RequireListed: true, Resolver: dns.Resolver()}
			opts := Options{Network: tt.network, Address: "target.test:" + port, Payload: []byte("ping"), Dial: g.DialContext}
			ctx := context.Background()
			if res := mustNew(t, opts, 0).Do(ctx); !res.OK {
				t.Fatalf("allowed target: %+v", res)
			}

			dns.Set("target.test", netip.MustParseAddr("169.254.169.254"))
			if res := mustNew(t, opts, 1).Do(ctx); res.OK {
				t.Fatalf("target moved to metadata: %+v, want an error", res)
			}
			if got := tt.reached(); got != 1 {
				t.Errorf("server reached %d times, want 1 (before the move)", got)
			}
		})
	}
}
