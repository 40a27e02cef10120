package resultformat

// Request phase names: where an HTTP request's time went, each recorded
// in a histogram of its own (docs/agent.md, "Where a request's time
// goes"). The connection phases (DNS, Connect, TLS) are recorded only for
// the requests that opened a connection, so their counts are the number of
// connections opened (DNS: of names looked up); Waiting and Receiving are
// recorded for every request that got a response.
const (
	// PhaseDNS is the host name's lookup (none for an IP literal or a
	// unix socket).
	PhaseDNS = "dns"
	// PhaseConnect is the TCP (or unix socket) connect.
	PhaseConnect = "connect"
	// PhaseTLS is the TLS handshake.
	PhaseTLS = "tls"
	// PhaseWaiting is from when the request could be written (its
	// connection ready) to the response's first byte: time to first byte.
	PhaseWaiting = "waiting"
	// PhaseReceiving is from the response's first byte to its last.
	PhaseReceiving = "receiving"
)

// PhaseCount is the number of request phases.
const PhaseCount = 5

// PhaseNames returns the request phases' names in the order of a
// request: DNS, connect, TLS, waiting, receiving.
func PhaseNames() [PhaseCount]string {
	return [PhaseCount]string{PhaseDNS, PhaseConnect, PhaseTLS, PhaseWaiting, PhaseReceiving}
}
