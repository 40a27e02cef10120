package spec

import "time"

// Limits that Validate enforces on every spec (docs/architecture.md §7). Per-project
// limits, which may be lower, are the API's business.
const (
	// MaxSpecBytes is the largest JSON document Parse accepts.
	MaxSpecBytes = 1 << 20
	// MaxURLLength is the longest URL, in bytes.
	MaxURLLength = 2048
	// MaxURLs is the most entries of a URL list.
	MaxURLs = 10000
	// MaxQPS is the highest target rate, total across agents.
	MaxQPS = 1e6
	// MaxConnections is the most connections a run may open, total.
	MaxConnections = 10000
	// MaxDuration is the longest run length and ramp.
	MaxDuration = 24 * time.Hour
	// MaxCount is the most calls a count-bounded run may make.
	MaxCount = 1_000_000_000
	// MaxAgents is the most agents one run may be split across.
	MaxAgents = 1000
	// MaxHeaders is the most headers a request may carry.
	MaxHeaders = 100
	// MaxHeaderLength is the longest "Name: value" entry, in bytes.
	MaxHeaderLength = 8 << 10
	// MaxLatencyHeaderLength is the longest latency_header name.
	MaxLatencyHeaderLength = 256
	// MaxPayloadBytes is the largest inline payload.
	MaxPayloadBytes = 1 << 20
	// MaxUDPPayloadBytes is the largest payload that fits one UDP datagram.
	MaxUDPPayloadBytes = 65507
	// MaxTimeout is the longest per-request timeout.
	MaxTimeout = 5 * time.Minute
	// MaxPingDelay is the longest delay a gRPC ping may ask for.
	MaxPingDelay = 10 * time.Second
	// MaxStreams is the most calls a gRPC run may have in flight on one
	// connection (grpc.streams).
	MaxStreams = 1000
	// MaxPercentiles is the most percentiles a run may report.
	MaxPercentiles = 20
	// MaxLabels is the most labels a run may carry.
	MaxLabels = 32
	// MaxLabelKeyLength is the longest label key.
	MaxLabelKeyLength = 63
	// MaxLabelValueLength is the longest label value, in characters.
	MaxLabelValueLength = 256
	// MaxTextLength bounds the short free-text fields: method, content_type
	// and grpc.service.
	MaxTextLength = 256
	// MaxPayloadFileLength is the longest payload_file path.
	MaxPayloadFileLength = 4096
	// MaxStages is the most stages a stepped load shape may have.
	MaxStages = 100
	// MaxUnixSocketLength is the longest unix_socket path, in bytes: the
	// smallest sun_path of the systems agents run on (macOS and the BSDs
	// have 104 bytes with the NUL, Linux 108).
	MaxUnixSocketLength = 103
	// MaxBurst is the largest burst.
	MaxBurst = MaxConnections
)
