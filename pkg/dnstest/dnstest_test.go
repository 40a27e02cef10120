package dnstest

import (
	"context"
	"net/netip"
	"slices"
	"testing"
)

func TestServerAnswersAndChanges(t *testing.T) {
	t.Parallel()
	s := Start(t)
	r := s.Resolver()
	ctx := context.Background()
	s.Set("rebind.test", netip.MustParseAddr("127.0.0.1"))
	got, err := r.LookupNetIP(ctx, "ip4", "rebind.test")
	if err != nil || !slices.Equal(got, []netip.Addr{netip.MustParseAddr("127.0.0.1")}) {
		t.Fatalf("first lookup = %v, %v; want [127.0.0.1]", got, err)
	}
	s.Set("rebind.test", netip.MustParseAddr("169.254.169.254"))
	got, err = r.LookupNetIP(ctx, "ip4", "rebind.test")
	if err != nil || !slices.Equal(got, []netip.Addr{netip.MustParseAddr("169.254.169.254")}) {
		t.Fatalf("second lookup = %v, %v; want [169.254.169.254]", got, err)
	}
	s.Set("v6.test", netip.MustParseAddr("::1"))
	got, err = r.LookupNetIP(ctx, "ip6", "v6.test")
	if err != nil || !slices.Equal(got, []netip.Addr{netip.MustParseAddr("::1")}) {
		t.Fatalf("AAAA lookup = %v, %v; want [::1]", got, err)
	}
	if _, err := r.LookupNetIP(ctx, "ip", "unknown.test"); err == nil {
		t.Fatal("lookup of an unknown name succeeded")
	}
	if s.Queries() < 3 {
		t.Errorf("Queries() = %d, want at least 3", s.Queries())
	}
}
