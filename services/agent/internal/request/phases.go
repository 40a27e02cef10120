package request

import (
	"time"

	"github.com/barrage-dev/barrage/pkg/resultformat"
)

// Phase is one part of an HTTP request's time (docs/agent.md, "Where a
// request's time goes"); the engine keeps a histogram of each.
type Phase uint8

// The phases, in the order of a request.
const (
	// PhaseDNS is the host name's lookup.
	PhaseDNS Phase = iota
	// PhaseConnect is the TCP (or unix socket) connect.
	PhaseConnect
	// PhaseTLS is the TLS handshake.
	PhaseTLS
	// PhaseWaiting is from the connection being ready to the first response byte.
	PhaseWaiting
	// PhaseReceiving is from the first response byte to the last.
	PhaseReceiving
	// NumPhases is the number of phases.
	NumPhases = resultformat.PhaseCount
	// NumConnPhases is the number of connection phases (DNS, connect, TLS),
	// the first of the phases.
	NumConnPhases = 3
)

// String returns the phase's name in results ("dns", "connect", ...).
func (p Phase) String() string { return resultformat.PhaseNames()[p] }

// Phases is where one request's time went. The zero value says nothing:
// a protocol without phases leaves it so. It is part of Result and must
// not allocate.
type Phases struct {
	// Conn holds the DNS, connect and TLS durations of the connection this
	// request was the first to use (opened for it, or ahead of it by
	// Connector.Connect), by Phase; Opened says which of them happened.
	Conn [NumConnPhases]time.Duration
	// Opened has bit 1<<p set for each connection phase p in Conn.
	Opened uint8
	// Ready is when the request's connection became ready (the end of its
	// set-up), set when Opened is; the waiting phase starts at the later
	// of Ready and the request's send.
	Ready time.Time
	// FirstByte is when the response's first byte arrived; zero when none
	// did (the request then has no waiting or receiving phase).
	FirstByte time.Time
}

// Open notes connection phase p of d.
func (p *Phases) Open(ph Phase, d time.Duration) {
	p.Conn[ph] += d
	p.Opened |= 1 << ph
}

// Has reports whether connection phase ph is in p.
func (p *Phases) Has(ph Phase) bool { return p.Opened&(1<<ph) != 0 }
