package netguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/netip"
	"strconv"
	"strings"
	"time"
)

// ErrTooManyRedirects is returned (wrapped in a *url.Error) by a Client
// that was redirected more often than it allows.
var ErrTooManyRedirects = errors.New("netguard: too many redirects")

// DialContext dials addr ("host:port") on network "tcp", "tcp4", "tcp6",
// "udp", "udp4" or "udp6". It resolves the host once, checks every
// resolved address with Check and refuses the dial when any of them is
// refused, then dials the checked addresses themselves in order (never the
// name again, so DNS rebinding between check and connect cannot slip
// through) and returns the first connection. On network "unix" addr is a
// socket path, dialed only when CheckUnix allows it. A refusal is a
// *RefusedError in the returned error's chain.
func (g Guard) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	if network == "unix" {
		return g.dialUnix(ctx, addr)
	}
	ips, port, err := g.checked(ctx, network, addr)
	if err != nil {
		return nil, fmt.Errorf("netguard: dial %s: %w", addr, err)
	}
	d := g.Dialer
	if d == nil {
		d = &net.Dialer{Timeout: 30 * time.Second}
	}
	host, _, _ := net.SplitHostPort(addr) // checked resolved it
	var errs []error
	for _, ip := range ips {
		conn, err := dialAddr(ctx, d, network, netip.AddrPortFrom(ip, uint16(port)))
		if err == nil {
			return conn, nil
		}
		errs = append(errs, withoutAddress(err, host))
		if ctx.Err() != nil {
			break
		}
	}
	return nil, fmt.Errorf("netguard: dial %s: %w", addr, errors.Join(errs...))
}

// dialAddr connects to the checked address ap. A TCP dial takes ap as it
// is (Dialer.DialTCP): DialContext would format it, parse it back and run
// it through the resolver and the dual-stack racer for the one address it
// names, work a load test pays for every new connection. DialTCP does not
// report the connect to an httptrace.ClientTrace, though, so a dial whose
// ctx carries one (net/http's, the h2 client's phases) goes through
// DialContext, which does.
func dialAddr(ctx context.Context, d *net.Dialer, network string, ap netip.AddrPort) (net.Conn, error) {
	if strings.HasPrefix(network, "tcp") && d.LocalAddr == nil && httptrace.ContextClientTrace(ctx) == nil {
		conn, err := d.DialTCP(ctx, network, netip.AddrPort{}, ap)
		if err != nil {
			return nil, err // not a nil *net.TCPConn in an interface
		}
		return conn, nil
	}
	return d.DialContext(ctx, network, ap.String())
}

// withoutAddress returns err without the address dialed when host is a
// name: the text of a failed dial reaches runners and sync readers, who
// must not learn what an internal name resolves to (docs/security.md,
// "Target policy"). An IP literal's error stays as it is.
func withoutAddress(err error, host string) error {
	if _, perr := netip.ParseAddr(host); perr == nil {
		return err
	}
	var op *net.OpError
	if !errors.As(err, &op) {
		return err
	}
	hidden := *op
	hidden.Source, hidden.Addr = nil, nil
	return &hidden
}

// CheckAddr resolves addr ("host:port") as DialContext would on network
// and checks every address, without dialing: nil when a dial may go ahead
// now, else an error with a *RefusedError in its chain for a refusal. It
// is the check of a run's target when the run is submitted; the dial
// itself checks again.
func (g Guard) CheckAddr(ctx context.Context, network, addr string) error {
	if network == "unix" {
		if err := g.CheckUnix(addr); err != nil {
			return fmt.Errorf("netguard: unix %s: %w", addr, err)
		}
		return nil
	}
	if _, _, err := g.checked(ctx, network, addr); err != nil {
		return fmt.Errorf("netguard: %s: %w", addr, err)
	}
	return nil
}

// checked resolves addr on network and checks every address it resolved
// to, returning them and the port when all of them may be reached.
func (g Guard) checked(ctx context.Context, network, addr string) ([]netip.Addr, int, error) {
	ips, port, err := g.resolve(ctx, network, addr)
	if err != nil {
		return nil, 0, err
	}
	host, _, _ := net.SplitHostPort(addr) // resolve checked the form
	for _, ip := range ips {
		if err := g.Check(host, ip, port); err != nil {
			return nil, 0, err
		}
	}
	return ips, port, nil
}

// resolve splits addr and returns the addresses of its host usable on
// network, looked up once (an IP literal is not looked up), and its port.
func (g Guard) resolve(ctx context.Context, network, addr string) ([]netip.Addr, int, error) {
	var want func(netip.Addr) bool
	switch network {
	case "tcp", "udp":
		want = func(netip.Addr) bool { return true }
	case "tcp4", "udp4":
		want = netip.Addr.Is4
	case "tcp6", "udp6":
		want = netip.Addr.Is6
	default:
		return nil, 0, fmt.Errorf("unsupported network %q", network)
	}
	host, portStr, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, 0, err
	}
	port, err := strconv.ParseUint(portStr, 10, 16)
	if err != nil || port == 0 {
		return nil, 0, fmt.Errorf("invalid port %q", portStr)
	}
	found, err := g.lookup(ctx, host)
	if err != nil {
		return nil, 0, fmt.Errorf("look up %s: %w", host, err)
	}
	var ips []netip.Addr
	for _, ip := range found {
		if ip = ip.Unmap(); want(ip) {
			ips = append(ips, ip)
		}
	}
	if len(ips) == 0 {
		return nil, 0, fmt.Errorf("look up %s: no address for network %s", host, network)
	}
	return ips, int(port), nil
}

// lookup returns the addresses of host: host itself when it is an IP
// literal, otherwise the answer of g.Lookup or the resolver.
func (g Guard) lookup(ctx context.Context, host string) ([]netip.Addr, error) {
	if ip, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{ip}, nil
	}
	if g.Lookup != nil {
		return g.Lookup(ctx, host)
	}
	r := g.Resolver
	if r == nil {
		r = net.DefaultResolver
	}
	return r.LookupNetIP(ctx, "ip", host)
}

// Client returns an *http.Client whose transport dials only through g,
// never through a proxy (Proxy is nil, so HTTP_PROXY and friends cannot
// route around the guard), with the given per-request timeout, at most
// maxRedirects redirects (each target is checked again when dialed; one
// more fails with ErrTooManyRedirects) and no cookie jar.
func (g Guard) Client(timeout time.Duration, maxRedirects int) *http.Client {
	maxRedirects = max(maxRedirects, 0)
	return &http.Client{
		Transport: &http.Transport{
			Proxy:                 nil,
			DialContext:           g.DialContext,
			ForceAttemptHTTP2:     true,
			MaxIdleConns:          16,
			IdleConnTimeout:       90 * time.Second,
			TLSHandshakeTimeout:   10 * time.Second,
			ExpectContinueTimeout: time.Second,
		},
		Timeout: timeout,
		CheckRedirect: func(_ *http.Request, via []*http.Request) error {
			if len(via) > maxRedirects {
				return fmt.Errorf("%w (more than %d)", ErrTooManyRedirects, maxRedirects)
			}
			return nil
		},
	}
}
