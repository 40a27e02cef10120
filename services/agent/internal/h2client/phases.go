package h2client

import (
	"crypto/tls"
	"net/http/httptrace"
	"sync"
	"time"

	"github.com/barrage-dev/barrage/services/agent/internal/request"
)

// phaseTrace times one client's request phases from the standard
// transport's httptrace hooks: the name lookup, connect and TLS handshake
// of a connection the request opened, when it got its connection and its
// first response byte. With redirects followed, waiting and receiving are
// of the last response, and a request that opened several connections
// adds up their set-up. The transport may call the dial's hooks from a
// goroutine of its own, even after the request gave up, so they lock.
type phaseTrace struct {
	trace *httptrace.ClientTrace

	mu                         sync.Mutex
	ph                         request.Phases
	dnsStart, connStart, tlsAt time.Time
}

// newPhaseTrace returns a trace whose hooks write into it; it is built
// once per client and put into each request's context.
func newPhaseTrace() *phaseTrace {
	t := &phaseTrace{}
	t.trace = &httptrace.ClientTrace{
		DNSStart: func(httptrace.DNSStartInfo) { t.mark(&t.dnsStart) },
		DNSDone: func(i httptrace.DNSDoneInfo) {
			if i.Err == nil {
				t.since(&t.dnsStart, request.PhaseDNS)
			}
		},
		ConnectStart: func(string, string) { t.mark(&t.connStart) },
		ConnectDone: func(_, _ string, err error) {
			if err == nil {
				t.since(&t.connStart, request.PhaseConnect)
			}
		},
		TLSHandshakeStart: func() { t.mark(&t.tlsAt) },
		TLSHandshakeDone: func(_ tls.ConnectionState, err error) {
			if err == nil {
				t.since(&t.tlsAt, request.PhaseTLS)
			}
		},
		GotConn:              func(httptrace.GotConnInfo) { t.mark(&t.ph.Ready) },
		GotFirstResponseByte: func() { t.mark(&t.ph.FirstByte) },
	}
	return t
}

// mark sets *at to now.
func (t *phaseTrace) mark(at *time.Time) {
	now := time.Now()
	t.mu.Lock()
	*at = now
	t.mu.Unlock()
}

// since notes connection phase p as the time since *from.
func (t *phaseTrace) since(from *time.Time, p request.Phase) {
	now := time.Now()
	t.mu.Lock()
	if !from.IsZero() {
		t.ph.Open(p, now.Sub(*from))
	}
	t.mu.Unlock()
}

// take returns the phases noted since the last take and forgets them.
func (t *phaseTrace) take() request.Phases {
	t.mu.Lock()
	defer t.mu.Unlock()
	ph := t.ph
	t.ph, t.dnsStart, t.connStart, t.tlsAt = request.Phases{}, time.Time{}, time.Time{}, time.Time{}
	return ph
}
