// Package spec defines the run spec: what one load test sends, to which
// target, at what rate and for how long. The API stores it as JSONB and
// validates it on POST, the agent executes it, and `barrage-agent load`
// builds it from Fortio-style flags, so its JSON field names are a contract.
//
// The package owns the spec's types, its defaults (Normalize, the one place
// they live), its validation (Validate, which reports every problem with the
// JSON path of the field) and the redaction of secrets before a spec is
// stored or logged (Redacted). Parse does decode, Normalize and Validate in
// one step for input from outside.
//
// It is not the place for policy that depends on who runs the test (project
// target allow-lists, per-project limits, agent counts: the API owns those),
// nor for executing a spec (the agent's engine does that). It does no I/O:
// payload_file is only carried, the agent CLI reads it.
package spec

import (
	"maps"
	"slices"
	"strings"
	"time"
)

// Spec is one load test: the target URL, the rate, the run length, the
// request and what to report. The zero value is not valid; call Normalize to
// fill the defaults, then Validate (Parse does both).
type Spec struct {
	// URL is the target: http://, https://, h2c:// (HTTP/2 cleartext with
	// prior knowledge), grpc://host:port, grpcs://host:port, tcp://host:port
	// or udp://host:port.
	URL string `json:"url"`
	// QPS is the target total requests per second across all connections
	// (and all agents); 0 means as fast as possible.
	QPS float64 `json:"qps"`
	// Connections is the number of connections (Fortio -c); default 8.
	Connections int `json:"connections"`
	// Duration is how long to run (Fortio -t); default 5s unless Count or
	// UntilStopped is set.
	Duration Duration `json:"duration,omitzero"`
	// Count is the exact number of calls (Fortio -n); excludes Duration.
	Count int64 `json:"count,omitempty"`
	// UntilStopped runs until the run is stopped; excludes Duration and Count.
	UntilStopped bool `json:"until_stopped,omitempty"`
	// Pacing is how sends are scheduled; default open when QPS > 0 or a Ramp
	// is set, closed otherwise.
	Pacing Pacing `json:"pacing,omitempty"`
	// Jitter adds ±10% random noise to the intended send times (Fortio -jitter).
	Jitter bool `json:"jitter,omitempty"`
	// Uniform spreads the connections' first sends evenly over one period
	// (Fortio -uniform).
	Uniform bool `json:"uniform,omitempty"`
	// NoCatchUp stops a late connection from bursting to catch up with its
	// schedule (Fortio -nocatchup); fortio pacing only.
	NoCatchUp bool `json:"no_catchup,omitempty"`
	// Ramp is a linear qps ramp at the start of the run; open pacing only.
	Ramp *Ramp `json:"ramp,omitempty"`
	// Method is the HTTP method; default GET, or POST when a payload, payload
	// file or content type is set (Fortio's behaviour). HTTP only.
	Method string `json:"method,omitempty"`
	// Headers are extra request headers as "Name: value" (Fortio -H).
	Headers []string `json:"headers,omitempty"`
	// Payload is the request body (HTTP) or message (TCP, UDP, gRPC ping).
	Payload string `json:"payload,omitempty"`
	// PayloadFile names a file the agent CLI reads the payload from;
	// excludes Payload.
	PayloadFile string `json:"payload_file,omitempty"`
	// ContentType is the HTTP Content-Type of the payload.
	ContentType string `json:"content_type,omitempty"`
	// Timeout is the per-request timeout; default 3s, 750ms for UDP.
	Timeout Duration `json:"timeout,omitzero"`
	// Insecure skips TLS certificate verification (Fortio -k).
	Insecure bool `json:"insecure,omitempty"`
	// H2 uses HTTP/2 over TLS for an https:// URL (h2c:// is always HTTP/2).
	H2 bool `json:"h2,omitempty"`
	// H3 uses HTTP/3 over QUIC for an https:// URL.
	H3 bool `json:"h3,omitempty"`
	// GRPC selects what a grpc:// or grpcs:// run calls; default health.
	GRPC *GRPC `json:"grpc,omitempty"`
	// Percentiles to report; default 50, 75, 90, 99, 99.9.
	Percentiles []float64 `json:"percentiles,omitempty"`
	// Labels are free-form key/value tags for finding and comparing runs.
	Labels map[string]string `json:"labels,omitempty"`
	// Agents chooses which agents share the run; nil means every agent.
	Agents *Agents `json:"agents,omitempty"`
	// AbortOn is an HTTP status that aborts the run (Fortio -abort-on);
	// 0 means none and -1 means socket errors. HTTP only.
	AbortOn int `json:"abort_on,omitempty"`
}

// Ramp is a linear qps ramp from From to To over the first Over of the run;
// the rate stays at To afterwards.
type Ramp struct {
	// From is the qps at the start of the run; may be 0.
	From float64 `json:"from"`
	// To is the qps reached after Over, and held for the rest of the run.
	To float64 `json:"to"`
	// Over is the length of the ramp.
	Over Duration `json:"over"`
}

// Agents chooses the agents a distributed run is split across.
type Agents struct {
	// Count is how many agents to use; 0 means every matching agent.
	Count int `json:"count,omitempty"`
	// Selector keeps the agents whose labels include every pair given.
	Selector map[string]string `json:"selector,omitempty"`
}

// GRPC selects the call a gRPC run makes.
type GRPC struct {
	// Mode is the call: health check or Fortio ping.
	Mode GRPCMode `json:"mode"`
	// Service is the service name sent in health checks; empty means the
	// server's overall health. Health mode only.
	Service string `json:"service,omitempty"`
	// PingDelay asks the ping server to wait this long before replying.
	// Ping mode only.
	PingDelay Duration `json:"ping_delay,omitzero"`
}

// Pacing is how the sends of a run are scheduled (DESIGN §4).
type Pacing string

// Pacing modes.
const (
	// PacingOpen is an open loop: a schedule of intended send times at the
	// target rate, served by up to Connections connections; waiting for a
	// free connection counts in the response time.
	PacingOpen Pacing = "open"
	// PacingClosed is a closed loop: each connection sends as fast as it can.
	PacingClosed Pacing = "closed"
	// PacingFortio is Fortio's per-connection closed loop with catch-up, for
	// like-for-like comparisons with Fortio.
	PacingFortio Pacing = "fortio"
)

// Valid reports whether p is one of the known pacing modes.
func (p Pacing) Valid() bool {
	switch p {
	case PacingOpen, PacingClosed, PacingFortio:
		return true
	default:
		return false
	}
}

// GRPCMode is the call a gRPC run makes.
type GRPCMode string

// gRPC modes.
const (
	// GRPCHealth calls grpc.health.v1.Health/Check.
	GRPCHealth GRPCMode = "health"
	// GRPCPing calls Fortio's fgrpc.PingServer/Ping.
	GRPCPing GRPCMode = "ping"
)

// Valid reports whether m is one of the known gRPC modes.
func (m GRPCMode) Valid() bool {
	return m == GRPCHealth || m == GRPCPing
}

// Header is one parsed request header.
type Header struct {
	// Name is the header name without surrounding spaces.
	Name string
	// Value is the header value without surrounding spaces and tabs.
	Value string
}

// HeaderPairs returns the headers parsed into name and value, in order.
// Entries without a colon, which Validate rejects, are skipped.
func (s Spec) HeaderPairs() []Header {
	out := make([]Header, 0, len(s.Headers))
	for _, h := range s.Headers {
		name, value, ok := strings.Cut(h, ":")
		if !ok {
			continue
		}
		out = append(out, Header{Name: strings.TrimSpace(name), Value: strings.Trim(value, " \t")})
	}
	return out
}

// HasPayload reports whether the request carries a body, inline or from a file.
func (s Spec) HasPayload() bool {
	return s.Payload != "" || s.PayloadFile != ""
}

// RunFor returns how long the run lasts, or 0 when it is bounded by Count
// or runs until stopped.
func (s Spec) RunFor() time.Duration {
	if s.Count != 0 || s.UntilStopped {
		return 0
	}
	return s.Duration.Std()
}

// PeakQPS returns the highest rate the run asks for: QPS, or the ramp's
// target when a ramp is set. 0 means as fast as possible.
func (s Spec) PeakQPS() float64 {
	if s.Ramp != nil && s.Ramp.To > s.QPS {
		return s.Ramp.To
	}
	return s.QPS
}

// Clone returns a deep copy of s: no slice, map or pointer is shared.
func (s Spec) Clone() Spec {
	c := s
	if s.Ramp != nil {
		r := *s.Ramp
		c.Ramp = &r
	}
	if s.GRPC != nil {
		g := *s.GRPC
		c.GRPC = &g
	}
	if s.Agents != nil {
		a := *s.Agents
		a.Selector = maps.Clone(s.Agents.Selector)
		c.Agents = &a
	}
	c.Headers = slices.Clone(s.Headers)
	c.Percentiles = slices.Clone(s.Percentiles)
	c.Labels = maps.Clone(s.Labels)
	return c
}
