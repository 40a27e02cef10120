package netguard

import (
	"errors"
	"net/netip"
	"testing"
)

// TestCheckNotPublicRanges: benchmarking (198.18.0.0/15), reserved
// (240.0.0.0/4), 6to4 (2002::/16) and Teredo (2001::/32) addresses are not
// public: refused, for fetches and run targets alike, unless an allow-list
// entry names them; the addresses just outside each range stay public.
func TestCheckNotPublicRanges(t *testing.T) {
	t.Parallel()
	const (
		bench      = "benchmarking (198.18.0.0/15) address"
		reserved   = "reserved (240.0.0.0/4) address"
		transition = "6to4 or Teredo (IPv6 transition) address"
	)
	tests := []struct {
		name      string
		allow     []string
		listed    bool // RequireListed
		ip        string
		reason    string // "" = allowed
		permanent bool
	}{
		{name: "benchmarking low edge", ip: "198.18.0.0", reason: bench},
		{name: "benchmarking high edge", ip: "198.19.255.255", reason: bench},
		{name: "benchmarking IPv4-mapped", ip: "::ffff:198.18.7.7", reason: bench},
		{name: "benchmarking NAT64", ip: "64:ff9b::c612:1", reason: bench},
		{name: "below benchmarking public", ip: "198.17.255.255"},
		{name: "above benchmarking public", ip: "198.20.0.0"},
		{name: "benchmarking opened by CIDR", allow: []string{"198.18.0.0/15"}, ip: "198.19.0.1"},
		{name: "benchmarking opened for a run", allow: []string{"198.18.0.0/15"}, listed: true, ip: "198.18.0.1"},
		{name: "benchmarking not opened by *", allow: []string{"*"}, listed: true, ip: "198.18.0.1", reason: bench},
		{name: "benchmarking not opened by 0.0.0.0/0", allow: []string{"0.0.0.0/0"}, ip: "198.18.0.1", reason: bench},

		{name: "reserved low edge", ip: "240.0.0.0", reason: reserved},
		{name: "reserved high edge", ip: "255.255.255.254", reason: reserved},
		{name: "reserved IPv4-mapped", ip: "::ffff:250.1.2.3", reason: reserved},
		{name: "below reserved is multicast", ip: "239.255.255.255", reason: "multicast address", permanent: true},
		{name: "limited broadcast stays permanent", allow: []string{"240.0.0.0/4"}, ip: "255.255.255.255",
			reason: "broadcast address", permanent: true},
		{name: "reserved opened by CIDR", allow: []string{"240.0.0.0/4"}, ip: "255.255.255.254"},
		{name: "reserved opened by address", allow: []string{"240.0.0.1"}, listed: true, ip: "240.0.0.1"},
		{name: "reserved not opened by *", allow: []string{"*"}, listed: true, ip: "240.0.0.1", reason: reserved},

		{name: "6to4 low edge", ip: "2002::", reason: transition},
		{name: "6to4 high edge", ip: "2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff", reason: transition},
		{name: "6to4 carrying a public IPv4", ip: "2002:808:808::1", reason: transition},
		{name: "6to4 carrying loopback", ip: "2002:7f00:1::1", reason: transition},
		{name: "below 6to4 public", ip: "2001:ffff:ffff:ffff:ffff:ffff:ffff:ffff"},
		{name: "above 6to4 public", ip: "2003::1"},
		{name: "6to4 opened by CIDR", allow: []string{"2002::/16"}, ip: "2002:7f00:1::1"},
		{name: "6to4 not opened by ::/0", allow: []string{"::/0"}, listed: true, ip: "2002:808:808::1", reason: transition},

		{name: "Teredo low edge", ip: "2001::", reason: transition},
		{name: "Teredo high edge", ip: "2001:0:ffff:ffff:ffff:ffff:ffff:ffff", reason: transition},
		{name: "Teredo real address", ip: "2001:0:4136:e378:8000:63bf:3fff:fdd2", reason: transition},
		{name: "above Teredo public", ip: "2001:1::1"},
		{name: "below Teredo public", ip: "2000:ffff:ffff:ffff:ffff:ffff:ffff:ffff"},
		{name: "Teredo opened for a run", allow: []string{"2001::/32"}, listed: true, ip: "2001:0:4136:e378::1"},
		{name: "Teredo not opened by *", allow: []string{"*"}, listed: true, ip: "2001::1", reason: transition},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ip := netip.MustParseAddr(tt.ip)
			g := Guard{Allow: mustAllow(t, tt.allow...), RequireListed: tt.listed}
			err := g.Check("x", ip, 80)
			if tt.reason == "" {
				if err != nil {
					t.Fatalf("Check(%s) = %v, want nil", tt.ip, err)
				}
				return
			}
			var re *RefusedError
			if !errors.As(err, &re) {
				t.Fatalf("Check(%s) = %v, want *RefusedError", tt.ip, err)
			}
			want := RefusedError{Host: "x", IP: ip, Reason: tt.reason, Permanent: tt.permanent, Port: 80}
			if *re != want {
				t.Errorf("Check = %#v, want %#v", *re, want)
			}
		})
	}
}

// TestCheckNotPublicMessage: the refusal says which rule refused the
// address and that the allow-list can open it.
func TestCheckNotPublicMessage(t *testing.T) {
	t.Parallel()
	tests := []struct{ ip, want string }{
		{"198.18.0.1", "198.18.0.1 is a benchmarking (198.18.0.0/15) address; add it to the project's target allow-list to reach it"},
		{"240.0.0.1", "240.0.0.1 is a reserved (240.0.0.0/4) address; add it to the project's target allow-list to reach it"},
		{"2002::1", "2002::1 is a 6to4 or Teredo (IPv6 transition) address; add it to the project's target allow-list to reach it"},
	}
	for _, tt := range tests {
		err := Guard{}.Check(tt.ip, netip.MustParseAddr(tt.ip), 80)
		if err == nil || err.Error() != tt.want {
			t.Errorf("Check(%s) = %v, want %q", tt.ip, err, tt.want)
		}
	}
}
