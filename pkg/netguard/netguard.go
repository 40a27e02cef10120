// Package netguard is how the API server reaches outside URLs without
// becoming an SSRF proxy: Guard decides which addresses a fetch may reach
// (link-local and cloud metadata never; loopback, private and CGNAT only
// when a project's target allow-list names them), DialContext dials only the
// addresses it checked, and Client is an *http.Client built on it for the
// sync of results from peer servers and buckets. ParseAllowList parses a
// project's target allow-list (DESIGN §7).
//
// It is not the load generator's client (agents dial targets themselves),
// not a general URL validator, and not the place for who may fetch what
// (package auth and the domain services decide that).
package netguard

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"strings"
)

// Guard decides which addresses a fetch may reach. The zero value refuses
// every loopback, private and CGNAT address and resolves with
// net.DefaultResolver.
type Guard struct {
	// Allow lists the loopback, private and CGNAT targets this fetch may
	// reach; it can never open link-local, metadata, unspecified, multicast
	// or broadcast addresses.
	Allow AllowList
	// Resolver resolves host names when Lookup is nil; nil means
	// net.DefaultResolver.
	Resolver *net.Resolver
	// Lookup, when set, replaces Resolver: it returns every address of
	// host. DialContext calls it exactly once per dial.
	Lookup func(ctx context.Context, host string) ([]netip.Addr, error)
	// Dialer connects to the checked addresses; nil means a net.Dialer
	// with a 30s connect timeout. Its Control hook sees the very address
	// connected, which tests use.
	Dialer *net.Dialer
}

// RefusedError is an address a Guard will not let a fetch reach.
type RefusedError struct {
	// Host is the host as asked in the URL (a name or an IP literal).
	Host string
	// IP is the address Host resolved to, as resolved.
	IP netip.Addr
	// Reason names the rule that refused it ("loopback address",
	// "cloud metadata address", ...).
	Reason string
	// Permanent is true when no allow-list entry can open the address
	// (link-local, metadata, unspecified, multicast, broadcast).
	Permanent bool
}

// Error says which address was refused, why, and whether the project's
// target allow-list can open it.
func (e *RefusedError) Error() string {
	who := e.IP.String()
	if e.Host != "" && !strings.EqualFold(e.Host, who) {
		who += fmt.Sprintf(" (host %q)", e.Host)
	}
	if e.Permanent {
		return fmt.Sprintf("%s is %s %s, which can never be reached", who, article(e.Reason), e.Reason)
	}
	return fmt.Sprintf("%s is %s %s; add it to the project's target allow-list to reach it", who, article(e.Reason), e.Reason)
}

// article returns "an" before a vowel sound and "a" otherwise.
func article(word string) string {
	if word != "" && strings.ContainsRune("aeiou", rune(word[0])) {
		return "an"
	}
	return "a"
}

// Reasons a Guard refuses an address.
const (
	reasonInvalid     = "invalid address"
	reasonMetadata    = "cloud metadata address"
	reasonLinkLocal   = "link-local address"
	reasonUnspecified = "unspecified address"
	reasonMulticast   = "multicast address"
	reasonBroadcast   = "broadcast address"
	reasonLoopback    = "loopback address"
	reasonPrivate     = "private address"
	reasonCGNAT       = "carrier-grade NAT address"
	reasonThisNetwork = "this-network (0.0.0.0/8) address"
)

// Check reports why host (as asked in the URL) at ip:port may not be
// reached, as a *RefusedError, or nil when it may. Link-local, cloud
// metadata, unspecified, multicast and broadcast addresses are always
// refused; loopback, private, CGNAT and 0.0.0.0/8 addresses are refused
// unless g.Allow has an entry for them; every other address is allowed.
// IPv4-mapped IPv6 and NAT64 (64:ff9b::/96) forms are judged by the IPv4
// address they carry.
func (g Guard) Check(host string, ip netip.Addr, port int) error {
	eff := effective(ip)
	reason, permanent := classify(eff)
	if reason == "" {
		return nil
	}
	if !permanent && g.Allow.allows(host, eff, port) {
		return nil
	}
	return &RefusedError{Host: host, IP: ip, Reason: reason, Permanent: permanent}
}

// effective returns the address ip really reaches: without zone, with
// IPv4-mapped and NAT64 well-known-prefix forms turned into IPv4.
func effective(ip netip.Addr) netip.Addr {
	ip = ip.WithZone("").Unmap()
	if ip.Is6() {
		b := ip.As16()
		nat64 := [12]byte{0x00, 0x64, 0xff, 0x9b}
		if [12]byte(b[:12]) == nat64 {
			return netip.AddrFrom4([4]byte(b[12:]))
		}
	}
	return ip
}

// classify returns the reason ip is refused ("" when it is a public
// address) and whether the refusal is permanent. ip must be effective.
func classify(ip netip.Addr) (reason string, permanent bool) {
	switch {
	case !ip.IsValid():
		return reasonInvalid, true
	case isMetadata(ip):
		return reasonMetadata, true
	case ip.IsLinkLocalUnicast():
		return reasonLinkLocal, true
	case ip.IsUnspecified():
		return reasonUnspecified, true
	case ip.IsMulticast():
		return reasonMulticast, true
	case ip == netip.AddrFrom4([4]byte{255, 255, 255, 255}):
		return reasonBroadcast, true
	case ip.IsLoopback():
		return reasonLoopback, false
	case ip.IsPrivate():
		return reasonPrivate, false
	}
	if ip.Is4() {
		b := ip.As4()
		switch {
		case b[0] == 100 && b[1]&0xc0 == 64: // 100.64.0.0/10
			return reasonCGNAT, false
		case b[0] == 0: // 0.0.0.0/8
			return reasonThisNetwork, false
		}
	}
	return "", false
}

// isMetadata reports whether ip is a cloud instance metadata endpoint:
// 169.254.169.254 (AWS, GCP, Azure, ...), fd00:ec2::254 (AWS IPv6) or
// 100.100.100.200 (Alibaba).
func isMetadata(ip netip.Addr) bool {
	awsV6 := netip.AddrFrom16([16]byte{0xfd, 0x00, 0x0e, 0xc2, 14: 0x02, 15: 0x54})
	return ip == netip.AddrFrom4([4]byte{169, 254, 169, 254}) ||
		ip == netip.AddrFrom4([4]byte{100, 100, 100, 200}) ||
		ip == awsV6
}
