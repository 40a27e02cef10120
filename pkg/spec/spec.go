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

	"github.com/barrage-dev/barrage/pkg/scenario"
)

// Spec is one load test: the target URL, the rate, the run length, the
// request and what to report. The zero value is not valid; call Normalize to
// fill the defaults, then Validate (Parse does both).
type Spec struct {
	// URL is the target: http://, https://, h2c:// (HTTP/2 cleartext with
	// prior knowledge), grpc://host:port, grpcs://host:port, tcp://host:port
	// or udp://host:port.
	URL string `json:"url"`
	// URLs is a list of HTTP/1.1 URLs sent in turn (Goader's -url-source,
	// barrage-agent load -url-file), each possibly a template; when set,
	// URL defaults to its first entry and every entry has URL's scheme and
	// host (one target to connect to).
	URLs []string `json:"urls,omitempty"`
	// URLOrder is the order URLs are sent in; default round_robin.
	URLOrder URLOrder `json:"url_order,omitempty"`
	// Requests is a weighted request mix: each request of the run is one
	// of these entries, in proportion to their weights or own rates; url
	// then names only the target (defaulting to the first entry's URL).
	Requests []Request `json:"requests,omitempty"`
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
	// Stages is a stepped load shape: each stage holds its qps for its
	// duration, one after the other from the run start; the last stage's
	// rate holds until the run ends. Open pacing only; excludes Ramp.
	Stages []Stage `json:"stages,omitempty"`
	// Method is the HTTP method; default GET, or POST when a payload, payload
	// file or content type is set (Fortio's behaviour). HTTP only.
	Method string `json:"method,omitempty"`
	// Headers are extra request headers as "Name: value" (Fortio -H).
	Headers []string `json:"headers,omitempty"`
	// Payload is the request body (HTTP), message (TCP, UDP, gRPC ping), or
	// request message in protobuf JSON (gRPC method mode).
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
	// TLSSettings are the https:// and grpcs:// TLS options beyond
	// Insecure: CA, client certificate (a secret, sealed at rest), SNI,
	// ALPN (HTTP/1.1 and h2 only), minimum version, session resumption.
	TLSSettings *TLSSettings `json:"tls,omitempty"`
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
	// LatencyHeader names a response header carrying the target's own
	// latency (Nighthawk's --latency-response-header-name), recorded in a
	// fourth, "server", histogram: Server-Timing's dur= (milliseconds), or a
	// number in microseconds with an optional ns, us, ms or s unit. HTTP only.
	LatencyHeader string `json:"latency_header,omitempty"`
	// HTTP10 sends HTTP/1.0 requests (Fortio -http1.0): the connection is
	// closed after each response unless the server asks to keep it alive.
	// HTTP/1.1 client only: not with h2, h3, h2c:// or follow_redirects.
	HTTP10 bool `json:"http10,omitempty"`
	// Compression asks for gzip responses (Accept-Encoding: gzip, Fortio
	// -compression); the bytes received are counted as they come over the
	// wire, compressed. HTTP only.
	Compression bool `json:"compression,omitempty"`
	// UnixSocket is the absolute path of a Unix domain socket to send the
	// HTTP requests over; the URL's host is then only the Host header (and
	// the TLS name for https). HTTP/1.1 and HTTP/2 only. The API refuses it
	// unless the project's target allow-list names the path ("unix:/path").
	UnixSocket string `json:"unix_socket,omitempty"`
	// MaxRequestsPerConnection closes a connection after this many
	// requests and opens a new one (Nighthawk); 0 means no limit. HTTP/1.1
	// client only.
	MaxRequestsPerConnection int64 `json:"max_requests_per_connection,omitempty"`
	// ConnectionReuse closes each connection after a random number of
	// requests in [min, max] (Fortio -connection-reuse). HTTP/1.1 client
	// only; excludes MaxRequestsPerConnection.
	ConnectionReuse *ConnectionReuse `json:"connection_reuse,omitempty"`
	// Prefetch keeps every connection open ahead of its next request
	// (Nighthawk --prefetch-connections): connections are opened before the
	// clock starts, and one closed during the run (server close, http10,
	// max_requests_per_connection) is reopened right after its response,
	// outside the measured times, instead of by the next request.
	Prefetch bool `json:"prefetch,omitempty"`
	// Burst sends the requests of an open-paced run in bursts of this many at
	// the same intended instant (Nighthawk --burst-size); the average rate
	// stays qps. 0 or 1 means no bursts.
	Burst int `json:"burst,omitempty"`
	// FollowRedirects follows 3xx answers, up to 10, and records the final
	// answer (Fortio -L). HTTP only; HTTP/1.1 then goes through the standard
	// library's client, as Fortio's -L implies -stdclient.
	FollowRedirects bool `json:"follow_redirects,omitempty"`
	// AbortIfRateNotHeld stops the run when the achieved rate, merged over
	// its shards, stays more than RateTolerance under the target for
	// RateNotHeldSeconds consecutive seconds (Goader's -stop-on-bad-rate).
	// Needs a target rate (qps or a ramp).
	AbortIfRateNotHeld bool `json:"abort_if_rate_not_held,omitempty"`
	// RecordWrittenURLs records the URL of every successful write (a
	// request whose method is not GET, HEAD or OPTIONS that got a 2xx), at
	// most MaxWrittenURLs per run, so that a follow-up run can read them
	// back (URLsFromRun). HTTP/1.1 only, like templates.
	RecordWrittenURLs bool `json:"record_written_urls,omitempty"`
	// URLsFromRun names a run of the same project that recorded its
	// written URLs: when the run is created, the API fills URLs with them,
	// on URL's scheme and host, replacing any URLs given. Entries of such
	// a list are sent exactly as recorded, never read as templates.
	// Excludes Requests.
	URLsFromRun string `json:"urls_from_run,omitempty"`
	// Scenario makes this a scenario run (docs/scenarios.md, scenario.go):
	// every iteration sends its steps in order; url then defaults to the
	// first step's origin and the single-request fields do not apply.
	Scenario *scenario.Scenario `json:"scenario,omitempty"`
	// IterationsPerSecond is a scenario run's rate of iteration starts,
	// total across agents.
	IterationsPerSecond float64 `json:"iterations_per_second,omitempty"`
}

// How abort_if_rate_not_held judges a run.
const (
	// RateTolerance is how far under the target a second may fall and
	// still count as held.
	RateTolerance = 0.05
	// RateNotHeldSeconds is how many consecutive seconds under it stop the run.
	RateNotHeldSeconds = 5
)

// TargetQPSAt is the rate the spec asks for at offset t of the run: the
// ramp's while it ramps, the stage's with stages (the last one's after
// them), qps otherwise.
func (s Spec) TargetQPSAt(t time.Duration) float64 {
	if len(s.Stages) > 0 {
		var end time.Duration
		for _, st := range s.Stages {
			end += st.Duration.Std()
			if t < end {
				return st.QPS
			}
		}
		return s.Stages[len(s.Stages)-1].QPS
	}
	r := s.Ramp
	if r == nil || r.Over <= 0 || t >= r.Over.Std() {
		return s.PeakQPS()
	}
	if t < 0 {
		return r.From
	}
	return r.From + (r.To-r.From)*float64(t)/float64(r.Over.Std())
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

// Stage is one step of a stepped load shape.
type Stage struct {
	// QPS is the total rate of the stage; 0 is a pause.
	QPS float64 `json:"qps"`
	// Duration is how long the stage lasts.
	Duration Duration `json:"duration"`
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
	// Mode is the call: health check, Fortio ping, or any unary method
	// found by server reflection; default health, or method when Method is
	// set.
	Mode GRPCMode `json:"mode"`
	// Method is the unary method to call, "package.Service/Method", with the
	// payload as its request message in protobuf JSON. Method mode only.
	Method string `json:"method,omitempty"`
	// Streams is the number of calls in flight on each connection (Fortio
	// -s): a run has connections × streams callers sharing connections
	// HTTP/2 connections; default 1.
	Streams int `json:"streams,omitempty"`
	// Service is the service name sent in health checks; empty means the
	// server's overall health. Health mode only.
	Service string `json:"service,omitempty"`
	// PingDelay asks the ping server to wait this long before replying.
	// Ping mode only.
	PingDelay Duration `json:"ping_delay,omitzero"`
}

// Pacing is how the sends of a run are scheduled (docs/architecture.md §4).
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
	// GRPCMethod calls GRPC.Method, a unary method the agent looks up by
	// server reflection, with the payload as the request in protobuf JSON.
	GRPCMethod GRPCMode = "method"
)

// URLOrder is the order a URL list is sent in.
type URLOrder string

// URL orders.
const (
	// URLRoundRobin sends the URLs one after the other, from the first
	// again after the last.
	URLRoundRobin URLOrder = "round_robin"
	// URLRandom picks a URL at random for every request.
	URLRandom URLOrder = "random"
)

// Valid reports whether m is one of the known gRPC modes.
func (m GRPCMode) Valid() bool {
	return m == GRPCHealth || m == GRPCPing || m == GRPCMethod
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

// Streams returns the calls in flight per connection: grpc.streams for a
// gRPC run that sets it, else 1. The run has Connections × Streams callers.
func (s Spec) Streams() int {
	if s.GRPC != nil && s.GRPC.Streams > 1 {
		return s.GRPC.Streams
	}
	return 1
}

// PeakQPS returns the highest rate the run asks for: QPS, the ramp's
// target when a ramp is set, or the highest stage's rate. 0 means as fast
// as possible. A scenario run's is its iterations per second times its
// steps: the request rate when every iteration runs every step.
func (s Spec) PeakQPS() float64 {
	if s.Scenario != nil {
		return s.IterationsPerSecond * float64(len(s.Scenario.Steps))
	}
	peak := s.QPS
	if s.Ramp != nil && s.Ramp.To > peak {
		peak = s.Ramp.To
	}
	for _, st := range s.Stages {
		peak = max(peak, st.QPS)
	}
	return peak
}

// StagesLength returns how long the stages last in total.
func (s Spec) StagesLength() time.Duration {
	var d time.Duration
	for _, st := range s.Stages {
		d += st.Duration.Std()
	}
	return d
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
	if s.ConnectionReuse != nil {
		r := *s.ConnectionReuse
		c.ConnectionReuse = &r
	}
	if s.TLSSettings != nil {
		t := *s.TLSSettings
		t.Curves = slices.Clone(t.Curves)
		c.TLSSettings = &t
	}
	c.Stages = slices.Clone(s.Stages)
	c.Headers = slices.Clone(s.Headers)
	c.URLs = slices.Clone(s.URLs)
	c.Requests = cloneRequests(s.Requests)
	c.Percentiles = slices.Clone(s.Percentiles)
	c.Labels = maps.Clone(s.Labels)
	c.Scenario = cloneScenario(s.Scenario)
	return c
}
