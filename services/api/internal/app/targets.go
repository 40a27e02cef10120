package app

import (
	"context"
	"log/slog"
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// natsDefaultPort is the port of a NATS URL that names none.
const natsDefaultPort = 4222

// controlPlaneDeny returns the addresses no run may target, as netguard
// allow-list entries with ports: the API's own listen address, and the
// hosts and ports of its Postgres (databaseURL) and NATS (natsURLs, comma
// separated). A wildcard listen address stands for every loopback address
// and every address of this machine's interfaces; a host name stands for
// itself and for what it resolves to now.
func controlPlaneDeny(ctx context.Context, log *slog.Logger, listen net.Addr, databaseURL, natsURLs string) []string {
	var hostPorts []string
	if tcp, ok := listen.(*net.TCPAddr); ok {
		host := ""
		if !tcp.IP.IsUnspecified() {
			host = tcp.IP.String()
		}
		hostPorts = append(hostPorts, net.JoinHostPort(host, strconv.Itoa(tcp.Port)))
	}
	if pg, err := pgconn.ParseConfig(databaseURL); err == nil {
		hostPorts = append(hostPorts, net.JoinHostPort(pg.Host, strconv.Itoa(int(pg.Port))))
		for _, fb := range pg.Fallbacks {
			hostPorts = append(hostPorts, net.JoinHostPort(fb.Host, strconv.Itoa(int(fb.Port))))
		}
	} else {
		log.Warn("target policy: cannot read the database URL; its address is not denied to runs", slog.Any("error", err))
	}
	for raw := range strings.SplitSeq(natsURLs, ",") {
		if hp := natsHostPort(strings.TrimSpace(raw)); hp != "" {
			hostPorts = append(hostPorts, hp)
		}
	}
	var out []string
	for _, hp := range hostPorts {
		out = append(out, denyEntries(ctx, log, hp)...)
	}
	slices.Sort(out)
	return slices.Compact(out)
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

// denyEntries turns one host:port into entries: an IP as itself, a
// wildcard ("" or unspecified) as loopback and every interface address, a
// name as itself and its current addresses. A Unix socket path gives none.
func denyEntries(ctx context.Context, log *slog.Logger, hostPort string) []string {
	host, port, err := net.SplitHostPort(hostPort)
	if err != nil || strings.HasPrefix(host, "/") {
		return nil
	}
	entry := func(ip netip.Addr) string { return net.JoinHostPort(ip.Unmap().String(), port) }
	if ip, err := netip.ParseAddr(host); err == nil && !ip.IsUnspecified() {
		return []string{entry(ip)}
	}
	if ip, err := netip.ParseAddr(host); host == "" || (err == nil && ip.IsUnspecified()) {
		out := []string{"127.0.0.0/8:" + port, net.JoinHostPort("::1", port), net.JoinHostPort("localhost", port)}
		addrs, err := net.InterfaceAddrs()
		if err != nil {
			log.Warn("target policy: cannot list this machine's addresses", slog.Any("error", err))
		}
		for _, a := range addrs {
			if p, err := netip.ParsePrefix(a.String()); err == nil {
				out = append(out, entry(p.Addr()))
			}
		}
		return out
	}
	out := []string{net.JoinHostPort(host, port)}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	ips, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		log.Warn("target policy: cannot resolve a control-plane host; denied by name only",
			slog.String("host", host), slog.Any("error", err))
	}
	for _, ip := range ips {
		out = append(out, entry(ip))
	}
	return out
}
