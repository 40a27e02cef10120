package httpclient

import (
	"context"
	"net/http/httptrace"
	"net/netip"
	"time"

	"github.com/barrage-dev/barrage/services/agent/internal/request"
)

// lookupTimer times the host name lookups of one dial. The request's
// DialFunc (a pkg/netguard Guard, or a net.Dialer) resolves the name
// through a net.Resolver, which reports each lookup to the hooks an
// httptrace.ClientTrace puts in the dial's context; an IP literal or a
// unix socket is not looked up and has no DNS phase.
type lookupTimer struct {
	start time.Time
	took  time.Duration
	done  bool
}

// traced returns ctx with hooks that time the lookups into l. It
// allocates, once per dial; the hooks run on the dialing goroutine.
func (l *lookupTimer) traced(ctx context.Context) context.Context {
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		DNSStart: func(httptrace.DNSStartInfo) { l.start = time.Now() },
		DNSDone: func(httptrace.DNSDoneInfo) {
			l.took += time.Since(l.start)
			l.done = true
		},
	})
}

// isIPLiteral reports whether host (a URL's host name, without brackets)
// is an IP address, which a dial does not look up.
func isIPLiteral(host string) bool {
	_, err := netip.ParseAddr(host)
	return err == nil
}

// note adds the lookups, if there were any, to p as its DNS phase.
func (l *lookupTimer) note(p *request.Phases) {
	if l.done {
		p.Open(request.PhaseDNS, l.took)
	}
}
