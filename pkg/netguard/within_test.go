package netguard

import (
	"errors"
	"net/netip"
	"slices"
	"testing"
)

// TestOutside: which entries of a project's list an organisation policy
// covers (docs/security.md, "Target policy").
func TestOutside(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		outer   []string
		entries []string
		outside []int
	}{
		{name: "public CIDR and name under *", outer: []string{"*"},
			entries: []string{"93.184.216.0/24", "api.example.com", "*.example.com", "*", "0.0.0.0/0", "2606:2800::/32"}},
		{name: "private, loopback and sockets are not under *", outer: []string{"*"},
			entries: []string{"10.0.0.0/8", "127.0.0.1", "::1", "unix:/var/run/docker.sock", "0.0.0.0/1", "100.64.0.1"},
			outside: []int{0, 1, 2, 3, 4, 5}},
		{name: "narrower CIDR inside a wider one", outer: []string{"10.0.0.0/8"},
			entries: []string{"10.1.0.0/16", "10.1.2.3", "10.0.0.0/7", "11.0.0.1"}, outside: []int{2, 3}},
		{name: "ports", outer: []string{"10.0.0.0/8:443", "db.corp"},
			entries: []string{"10.1.2.3:443", "10.1.2.3:80", "10.1.2.3", "db.corp:5432"}, outside: []int{1, 2}},
		{name: "names and wildcards", outer: []string{"*.corp.example", "app.test"},
			entries: []string{"a.corp.example", "*.b.corp.example", "corp.example", "app.test", "*.test", "*"},
			outside: []int{2, 4, 5}},
		{name: "sockets exactly", outer: []string{"unix:/run/app.sock"},
			entries: []string{"unix:/run/app.sock", "unix:/run/other.sock"}, outside: []int{1}},
		{name: "IPv4 /0 does not cover IPv6", outer: []string{"0.0.0.0/0"},
			entries: []string{"0.0.0.0/0", "::/0", "*", "2606:2800::/32", "8.8.8.8"}, outside: []int{1, 2, 3}},
		{name: "empty policy covers nothing", outer: nil, entries: []string{"*"}, outside: []int{0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			outer := mustAllow(t, tt.outer...)
			got := mustAllow(t, tt.entries...).Outside(outer)
			if !slices.Equal(got, tt.outside) {
				t.Errorf("Outside(%q of %q) = %v, want %v", tt.entries, tt.outer, got, tt.outside)
			}
		})
	}
}

// TestGuardOuter: Guard.Outer bounds Allow address by address, as
// resolved, so a listed name that resolves outside the organisation's
// policy is refused.
func TestGuardOuter(t *testing.T) {
	t.Parallel()
	outer := mustAllow(t, []string{"*", "unix:/run/ok.sock"}...)
	g := Guard{Allow: mustAllow(t, []string{"app.example", "10.0.0.0/8", "unix:/run/ok.sock", "unix:/run/no.sock"}...),
		RequireListed: true, Outer: &outer}
	if err := g.Check("app.example", netip.MustParseAddr("93.184.216.34"), 443); err != nil {
		t.Errorf("public address of a listed name: %v, want allowed", err)
	}
	for _, c := range []struct{ host, ip string }{{"app.example", "10.1.2.3"}, {"10.1.2.3", "10.1.2.3"}} {
		var re *RefusedError
		err := g.Check(c.host, netip.MustParseAddr(c.ip), 443)
		if !errors.As(err, &re) || re.Reason != reasonOuter || re.Permanent {
			t.Errorf("Check(%s, %s) = %v, want refused as outside the organisation's policy", c.host, c.ip, err)
		}
	}
	if err := g.CheckUnix("/run/ok.sock"); err != nil {
		t.Errorf("CheckUnix(ok) = %v, want nil", err)
	}
	var re *RefusedError
	if err := g.CheckUnix("/run/no.sock"); !errors.As(err, &re) || re.Reason != reasonOuter {
		t.Errorf("CheckUnix(no) = %v, want refused as outside the organisation's policy", err)
	}
}
