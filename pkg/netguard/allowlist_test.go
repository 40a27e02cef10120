package netguard

import (
	"errors"
	"net/netip"
	"testing"
)

// mustAllow parses entries, failing tb on error.
func mustAllow(tb testing.TB, entries ...string) AllowList {
	tb.Helper()
	l, err := ParseAllowList(entries)
	if err != nil {
		tb.Fatalf("ParseAllowList(%q): %v", entries, err)
	}
	return l
}

func TestParseAllowListGood(t *testing.T) {
	t.Parallel()
	tests := []struct {
		entry string
		host  string // a probe the entry must allow
		ip    string
		port  int
	}{
		{entry: "fortio.internal", host: "fortio.internal", ip: "10.0.0.1", port: 8080},
		{entry: "Fortio.Internal.", host: "FORTIO.internal", ip: "10.0.0.1", port: 8080},
		{entry: "fortio.internal:8080", host: "fortio.internal", ip: "10.0.0.1", port: 8080},
		{entry: "*.corp.example", host: "a.b.corp.example", ip: "10.0.0.1", port: 443},
		{entry: "localhost", host: "localhost", ip: "127.0.0.1", port: 80},
		{entry: "127.0.0.1", host: "x", ip: "127.0.0.1", port: 80},
		{entry: " 127.0.0.1 ", host: "x", ip: "127.0.0.1", port: 80},
		{entry: "127.0.0.1:8080", host: "x", ip: "127.0.0.1", port: 8080},
		{entry: "::1", host: "x", ip: "::1", port: 80},
		{entry: "[::1]", host: "x", ip: "::1", port: 80},
		{entry: "[::1]:8080", host: "x", ip: "::1", port: 8080},
		{entry: "::ffff:127.0.0.1", host: "x", ip: "127.0.0.1", port: 80},
		{entry: "10.0.0.0/8", host: "x", ip: "10.200.0.1", port: 80},
		{entry: "10.9.9.9/8", host: "x", ip: "10.200.0.1", port: 80},
		{entry: "10.0.0.0/8:65535", host: "x", ip: "10.200.0.1", port: 65535},
		{entry: "fc00::/7", host: "x", ip: "fd12::1", port: 80},
		{entry: "[fc00::/7]:443", host: "x", ip: "fd12::1", port: 443},
		{entry: "under_score.internal", host: "under_score.internal", ip: "10.0.0.1", port: 80},
	}
	for _, tt := range tests {
		t.Run(tt.entry, func(t *testing.T) {
			t.Parallel()
			l := mustAllow(t, tt.entry)
			if l.Len() != 1 {
				t.Fatalf("Len() = %d, want 1", l.Len())
			}
			if !l.allows(tt.host, netip.MustParseAddr(tt.ip), tt.port, false) {
				t.Errorf("%q does not allow host %q ip %s port %d", tt.entry, tt.host, tt.ip, tt.port)
			}
		})
	}
}

func TestParseAllowListBad(t *testing.T) {
	t.Parallel()
	const badPort = "port must be a number from 1 to 65535"
	tests := []struct {
		entry string
		msg   string
	}{
		{entry: "", msg: "empty entry"},
		{entry: "   ", msg: "empty entry"},
		{entry: "http://x", msg: `is a URL; write only its host and optional port, e.g. "x"`},
		{entry: "https://fortio.internal:8080/path", msg: `is a URL; write only its host and optional port, e.g. "fortio.internal:8080"`},
		{entry: "10.0.0.0/33", msg: "not a valid CIDR (want e.g. 10.0.0.0/8 or fc00::/7)"},
		{entry: "10.0.0/8", msg: "not a valid CIDR (want e.g. 10.0.0.0/8 or fc00::/7)"},
		{entry: "host/8", msg: "not a valid CIDR (want e.g. 10.0.0.0/8 or fc00::/7)"},
		{entry: "::ffff:10.0.0.0/104", msg: "write an IPv4-mapped CIDR in its IPv4 form"},
		{entry: "300.1.2.3", msg: "not a valid IP address"},
		{entry: "fe80::1%eth0", msg: "an IPv6 zone is not allowed"},
		{entry: "host:0", msg: badPort},
		{entry: "host:65536", msg: badPort},
		{entry: "host:+80", msg: badPort},
		{entry: "host:http", msg: badPort},
		{entry: "[::1]:0", msg: badPort},
		{entry: "host:", msg: "missing port after ':'"},
		{entry: "[::1]:", msg: "missing port after ':'"},
		{entry: "[::1", msg: "missing ']' after an IPv6 address"},
		{entry: "[::1]8080", msg: "want ':port' after ']'"},
		{entry: "[fortio.internal]:80", msg: "brackets are only for IPv6 addresses"},
		{entry: "[127.0.0.1]:80", msg: "brackets are only for IPv6 addresses"},
		{entry: "[*]:80", msg: "brackets are only for IPv6 addresses"},
		{entry: "a.*.example", msg: `a wildcard is only allowed as a leading "*."`},
		{entry: "*.", msg: `a wildcard is only allowed as a leading "*."`},
		{entry: "*..", msg: "missing host name"},
		{entry: "a..example", msg: "each dot-separated part of a host name must have 1 to 63 characters"},
		{entry: "-a.example", msg: "a host name part cannot start or end with '-'"},
		{entry: "a b.example", msg: `' ' is not allowed in a host name (use the xn-- form for international names)`},
		{entry: "bücher.example", msg: `'ü' is not allowed in a host name (use the xn-- form for international names)`},
	}
	for _, tt := range tests {
		t.Run(tt.entry, func(t *testing.T) {
			t.Parallel()
			_, err := ParseAllowList([]string{"ok.example", tt.entry})
			var ee *EntryError
			if !errors.As(err, &ee) {
				t.Fatalf("ParseAllowList(%q) error = %v, want *EntryError", tt.entry, err)
			}
			want := EntryError{Index: 1, Entry: tt.entry, Msg: tt.msg}
			if *ee != want {
				t.Errorf("error = %#v, want %#v", *ee, want)
			}
		})
	}
}

func TestParseAllowListCollectsEveryError(t *testing.T) {
	t.Parallel()
	l, err := ParseAllowList([]string{"ok.example", "", "http://x", "10.0.0.0/33", "10.0.0.0/8"})
	if l.Len() != 0 {
		t.Errorf("Len() = %d on error, want 0", l.Len())
	}
	joined, ok := err.(interface{ Unwrap() []error })
	if !ok {
		t.Fatalf("error %v is not a joined error", err)
	}
	var got []int
	for _, e := range joined.Unwrap() {
		var ee *EntryError
		if !errors.As(e, &ee) {
			t.Fatalf("joined error %v is not an *EntryError", e)
		}
		got = append(got, ee.Index)
	}
	if len(got) != 3 || got[0] != 1 || got[1] != 2 || got[2] != 3 {
		t.Errorf("indices = %v, want [1 2 3]", got)
	}
	const want = "entry 1 \"\": empty entry\n" +
		"entry 2 \"http://x\": is a URL; write only its host and optional port, e.g. \"x\"\n" +
		"entry 3 \"10.0.0.0/33\": not a valid CIDR (want e.g. 10.0.0.0/8 or fc00::/7)"
	if err.Error() != want {
		t.Errorf("Error() = %q, want %q", err.Error(), want)
	}
}

func FuzzParseAllowList(f *testing.F) {
	for _, s := range []string{"fortio.internal", "*.corp.example:443", "127.0.0.1", "[::1]:8080", "10.0.0.0/8", "http://x", "[fc00::/7]:1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, err := ParseAllowList([]string{s})
		if err != nil {
			var ee *EntryError
			if !errors.As(err, &ee) || ee.Msg == "" {
				t.Fatalf("ParseAllowList(%q) error %v is not an *EntryError with a message", s, err)
			}
			return
		}
		if l.Len() != 1 {
			t.Fatalf("ParseAllowList(%q) has %d entries", s, l.Len())
		}
		// Nothing an entry says can open a metadata address.
		g := Guard{Allow: l}
		if g.Check("metadata.google.internal", netip.MustParseAddr("169.254.169.254"), 80) == nil {
			t.Fatalf("entry %q opened the metadata address", s)
		}
	})
}
