package netguard

import (
	"context"
	"fmt"
	"net"
	"path"
	"strings"
	"time"
)

// unixPrefix starts an allow-list entry that names a Unix domain socket.
const unixPrefix = "unix:"

// reasonUnixSocket refuses a Unix socket that no entry names.
const reasonUnixSocket = "unix socket"

// maxUnixPath is the longest socket path an entry may name (sun_path is
// 104 bytes with the NUL on macOS and the BSDs, 108 on Linux).
const maxUnixPath = 103

// parseUnixEntry parses the path of a "unix:/path" entry, or returns a
// message saying what is wrong. Only exact, absolute, clean paths: a
// socket is a file of the agent's machine, and a pattern would open
// others beside it.
func parseUnixEntry(p string) (entry, string) {
	switch {
	case p == "":
		return entry{}, `want "unix:" followed by the socket's absolute path, e.g. "unix:/run/app.sock"`
	case len(p) > maxUnixPath:
		return entry{}, fmt.Sprintf("socket path must be at most %d bytes", maxUnixPath)
	case strings.ContainsFunc(p, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return entry{}, "socket path must not contain control characters"
	case !strings.HasPrefix(p, "/"):
		return entry{}, "socket path must be absolute, e.g. \"unix:/run/app.sock\""
	case path.Clean(p) != p:
		return entry{}, "socket path must be clean (no //, . or .. parts, no trailing /)"
	}
	return entry{unixPath: p}, ""
}

// allowsUnix reports whether an entry names the socket at p.
func (l AllowList) allowsUnix(p string) bool {
	for _, e := range l.entries {
		if e.unixPath != "" && e.unixPath == p {
			return true
		}
	}
	return false
}

// CheckUnix reports why the Unix domain socket at socketPath may not be
// reached, as a *RefusedError, or nil when it may: g.AnyUnixSocket is set,
// or g.Allow has the entry "unix:<socketPath>" (the path exactly as
// given). Host names, CIDRs and "*" never open a socket. A socket g.Deny
// names ("unix:/path", the control plane's Postgres) is always refused.
func (g Guard) CheckUnix(socketPath string) error {
	if g.Deny.allowsUnix(path.Clean(socketPath)) {
		return &RefusedError{Socket: socketPath, Reason: reasonControlPlane, Permanent: true}
	}
	if g.AnyUnixSocket {
		return nil
	}
	if !g.Allow.allowsUnix(socketPath) {
		return &RefusedError{Socket: socketPath, Reason: reasonUnixSocket}
	}
	if g.Outer != nil && !g.Outer.allowsUnix(socketPath) {
		return &RefusedError{Socket: socketPath, Reason: reasonOuter}
	}
	return nil
}

// dialUnix checks the socket at addr and connects to it.
func (g Guard) dialUnix(ctx context.Context, addr string) (net.Conn, error) {
	if err := g.CheckUnix(addr); err != nil {
		return nil, fmt.Errorf("netguard: dial unix %s: %w", addr, err)
	}
	d := g.Dialer
	if d == nil {
		d = &net.Dialer{Timeout: 30 * time.Second}
	}
	conn, err := d.DialContext(ctx, "unix", addr)
	if err != nil {
		return nil, fmt.Errorf("netguard: dial unix %s: %w", addr, err)
	}
	return conn, nil
}

// unixRefusal is the message of a refused socket.
func (e *RefusedError) unixRefusal() string {
	if e.Reason == reasonControlPlane {
		return fmt.Sprintf("unix socket %q is the Barrage control plane's (Postgres), which can never be a target", e.Socket)
	}
	if e.Reason == reasonOuter {
		return fmt.Sprintf("unix socket %q is outside the organisation's target policy; only an org admin can open it", e.Socket)
	}
	return fmt.Sprintf("unix socket %q is not allowed; add %q to the project's target allow-list to reach it",
		e.Socket, unixPrefix+e.Socket)
}
