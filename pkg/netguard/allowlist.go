package netguard

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// AllowList is a project's parsed target allow-list: the addresses a fetch
// or a run for that project may reach. The zero value is empty and opens
// nothing. A Guard also uses one for Deny, the addresses it always refuses.
type AllowList struct {
	entries []entry
}

// entry is one parsed allow-list entry: either prefix or name is set.
type entry struct {
	prefix   netip.Prefix // an IP as a /32 or /128, or a CIDR, masked
	name     string       // lower-case host name, or the suffix ".corp.example" when wildcard
	wildcard bool
	// anyPublic is "*", "0.0.0.0/0" or "::/0": every public address (of
	// prefix's family when prefix is set), never a loopback, private or
	// CGNAT one.
	anyPublic bool
	port      int // 0 = any port
	// unixPath is the socket of a "unix:/path" entry, which matches no
	// IP address or name.
	unixPath string
}

// EntryError is one allow-list entry that ParseAllowList could not read.
type EntryError struct {
	// Index is the entry's position in the list, from 0.
	Index int
	// Entry is the entry as given.
	Entry string
	// Msg says what is wrong, for a human.
	Msg string
}

// Error returns `entry <Index> "<Entry>": <Msg>`.
func (e *EntryError) Error() string {
	return fmt.Sprintf("entry %d %q: %s", e.Index, e.Entry, e.Msg)
}

// ParseAllowList parses entries: a host name ("fortio.internal", or
// "*.corp.example", which matches every name under corp.example but not
// corp.example itself), an IP ("127.0.0.1", "::1"), a CIDR ("10.0.0.0/8"),
// or "*" for every public address, each optionally followed by ":port"
// ("[::1]:8080" and "[fc00::/7]:443" for IPv6 with a port; an unbracketed
// IPv6 address never has one). "0.0.0.0/0" and "::/0" mean every public
// IPv4 or IPv6 address: like "*", they never open loopback, private or
// CGNAT addresses, which must be listed themselves. "unix:/run/app.sock"
// names one Unix domain socket by its absolute path, which nothing else
// opens. Every bad entry is reported, as *EntryError values joined with
// errors.Join.
func ParseAllowList(entries []string) (AllowList, error) {
	var (
		list AllowList
		errs []error
	)
	for i, s := range entries {
		e, msg := parseEntry(s)
		if msg != "" {
			errs = append(errs, &EntryError{Index: i, Entry: s, Msg: msg})
			continue
		}
		list.entries = append(list.entries, e)
	}
	if len(errs) > 0 {
		return AllowList{}, errors.Join(errs...)
	}
	return list, nil
}

// Len returns the number of entries.
func (l AllowList) Len() int { return len(l.entries) }

// allows reports whether an entry matches host or ip, and port. public
// says ip is a public address, which "any public address" entries match.
func (l AllowList) allows(host string, ip netip.Addr, port int, public bool) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	for _, e := range l.entries {
		if e.unixPath != "" || (e.port != 0 && e.port != port) {
			continue
		}
		switch {
		case e.anyPublic:
			if public && (!e.prefix.IsValid() || e.prefix.Addr().Is4() == ip.Is4()) {
				return true
			}
		case e.prefix.IsValid():
			if e.prefix.Contains(ip) {
				return true
			}
		case e.wildcard:
			if strings.HasSuffix(host, e.name) {
				return true
			}
		case host == e.name:
			return true
		}
	}
	return false
}

// parseEntry parses one entry, or returns a message saying what is wrong.
func parseEntry(s string) (entry, string) {
	s = strings.TrimSpace(s)
	if s == "" {
		return entry{}, "empty entry"
	}
	if p, ok := strings.CutPrefix(s, unixPrefix); ok {
		return parseUnixEntry(p)
	}
	if strings.Contains(s, "://") {
		return entry{}, urlMessage(s)
	}
	hostPart, portPart, bracketed, msg := splitEntry(s)
	if msg != "" {
		return entry{}, msg
	}
	var e entry
	if portPart != "" {
		p, err := strconv.ParseUint(portPart, 10, 16)
		if err != nil || p == 0 {
			return entry{}, "port must be a number from 1 to 65535"
		}
		e.port = int(p)
	}
	switch {
	case hostPart == "*" && !bracketed:
		e.anyPublic = true
	case strings.Contains(hostPart, "/"):
		e.prefix, msg = parseCIDR(hostPart)
		e.anyPublic = msg == "" && e.prefix.Bits() == 0
	case looksLikeIP(hostPart):
		e.prefix, msg = parseIP(hostPart)
	case bracketed:
		msg = "brackets are only for IPv6 addresses"
	default:
		e.name, e.wildcard, msg = parseName(hostPart)
	}
	if msg == "" && bracketed && !e.prefix.Addr().Is6() {
		msg = "brackets are only for IPv6 addresses"
	}
	return e, msg
}

// urlMessage explains that a URL is not an entry and suggests its host.
func urlMessage(s string) string {
	const msg = "is a URL; write only its host and optional port"
	if u, err := url.Parse(s); err == nil && u.Host != "" {
		return fmt.Sprintf("%s, e.g. %q", msg, u.Host)
	}
	return msg
}

// splitEntry splits s into host and port ("" when there is none).
// bracketed says the host was written in [brackets].
func splitEntry(s string) (host, port string, bracketed bool, msg string) {
	if strings.HasPrefix(s, "[") {
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return "", "", true, "missing ']' after an IPv6 address"
		}
		host, rest := s[1:end], s[end+1:]
		if rest == "" {
			return host, "", true, ""
		}
		if !strings.HasPrefix(rest, ":") {
			return "", "", true, "want ':port' after ']'"
		}
		if rest == ":" {
			return "", "", true, "missing port after ':'"
		}
		return host, rest[1:], true, ""
	}
	switch strings.Count(s, ":") {
	case 0:
		return s, "", false, ""
	case 1:
		host, port, _ := strings.Cut(s, ":")
		if port == "" {
			return "", "", false, "missing port after ':'"
		}
		return host, port, false, ""
	default: // an IPv6 address or CIDR without a port
		return s, "", false, ""
	}
}

// looksLikeIP reports whether s is meant as an IP address rather than a
// host name: it has a colon, or its last dot-separated label is all digits
// (no top-level domain is).
func looksLikeIP(s string) bool {
	if strings.Contains(s, ":") {
		return true
	}
	last := s[strings.LastIndexByte(s, '.')+1:]
	if last == "" {
		return false
	}
	for _, c := range last {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// parseIP parses an IP address into a single-address prefix.
func parseIP(s string) (netip.Prefix, string) {
	ip, err := netip.ParseAddr(s)
	switch {
	case err != nil:
		return netip.Prefix{}, "not a valid IP address"
	case ip.Zone() != "":
		return netip.Prefix{}, "an IPv6 zone is not allowed"
	}
	ip = ip.Unmap()
	return netip.PrefixFrom(ip, ip.BitLen()), ""
}

// parseCIDR parses a CIDR, masking host bits ("10.1.2.3/8" is 10.0.0.0/8).
func parseCIDR(s string) (netip.Prefix, string) {
	p, err := netip.ParsePrefix(s)
	switch {
	case err != nil:
		return netip.Prefix{}, "not a valid CIDR (want e.g. 10.0.0.0/8 or fc00::/7)"
	case p.Addr().Is4In6():
		return netip.Prefix{}, "write an IPv4-mapped CIDR in its IPv4 form"
	}
	return p.Masked(), ""
}

// parseName checks a host name, optionally "*."-prefixed, and returns it
// lower-cased (for a wildcard, the suffix from its leading dot).
func parseName(s string) (name string, wildcard bool, msg string) {
	name = strings.TrimSuffix(strings.ToLower(s), ".")
	if rest, ok := strings.CutPrefix(name, "*."); ok {
		if msg := checkName(rest); msg != "" {
			return "", false, msg
		}
		return "." + rest, true, ""
	}
	if strings.Contains(name, "*") {
		return "", false, `a wildcard is only allowed as a leading "*."`
	}
	if msg := checkName(name); msg != "" {
		return "", false, msg
	}
	return name, false, ""
}

// checkName reports what is wrong with a lower-case host name, or "".
func checkName(name string) string {
	if name == "" {
		return "missing host name"
	}
	if len(name) > 253 {
		return "host name longer than 253 characters"
	}
	for label := range strings.SplitSeq(name, ".") {
		if label == "" || len(label) > 63 {
			return "each dot-separated part of a host name must have 1 to 63 characters"
		}
		if label[0] == '-' || label[len(label)-1] == '-' {
			return "a host name part cannot start or end with '-'"
		}
		for _, c := range label {
			if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' && c != '_' {
				return fmt.Sprintf("%q is not allowed in a host name (use the xn-- form for international names)", c)
			}
		}
	}
	return ""
}
