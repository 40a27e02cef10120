// Package netguard decides which network addresses Barrage may reach, so
// that neither the API server nor a load agent becomes an SSRF proxy or a
// weapon against its own control plane (docs/architecture.md §7). Guard decides, for an
// address as resolved, whether it may be reached; DialContext resolves a
// name once, checks every address and dials only the checked ones, so DNS
// rebinding between check and connect cannot slip through; Client is an
// *http.Client built on it. ParseAllowList parses a project's target
// allow-list.
//
// Barrage's runs and syncs use one policy (docs/security.md, "Target
// policy"): every address, public ones included, must match an entry of
// the project's allow-list (Guard.RequireListed; "*" opens every public
// address; an empty list refuses every target) and of its bound, the
// organisation's policy with the project's grants (Guard.Outer); the
// control plane's own addresses (the API's listen address, Postgres,
// NATS) are in Guard.Deny and refused whatever the lists say. The API
// checks a run's target when the run is submitted (resolving its name),
// the agent again on every connection it dials (the name resolved again,
// so a name that now resolves to a refused address is refused), and a
// sync on every connection. AllowList.Outside says which entries of a
// list a bound does not cover. The standalone `barrage-agent load` has no
// project: it refuses only what is always refused. A refusal's text names
// a host as asked, never the address a name resolved to.
//
// Whatever the lists say, link-local, cloud metadata, unspecified, multicast
// and broadcast addresses are never reached.
//
// It is not a load generator's client (the agent's protocol clients dial
// through Guard.DialContext), not a general URL validator, and not the
// place for who may fetch what (package auth and the domain services
// decide that).
package netguard

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
)

// Guard decides which addresses a fetch may reach. The zero value refuses
// every loopback, private and CGNAT address and resolves with
// net.DefaultResolver.
type Guard struct {
	// Allow lists the loopback, private and CGNAT targets this fetch may
	// reach (and, with RequireListed, the public ones); it can never open
	// link-local, metadata, unspecified, multicast or broadcast addresses.
	Allow AllowList
	// RequireListed refuses public addresses too unless Allow matches them
	// (the policy of run targets); an empty Allow then refuses everything.
	RequireListed bool
	// Deny lists addresses refused whatever Allow says: the control
	// plane's own (API listen address, Postgres, NATS).
	Deny AllowList
	// Resolver resolves host names when Lookup is nil; nil means
	// net.DefaultResolver.
	Resolver *net.Resolver
	// Lookup, when set, replaces Resolver: it returns every address of
	// host. DialContext calls it exactly once per dial.
	Lookup func(ctx context.Context, host string) ([]netip.Addr, error)
	// Outer, when set, bounds Allow: an address (or socket) must also be
	// opened by Outer, the organisation's target policy with the entries an
	// org admin granted the project (docs/security.md, "Target policy").
	// Nil means no bound beyond Allow.
	Outer *AllowList
	// AnyUnixSocket lets every Unix domain socket be dialed (the standalone
	// CLI's policy); otherwise only the sockets Allow names ("unix:/path").
	AnyUnixSocket bool
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
	// (link-local, metadata, unspecified, multicast, broadcast, control
	// plane).
	Permanent bool
	// Port is the port asked; Error shows it for a control-plane address.
	Port int
	// EmptyList is true when the address was refused because the allow-list
	// has no entry at all (RequireListed).
	EmptyList bool
	// Socket is the path of a refused Unix domain socket (CheckUnix); IP
	// and Host are then unset.
	Socket string
}

// Error says which address was refused, why, and whether the project's
// target allow-list can open it. A host asked by name is named as asked,
// never by the address it resolved to: the text reaches runners, who must
// not learn the internal addresses of names (docs/security.md, "Target
// policy").
func (e *RefusedError) Error() string {
	if e.Socket != "" {
		return e.unixRefusal()
	}
	who, verb := e.IP.String(), "is"
	if e.byName() {
		who, verb = fmt.Sprintf("host %q", e.Host), "resolves to"
	}
	switch {
	case e.Reason == reasonControlPlane:
		if e.byName() {
			who = fmt.Sprintf("host %q port %d", e.Host, e.Port)
		} else {
			who = net.JoinHostPort(e.IP.String(), strconv.Itoa(e.Port))
		}
		return fmt.Sprintf("%s %s %s %s (the Barrage API, Postgres or NATS), which can never be a target", who, verb, article(e.Reason), e.Reason)
	case e.Permanent:
		return fmt.Sprintf("%s %s %s %s, which can never be reached", who, verb, article(e.Reason), e.Reason)
	case e.Reason == reasonOuter:
		return fmt.Sprintf("%s %s %s; only an org admin can open it", who, verb, e.Reason)
	case e.EmptyList:
		return fmt.Sprintf("%s is not allowed: the project's target allow-list is empty; "+
			"a project admin must add the hosts, CIDRs or \"*\" runs may reach in the project settings", who)
	case e.byName():
		return fmt.Sprintf("%s %s %s %s; add the host to the project's target allow-list to reach it", who, verb, article(e.Reason), e.Reason)
	}
	return fmt.Sprintf("%s is %s %s; add it to the project's target allow-list to reach it", who, article(e.Reason), e.Reason)
}

// byName reports whether the refused host was asked as a name rather than
// as an IP literal.
func (e *RefusedError) byName() bool {
	if e.Host == "" {
		return false
	}
	_, err := netip.ParseAddr(e.Host)
	return err != nil
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
	reasonBenchmark   = "benchmarking (198.18.0.0/15) address"
	reasonReserved    = "reserved (240.0.0.0/4) address"
	// reasonTransition refuses 6to4 (2002::/16) and Teredo (2001::/32)
	// addresses: they carry an IPv4 address a relay reaches, which the
	// guard does not judge, so they are never taken for public ones.
	reasonTransition = "6to4 or Teredo (IPv6 transition) address"
	// reasonPublic refuses a public address with RequireListed.
	reasonPublic = "public address"
	// reasonControlPlane refuses an address in Deny.
	reasonControlPlane = "control-plane address"
	// reasonOuter refuses an address that Allow opens but Outer does not.
	reasonOuter = "an address outside the organisation's target policy"
)

// Check reports why host (as asked in the URL) at ip:port may not be
// reached, as a *RefusedError, or nil when it may. Link-local, cloud
// metadata, unspecified, multicast and broadcast addresses, and those in
// g.Deny, are always refused; loopback, private, CGNAT, 0.0.0.0/8,
// benchmarking (198.18.0.0/15), reserved (240.0.0.0/4), 6to4 (2002::/16)
// and Teredo (2001::/32) addresses are refused unless g.Allow has an entry
// for them; every other (public) address is allowed, or with
// g.RequireListed only when g.Allow has an entry for it. IPv4-mapped IPv6 and NAT64 (64:ff9b::/96) forms are
// judged by the IPv4 address they carry.
func (g Guard) Check(host string, ip netip.Addr, port int) error {
	eff := effective(ip)
	reason, permanent := classify(eff)
	refuse := func(reason string, permanent bool) error {
		return &RefusedError{Host: host, IP: ip, Reason: reason, Permanent: permanent, Port: port,
			EmptyList: !permanent && g.RequireListed && g.Allow.Len() == 0}
	}
	switch {
	case permanent:
		return refuse(reason, true)
	case g.Deny.allows(host, eff, port, false):
		return refuse(reasonControlPlane, true)
	case reason == "" && !g.RequireListed:
		return nil
	case g.Allow.allows(host, eff, port, reason == ""):
		if g.Outer != nil && !g.Outer.allows(host, eff, port, reason == "") {
			return refuse(reasonOuter, false)
		}
		return nil
	case reason == "":
		return refuse(reasonPublic, false)
	}
	return refuse(reason, false)
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
		return classify4(ip.As4())
	}
	b := ip.As16()
	if b[0] == 0x20 && (b[1] == 0x02 || (b[1] == 0x01 && b[2] == 0 && b[3] == 0)) { // 2002::/16, 2001::/32
		return reasonTransition, false
	}
	return "", false
}

// classify4 is classify for the IPv4 ranges netip has no predicate for.
func classify4(b [4]byte) (reason string, permanent bool) {
	switch {
	case b[0] == 100 && b[1]&0xc0 == 64: // 100.64.0.0/10
		return reasonCGNAT, false
	case b[0] == 0: // 0.0.0.0/8
		return reasonThisNetwork, false
	case b[0] == 198 && b[1]&0xfe == 18: // 198.18.0.0/15
		return reasonBenchmark, false
	case b[0]&0xf0 == 240: // 240.0.0.0/4; 255.255.255.255 is refused before as broadcast
		return reasonReserved, false
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

// Unrestricted returns a Guard that refuses only what is always refused
// (link-local, cloud metadata, unspecified, multicast, broadcast): public,
// loopback, private, CGNAT, benchmarking, reserved and 6to4/Teredo
// addresses are all open. It is the policy of a load with no project,
// `barrage-agent load`, which like Fortio hits whatever its user names.
func Unrestricted() Guard {
	all := []string{
		"127.0.0.0/8", "::1", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16",
		"fc00::/7", "100.64.0.0/10", "0.0.0.0/8", "198.18.0.0/15", "240.0.0.0/4",
		"2002::/16", "2001::/32",
	}
	list, err := ParseAllowList(all)
	if err != nil { // the entries above are valid
		panic(fmt.Sprintf("netguard: unrestricted allow-list: %v", err))
	}
	return Guard{Allow: list, AnyUnixSocket: true}
}
