package netguard

import (
	"net/netip"
	"strings"
)

// nonPublic returns the ranges "*" never opens (Check's loopback,
// private, CGNAT, this-network, benchmarking, reserved and transition
// classes) and those never reached at all (link-local, multicast, mapped
// forms): a CIDR that overlaps one is not "public only".
func nonPublic() []netip.Prefix {
	var out []netip.Prefix
	for _, s := range []string{
		"0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
		"192.168.0.0/16", "198.18.0.0/15", "224.0.0.0/3", "::/127", "fc00::/7", "fe80::/10", "ff00::/8",
		"2002::/16", "2001::/32", "64:ff9b::/96", "::ffff:0:0/96",
	} {
		out = append(out, netip.MustParsePrefix(s))
	}
	return out
}

// Outside returns the indexes of l's entries that outer does not cover:
// the entries a project admin may not add under an organisation policy
// outer (docs/security.md, "Target policy"). An entry is covered when one
// entry of outer opens at least what it opens, on its port:
//
//   - "unix:/p" by the same "unix:/p";
//   - a CIDR or IP by a CIDR that contains it, or, when it holds only
//     public addresses, by "*" (or "0.0.0.0/0", "::/0" of its family);
//   - a name by the same name, a "*.suffix" above it, or "*" (which then
//     opens only the name's public addresses: Guard.Outer checks each
//     address as resolved);
//   - "*.suffix" by the same or a wider "*.suffix", or "*";
//   - "*" by "*", "0.0.0.0/0" by "*" or itself, "::/0" likewise.
//
// An entry with no port is covered only by an entry with no port.
func (l AllowList) Outside(outer AllowList) []int {
	var out []int
	for i, e := range l.entries {
		covered := false
		for _, o := range outer.entries {
			if o.covers(e) {
				covered = true
				break
			}
		}
		if !covered {
			out = append(out, i)
		}
	}
	return out
}

// Merge returns a list with l's entries and then m's.
func (l AllowList) Merge(m AllowList) AllowList {
	entries := make([]entry, 0, len(l.entries)+len(m.entries))
	return AllowList{entries: append(append(entries, l.entries...), m.entries...)}
}

// covers reports whether o opens everything e opens.
func (o entry) covers(e entry) bool {
	if o.port != 0 && o.port != e.port {
		return false
	}
	switch {
	case e.unixPath != "" || o.unixPath != "":
		return e.unixPath == o.unixPath
	case e.anyPublic:
		return o.anyPublic && (!o.prefix.IsValid() || (e.prefix.IsValid() && e.prefix.Addr().Is4() == o.prefix.Addr().Is4()))
	case e.prefix.IsValid():
		if o.anyPublic {
			return publicOnly(e.prefix) && (!o.prefix.IsValid() || e.prefix.Addr().Is4() == o.prefix.Addr().Is4())
		}
		return o.prefix.IsValid() && o.prefix.Bits() <= e.prefix.Bits() && o.prefix.Contains(e.prefix.Addr())
	case o.anyPublic:
		// A name under "*" (or a family's /0): the guard's outer check
		// keeps it to the name's public addresses.
		return true
	case o.wildcard:
		return strings.HasSuffix(e.name, o.name)
	}
	return !e.wildcard && o.name != "" && e.name == o.name
}

// publicOnly reports whether p overlaps no range "*" leaves closed.
func publicOnly(p netip.Prefix) bool {
	for _, n := range nonPublic() {
		if p.Overlaps(n) {
			return false
		}
	}
	return true
}
