package app

import (
	"context"
	"log/slog"
	"net"
	"net/netip"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// natsDefaultPort is the port of a NATS URL that names none.
const natsDefaultPort = 4222

// denylist is the control plane's addresses, which no run may target and
// no sync fetch (docs/security.md, "Target policy"): the API's own listen
// address, the hosts of its Postgres (with fallbacks) and NATS, and the
// operator's BARRAGE_TARGET_DENY entries, as netguard allow-list entries.
// A host is denied on every port, except an address of this machine
// (loopback, or one of its interfaces), where only the port the control
// plane uses is, so that targets beside it stay reachable; an operator
// entry with a port denies that port only. Names are resolved again every
// refresh (Run), so DNS changes and database failovers are followed.
type denylist struct {
	log *slog.Logger
	// hostPorts are the control plane's endpoints, "host:port".
	hostPorts []string
	// wildcardPort is the port of a wildcard listen address, 0 if none.
	wildcardPort int
	// extra are the operator's entries.
	extra []string
	// resolver resolves names; nil means net.DefaultResolver.
	resolver *net.Resolver
	current  atomic.Pointer[[]string]
}

// newDenylist returns the deny list of the API listening on listen (nil
// for none: syncs may read the API's own public results) with its
// Postgres at databaseURL and NATS at natsURLs (comma separated), plus
// extra, resolved once now.
func newDenylist(ctx context.Context, log *slog.Logger, resolver *net.Resolver, listen net.Addr, databaseURL, natsURLs string, extra []string) *denylist {
	d := &denylist{log: log, resolver: resolver, extra: extra}
	if tcp, ok := listen.(*net.TCPAddr); ok {
		if tcp.IP.IsUnspecified() {
			d.wildcardPort = tcp.Port
		} else {
			d.hostPorts = append(d.hostPorts, net.JoinHostPort(tcp.IP.String(), strconv.Itoa(tcp.Port)))
		}
	}
	if pg, err := pgconn.ParseConfig(databaseURL); err == nil {
		d.hostPorts = append(d.hostPorts, net.JoinHostPort(pg.Host, strconv.Itoa(int(pg.Port))))
		for _, fb := range pg.Fallbacks {
			d.hostPorts = append(d.hostPorts, net.JoinHostPort(fb.Host, strconv.Itoa(int(fb.Port))))
		}
	} else {
		log.Warn("target policy: cannot read the database URL; its address is not denied to runs", slog.Any("error", err))
	}
	for raw := range strings.SplitSeq(natsURLs, ",") {
		if hp := natsHostPort(strings.TrimSpace(raw)); hp != "" {
			d.hostPorts = append(d.hostPorts, hp)
		}
	}
	d.refresh(ctx)
	return d
}

// List returns the deny list as last resolved.
func (d *denylist) List() []string {
	if l := d.current.Load(); l != nil {
		return *l
	}
	return nil
}

// Run resolves the list again every interval until ctx is done.
func (d *denylist) Run(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			d.refresh(ctx)
		}
	}
}

// refresh resolves every endpoint and stores the list; it logs a change.
func (d *denylist) refresh(ctx context.Context) {
	local := localAddrs(d.log)
	var out []string
	if d.wildcardPort != 0 {
		port := strconv.Itoa(d.wildcardPort)
		out = append(out, "127.0.0.0/8:"+port, net.JoinHostPort("::1", port), net.JoinHostPort("localhost", port))
		for _, ip := range local {
			out = append(out, net.JoinHostPort(ip.String(), port))
		}
	}
	for _, hp := range d.hostPorts {
		host, port, err := net.SplitHostPort(hp)
		if err != nil {
			continue
		}
		if strings.HasPrefix(host, "/") { // Postgres on a Unix socket in directory host
			out = append(out, "unix:"+path.Join(host, ".s.PGSQL."+port))
			continue
		}
		out = append(out, d.entries(ctx, host, port, local)...)
	}
	for _, e := range d.extra {
		host, port := splitEntry(e)
		out = append(out, d.operatorEntries(ctx, host, port)...)
	}
	slices.Sort(out)
	out = slices.Compact(out)
	if prev := d.List(); !slices.Equal(prev, out) {
		d.log.Info("target policy: control-plane addresses denied to runs and syncs", slog.Any("deny", out))
	}
	d.current.Store(&out)
}

// entries turns one control-plane endpoint into entries: each address of
// host (itself when an IP) on every port, or on port only when it is this
// machine's; a name also as itself, likewise.
func (d *denylist) entries(ctx context.Context, host, port string, local []netip.Addr) []string {
	ips := d.resolve(ctx, host)
	shared := false
	var out []string
	for _, ip := range ips {
		ip = ip.Unmap()
		if ip.IsLoopback() || ip.IsUnspecified() || slices.Contains(local, ip) {
			shared = true
			out = append(out, net.JoinHostPort(ip.String(), port))
			continue
		}
		out = append(out, ip.String())
	}
	if _, err := netip.ParseAddr(host); err != nil {
		if shared || len(ips) == 0 {
			out = append(out, net.JoinHostPort(host, port))
		} else {
			out = append(out, host)
		}
	}
	return out
}

// operatorEntries turns one BARRAGE_TARGET_DENY entry into entries: the
// entry itself and, for a name, each address it resolves to, on port (""
// for every port).
func (d *denylist) operatorEntries(ctx context.Context, host, port string) []string {
	withPort := func(h string) string {
		if port == "" {
			return h
		}
		if strings.Contains(h, ":") {
			return "[" + h + "]:" + port
		}
		return h + ":" + port
	}
	out := []string{withPort(host)}
	if strings.Contains(host, "/") || strings.HasPrefix(host, "*") {
		return out
	}
	if _, err := netip.ParseAddr(host); err == nil {
		return out
	}
	for _, ip := range d.resolve(ctx, host) {
		out = append(out, withPort(ip.Unmap().String()))
	}
	return out
}

// resolve returns the addresses of host: itself when an IP; none (with a
// warning) when the lookup fails, so the name alone is denied.
func (d *denylist) resolve(ctx context.Context, host string) []netip.Addr {
	if ip, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{ip}
	}
	r := d.resolver
	if r == nil {
		r = net.DefaultResolver
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	ips, err := r.LookupNetIP(ctx, "ip", host)
	if err != nil {
		d.log.Warn("target policy: cannot resolve a control-plane host; denied by name only",
			slog.String("host", host), slog.Any("error", err))
	}
	return ips
}

// splitEntry splits a netguard entry into host and port ("" for none):
// "h", "h:80", "[::1]:80", "::1", "10.0.0.0/8:5432".
func splitEntry(e string) (host, port string) {
	e = strings.TrimSpace(e)
	if rest, ok := strings.CutPrefix(e, "["); ok {
		h, p, _ := strings.Cut(rest, "]")
		return h, strings.TrimPrefix(p, ":")
	}
	if strings.Count(e, ":") == 1 {
		h, p, _ := strings.Cut(e, ":")
		return h, p
	}
	return e, ""
}

// localAddrs returns this machine's interface addresses.
func localAddrs(log *slog.Logger) []netip.Addr {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		log.Warn("target policy: cannot list this machine's addresses", slog.Any("error", err))
	}
	var out []netip.Addr
	for _, a := range addrs {
		if p, err := netip.ParsePrefix(a.String()); err == nil {
			out = append(out, p.Addr().Unmap())
		}
	}
	return out
}

// natsHostPort returns the host:port of one NATS URL ("nats://h:4222",
// "h:4222" or "h"), or "" when there is none.
func natsHostPort(raw string) string {
	if raw == "" {
		return ""
	}
	if !strings.Contains(raw, "://") {
		raw = "nats://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" {
		return ""
	}
	port := u.Port()
	if port == "" {
		port = strconv.Itoa(natsDefaultPort)
	}
	return net.JoinHostPort(u.Hostname(), port)
}
