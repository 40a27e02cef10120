// Package request declares the seam between the agent's engine and its protocol
// clients: a Client performs one request at a time on one connection and reports
// a Result; a Factory opens Clients and names their result codes. It holds no
// protocol code itself.
package request

import (
	"context"
	"net"
	"time"
)

// DialFunc connects to addr ("host:port") on network. The agent's is a
// pkg/netguard Guard's DialContext, which resolves the name and checks every
// address against the run's target policy on each dial (never per request);
// nil in a client's options means a plain net.Dialer.
type DialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

// Result is what one request produced. It is returned by value and must not
// allocate: the engine calls Do on its hot path.
type Result struct {
	// Code is the protocol's result code: the HTTP status (-1 for a socket error,
	// as Fortio reports it), or an index into the Factory's code names for other
	// protocols.
	Code int32
	// OK is false for requests that count as errors (non-2xx HTTP, failed RPC,
	// echo mismatch, timeout, I/O error).
	OK bool
	// Sent and Received count the bytes written and read, headers included.
	Sent, Received int64
	// ServerTime is the latency the target reported in the response header
	// the run names (see package servertime); valid when HasServerTime.
	ServerTime time.Duration
	// HasServerTime is set when the response carried a readable latency header.
	HasServerTime bool
	// Phases says where the request's time went (HTTP clients only).
	Phases Phases
}

// Client performs requests on one connection. It is used by one goroutine at a
// time. Do reconnects as needed: a failed request reports an error code and the
// next Do dials again.
type Client interface {
	// Do sends one request and waits for its whole response. It honours the
	// request timeout of the spec; ctx only interrupts it at shutdown.
	Do(ctx context.Context) Result
	// Close releases the connection; it may be called concurrently with Do to
	// interrupt it.
	Close() error
}

// Factory opens Clients for one target.
type Factory interface {
	// NewClient returns the client for connection index conn (0-based). It does
	// not have to connect yet.
	NewClient(ctx context.Context, conn int) (Client, error)
	// CodeName renders a Result code for reports ("200", "-1", "SERVING", "OK").
	CodeName(code int32) string
	// RunType is the Fortio RunType of this target ("HTTP", "TCP", "UDP",
	// "GRPC Health for ''", "GRPC Ping").
	RunType() string
}

// Connector is implemented by Clients that can set up their connection ahead
// of the first request, so the engine keeps connection set-up out of the
// measured latencies.
type Connector interface {
	// Connect dials (and handshakes) if the client has no connection yet.
	Connect(ctx context.Context) error
}

// EntryClient is implemented by Clients that can send each entry of a
// request mix; the engine picks the entry of every request and keeps each
// entry's results apart.
type EntryClient interface {
	// DoEntry sends one request of entry e (0-based) and waits for its
	// whole response, as Do does.
	DoEntry(ctx context.Context, e int) Result
}

// WriteReporter is implemented by HTTP/1.1 Clients, which can tell what the
// request they just sent wrote to, for a run that records its written URLs.
type WriteReporter interface {
	// LastWrite returns the request target (path and query) of the request
	// the last Do or DoEntry sent when its method writes (not GET, HEAD or
	// OPTIONS), else nil. The bytes are the client's and valid until its
	// next request: a caller that keeps them copies them.
	LastWrite() []byte
}
