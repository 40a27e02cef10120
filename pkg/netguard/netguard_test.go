package netguard

import (
	"errors"
	"net/netip"
	"testing"
)

func TestCheck(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		allow     []string
		host      string
		ip        string // "" is the zero netip.Addr
		port      int
		reason    string // "" = allowed
		permanent bool
	}{
		{name: "metadata refused even if allow-listed", allow: []string{"169.254.169.254", "169.254.0.0/16", "metadata.google.internal", "0.0.0.0/0"},
			host: "metadata.google.internal", ip: "169.254.169.254", port: 80, reason: "cloud metadata address", permanent: true},
		{name: "IPv4-mapped metadata", allow: []string{"::/0"}, host: "x", ip: "::ffff:169.254.169.254", port: 80, reason: "cloud metadata address", permanent: true},
		{name: "NAT64 metadata", host: "x", ip: "64:ff9b::a9fe:a9fe", port: 80, reason: "cloud metadata address", permanent: true},
		{name: "AWS IPv6 metadata", allow: []string{"fc00::/7"}, host: "x", ip: "fd00:ec2::254", port: 80, reason: "cloud metadata address", permanent: true},
		{name: "Alibaba metadata", allow: []string{"100.64.0.0/10"}, host: "x", ip: "100.100.100.200", port: 80, reason: "cloud metadata address", permanent: true},
		{name: "link-local", allow: []string{"169.254.0.0/16"}, host: "x", ip: "169.254.1.1", port: 80, reason: "link-local address", permanent: true},
		{name: "IPv6 link-local", allow: []string{"fe80::/10"}, host: "x", ip: "fe80::1", port: 80, reason: "link-local address", permanent: true},
		{name: "IPv6 link-local with zone", host: "x", ip: "fe80::1%eth0", port: 80, reason: "link-local address", permanent: true},
		{name: "IPv4-mapped link-local", host: "x", ip: "::ffff:169.254.1.1", port: 80, reason: "link-local address", permanent: true},
		{name: "unspecified", allow: []string{"0.0.0.0/8"}, host: "x", ip: "0.0.0.0", port: 80, reason: "unspecified address", permanent: true},
		{name: "IPv6 unspecified", allow: []string{"::"}, host: "x", ip: "::", port: 80, reason: "unspecified address", permanent: true},
		{name: "IPv4-mapped unspecified", host: "x", ip: "::ffff:0.0.0.0", port: 80, reason: "unspecified address", permanent: true},
		{name: "multicast", allow: []string{"224.0.0.0/4"}, host: "x", ip: "224.0.0.1", port: 80, reason: "multicast address", permanent: true},
		{name: "IPv6 multicast", host: "x", ip: "ff02::1", port: 80, reason: "multicast address", permanent: true},
		{name: "broadcast", allow: []string{"0.0.0.0/0"}, host: "x", ip: "255.255.255.255", port: 80, reason: "broadcast address", permanent: true},
		{name: "IPv4-mapped broadcast", host: "x", ip: "::ffff:255.255.255.255", port: 80, reason: "broadcast address", permanent: true},
		{name: "invalid", allow: []string{"0.0.0.0/0"}, host: "x", port: 80, reason: "invalid address", permanent: true},

		{name: "loopback refused", host: "localhost", ip: "127.0.0.1", port: 80, reason: "loopback address"},
		{name: "loopback allowed by IP", allow: []string{"127.0.0.1"}, host: "localhost", ip: "127.0.0.1", port: 80},
		{name: "loopback allowed by CIDR", allow: []string{"127.0.0.0/8"}, host: "x", ip: "127.0.0.1", port: 80},
		{name: "loopback allowed by host", allow: []string{"localhost"}, host: "localhost", ip: "127.0.0.1", port: 80},
		{name: "host match ignores case and final dot", allow: []string{"LocalHost"}, host: "localhost.", ip: "127.0.0.1", port: 80},
		{name: "host entry does not match another host", allow: []string{"localhost"}, host: "other", ip: "127.0.0.1", port: 80, reason: "loopback address"},
		{name: "port entry allows its port", allow: []string{"127.0.0.1:8080"}, host: "x", ip: "127.0.0.1", port: 8080},
		{name: "port entry refuses another port", allow: []string{"127.0.0.1:8080"}, host: "x", ip: "127.0.0.1", port: 9090, reason: "loopback address"},
		{name: "host port entry refuses another port", allow: []string{"localhost:8080"}, host: "localhost", ip: "127.0.0.1", port: 9090, reason: "loopback address"},
		{name: "other loopback address", allow: []string{"127.0.0.1"}, host: "x", ip: "127.0.0.2", port: 80, reason: "loopback address"},
		{name: "IPv6 loopback refused", host: "x", ip: "::1", port: 80, reason: "loopback address"},
		{name: "IPv6 loopback allowed", allow: []string{"[::1]:8080"}, host: "x", ip: "::1", port: 8080},
		{name: "IPv4-mapped loopback refused", host: "x", ip: "::ffff:127.0.0.1", port: 80, reason: "loopback address"},
		{name: "IPv4-mapped loopback allowed by IPv4 entry", allow: []string{"127.0.0.1"}, host: "x", ip: "::ffff:127.0.0.1", port: 80},
		{name: "private refused", host: "x", ip: "10.1.2.3", port: 80, reason: "private address"},
		{name: "private allowed by CIDR", allow: []string{"10.0.0.0/8"}, host: "x", ip: "10.1.2.3", port: 80},
		{name: "private outside CIDR", allow: []string{"10.0.0.0/16"}, host: "x", ip: "10.1.2.3", port: 80, reason: "private address"},
		{name: "private 172.16/12", host: "x", ip: "172.31.255.255", port: 80, reason: "private address"},
		{name: "private 192.168/16", host: "x", ip: "192.168.1.1", port: 80, reason: "private address"},
		{name: "private fc00::/7", host: "x", ip: "fd12::1", port: 80, reason: "private address"},
		{name: "CGNAT refused", host: "x", ip: "100.64.1.1", port: 80, reason: "carrier-grade NAT address"},
		{name: "CGNAT allowed", allow: []string{"100.64.0.0/10"}, host: "x", ip: "100.127.255.255", port: 80},
		{name: "this network refused", host: "x", ip: "0.1.2.3", port: 80, reason: "this-network (0.0.0.0/8) address"},
		{name: "NAT64 private", host: "x", ip: "64:ff9b::a01:203", port: 80, reason: "private address"},
		{name: "wildcard allows a subdomain", allow: []string{"*.corp.example"}, host: "api.corp.example", ip: "10.0.0.5", port: 80},
		{name: "wildcard skips the apex", allow: []string{"*.corp.example"}, host: "corp.example", ip: "10.0.0.5", port: 80, reason: "private address"},
		{name: "wildcard skips lookalikes", allow: []string{"*.corp.example"}, host: "evilcorp.example", ip: "10.0.0.5", port: 80, reason: "private address"},

		{name: "0.0.0.0/0 does not open loopback", allow: []string{"0.0.0.0/0"}, host: "x", ip: "127.0.0.1", port: 80, reason: "loopback address"},
		{name: "* does not open private", allow: []string{"*"}, host: "x", ip: "10.0.0.1", port: 80, reason: "private address"},

		{name: "public", host: "dns.google", ip: "8.8.8.8", port: 53},
		{name: "public just outside CGNAT", host: "x", ip: "100.128.0.1", port: 80},
		{name: "public IPv6", host: "x", ip: "2001:4860:4860::8888", port: 443},
		{name: "IPv4-mapped public", host: "x", ip: "::ffff:8.8.8.8", port: 443},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var ip netip.Addr
			if tt.ip != "" {
				ip = netip.MustParseAddr(tt.ip)
			}
			g := Guard{Allow: mustAllow(t, tt.allow...)}
			err := g.Check(tt.host, ip, tt.port)
			if tt.reason == "" {
				if err != nil {
					t.Fatalf("Check(%q, %s, %d) = %v, want nil", tt.host, tt.ip, tt.port, err)
				}
				return
			}
			var re *RefusedError
			if !errors.As(err, &re) {
				t.Fatalf("Check(%q, %s, %d) = %v, want *RefusedError", tt.host, tt.ip, tt.port, err)
			}
			want := RefusedError{Host: tt.host, IP: ip, Reason: tt.reason, Permanent: tt.permanent, Port: tt.port}
			if *re != want {
				t.Errorf("Check = %#v, want %#v", *re, want)
			}
		})
	}
}

// TestCheckRunTargets is the run-target policy: RequireListed and Deny.
func TestCheckRunTargets(t *testing.T) {
	t.Parallel()
	deny := []string{"127.0.0.1:8080", "[::1]:8080", "localhost:8080", "db.internal:5432", "10.0.0.7:5432"}
	tests := []struct {
		name      string
		allow     []string
		host      string
		ip        string
		port      int
		reason    string // "" = allowed
		permanent bool
		empty     bool
	}{
		{name: "empty list refuses public", host: "example.com", ip: "93.184.216.34", port: 80, reason: "public address", empty: true},
		{name: "empty list refuses loopback", host: "x", ip: "127.0.0.1", port: 8088, reason: "loopback address", empty: true},
		{name: "public not listed", allow: []string{"127.0.0.0/8"}, host: "example.com", ip: "93.184.216.34", port: 80, reason: "public address"},
		{name: "public listed by name", allow: []string{"example.com"}, host: "example.com", ip: "93.184.216.34", port: 80},
		{name: "public listed by CIDR", allow: []string{"93.184.216.0/24"}, host: "example.com", ip: "93.184.216.34", port: 80},
		{name: "star opens public", allow: []string{"*"}, host: "example.com", ip: "93.184.216.34", port: 80},
		{name: "star with port", allow: []string{"*:443"}, host: "example.com", ip: "93.184.216.34", port: 80, reason: "public address"},
		{name: "0.0.0.0/0 opens public IPv4", allow: []string{"0.0.0.0/0"}, host: "x", ip: "8.8.8.8", port: 53},
		{name: "0.0.0.0/0 does not open IPv6", allow: []string{"0.0.0.0/0"}, host: "x", ip: "2001:4860:4860::8888", port: 53, reason: "public address"},
		{name: "::/0 opens public IPv6", allow: []string{"::/0"}, host: "x", ip: "2001:4860:4860::8888", port: 53},
		{name: "star does not open loopback", allow: []string{"*"}, host: "x", ip: "127.0.0.1", port: 8088, reason: "loopback address"},
		{name: "star does not open metadata", allow: []string{"*"}, host: "x", ip: "169.254.169.254", port: 80, reason: "cloud metadata address", permanent: true},
		{name: "loopback echo listed", allow: []string{"127.0.0.0/8"}, host: "127.0.0.1", ip: "127.0.0.1", port: 8088},
		{name: "API port denied though listed", allow: []string{"127.0.0.0/8"}, host: "127.0.0.1", ip: "127.0.0.1", port: 8080, reason: "control-plane address", permanent: true},
		{name: "API port denied by name", allow: []string{"localhost"}, host: "localhost", ip: "127.0.0.1", port: 8080, reason: "control-plane address", permanent: true},
		{name: "API port on IPv6 loopback", allow: []string{"::1"}, host: "::1", ip: "::1", port: 8080, reason: "control-plane address", permanent: true},
		{name: "Postgres by name", allow: []string{"*.internal"}, host: "db.internal", ip: "10.0.0.9", port: 5432, reason: "control-plane address", permanent: true},
		{name: "Postgres by address", allow: []string{"10.0.0.0/8"}, host: "other.internal", ip: "10.0.0.7", port: 5432, reason: "control-plane address", permanent: true},
		{name: "same host other port", allow: []string{"10.0.0.0/8"}, host: "other.internal", ip: "10.0.0.7", port: 8088},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ip := netip.MustParseAddr(tt.ip)
			g := Guard{Allow: mustAllow(t, tt.allow...), RequireListed: true, Deny: mustAllow(t, deny...)}
			err := g.Check(tt.host, ip, tt.port)
			if tt.reason == "" {
				if err != nil {
					t.Fatalf("Check(%q, %s, %d) = %v, want nil", tt.host, tt.ip, tt.port, err)
				}
				return
			}
			var re *RefusedError
			if !errors.As(err, &re) {
				t.Fatalf("Check(%q, %s, %d) = %v, want *RefusedError", tt.host, tt.ip, tt.port, err)
			}
			want := RefusedError{Host: tt.host, IP: ip, Reason: tt.reason, Permanent: tt.permanent, Port: tt.port, EmptyList: tt.empty}
			if *re != want {
				t.Errorf("Check = %#v, want %#v", *re, want)
			}
		})
	}
}

func TestRefusedErrorText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err  RefusedError
		want string
	}{
		{err: RefusedError{Host: "localhost", IP: netip.MustParseAddr("127.0.0.1"), Reason: "loopback address"},
			want: `host "localhost" resolves to a loopback address; add the host to the project's target allow-list to reach it`},
		{err: RefusedError{Host: "127.0.0.1", IP: netip.MustParseAddr("127.0.0.1"), Reason: "loopback address"},
			want: `127.0.0.1 is a loopback address; add it to the project's target allow-list to reach it`},
		{err: RefusedError{Host: "metadata.google.internal", IP: netip.MustParseAddr("169.254.169.254"), Reason: "cloud metadata address", Permanent: true},
			want: `host "metadata.google.internal" resolves to a cloud metadata address, which can never be reached`},
		{err: RefusedError{Host: "::", IP: netip.MustParseAddr("::"), Reason: "unspecified address", Permanent: true},
			want: `:: is an unspecified address, which can never be reached`},
		{err: RefusedError{Host: "localhost", IP: netip.MustParseAddr("127.0.0.1"), Reason: "control-plane address", Permanent: true, Port: 8080},
			want: `host "localhost" port 8080 resolves to a control-plane address (the Barrage API, Postgres or NATS), which can never be a target`},
		{err: RefusedError{Host: "127.0.0.1", IP: netip.MustParseAddr("127.0.0.1"), Reason: "control-plane address", Permanent: true, Port: 8080},
			want: `127.0.0.1:8080 is a control-plane address (the Barrage API, Postgres or NATS), which can never be a target`},
		{err: RefusedError{Host: "db.internal", IP: netip.MustParseAddr("10.0.0.9"), Reason: reasonOuter, Port: 5432},
			want: `host "db.internal" resolves to an address outside the organisation's target policy; only an org admin can open it`},
		{err: RefusedError{Host: "example.com", IP: netip.MustParseAddr("93.184.216.34"), Reason: "public address", Port: 80, EmptyList: true},
			want: `host "example.com" is not allowed: the project's target allow-list is empty; ` +
				`a project admin must add the hosts, CIDRs or "*" runs may reach in the project settings`},
		{err: RefusedError{Host: "example.com", IP: netip.MustParseAddr("93.184.216.34"), Reason: "public address", Port: 80},
			want: `host "example.com" resolves to a public address; add the host to the project's target allow-list to reach it`},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			t.Parallel()
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("Error() = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestUnrestricted: the guard of a load with no project opens everything
// but what is always refused.
func TestUnrestricted(t *testing.T) {
	t.Parallel()
	g := Unrestricted()
	for _, ip := range []string{"127.0.0.1", "::1", "10.1.2.3", "172.16.0.1", "192.168.1.1", "fd12::1", "100.64.1.1", "8.8.8.8",
		"198.18.0.1", "240.0.0.1", "2002:c000:204::1", "2001:0:4136:e378:8000:63bf:3fff:fdd2"} {
		if err := g.Check("x", netip.MustParseAddr(ip), 80); err != nil {
			t.Errorf("Check(%s) = %v, want nil", ip, err)
		}
	}
	for _, ip := range []string{"169.254.169.254", "169.254.1.1", "fe80::1", "fd00:ec2::254", "0.0.0.0", "224.0.0.1"} {
		var re *RefusedError
		if err := g.Check("x", netip.MustParseAddr(ip), 80); !errors.As(err, &re) || !re.Permanent {
			t.Errorf("Check(%s) = %v, want a permanent refusal", ip, err)
		}
	}
}
