// Package fortiojson is Fortio's result JSON (FORTIO-COMPAT.md) and the
// rules for its derived fields, shared by the agent's `-json` output and
// the API's `result?format=fortio`, so both write the same format.
package fortiojson

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/barrage-dev/barrage/pkg/hist"
	"github.com/barrage-dev/barrage/pkg/spec"
)

// MaxID is Fortio's limit on result IDs.
const MaxID = 96

// Result is Fortio's result JSON: Go field names as keys, in Fortio's
// order, latencies in seconds. The protocol-specific fields follow the
// common ones and are omitted when they do not apply.
type Result struct {
	RunType                 string
	Labels                  string
	StartTime               time.Time
	RequestedQPS            string
	RequestedDuration       string
	ActualQPS               float64
	ActualDuration          int64
	NumThreads              int
	Version                 string
	DurationHistogram       hist.FortioHistogram
	ErrorsDurationHistogram hist.FortioHistogram
	Exactly                 int64
	Jitter                  bool
	Uniform                 bool
	NoCatchUp               bool
	RunID                   int64
	AccessLoggerInfo        string
	ID                      string
	RetCodes                map[string]int64
	URL                     string `json:",omitempty"`
	Destination             string `json:",omitempty"`
	Streams                 int    `json:",omitempty"`
	NumConnections          int    `json:",omitempty"`
	SocketCount             int
	BytesSent               int64
	BytesReceived           int64
}

// Fields are the figures a Result is built from.
type Fields struct {
	// Spec is the run's spec; its target, counts and pacing flags are used.
	Spec spec.Spec
	// Target is the spec's URL as shown (credentials removed).
	Target string
	// RunType is Fortio's RunType (see RunType).
	RunType string
	// Labels are the run's labels.
	Labels map[string]string
	// Start and Duration are when the run started and how long it ran.
	Start    time.Time
	Duration time.Duration
	// RequestedQPS is the target rate; 0 is "max".
	RequestedQPS float64
	// ActualQPS is the rate achieved.
	ActualQPS float64
	// Connections is the number of connections; a gRPC run has Spec's
	// streams callers on each (NumThreads is their product, as in Fortio).
	Connections int
	// Version is Barrage's version.
	Version string
	// Latency is the headline latency histogram (DurationHistogram).
	Latency *hist.Histogram
	// Percentiles are those to list; nil means the spec default.
	Percentiles []float64
	// Errors counts failed calls (their latencies are not kept apart).
	Errors int64
	// RetCodes counts results by Fortio code.
	RetCodes map[string]int64
	// BytesSent and BytesReceived count bytes on the wire.
	BytesSent, BytesReceived int64
	// RunID is Fortio's run number in the ID; 0 for none.
	RunID int64
}

// New builds a Result.
func New(f Fields) *Result {
	s := f.Spec
	percentiles := f.Percentiles
	if len(percentiles) == 0 {
		percentiles = spec.DefaultPercentiles()
	}
	r := &Result{
		RunType:                 f.RunType,
		Labels:                  Labels(f.Labels),
		StartTime:               f.Start,
		RequestedQPS:            "max",
		RequestedDuration:       RequestedDuration(s),
		ActualQPS:               f.ActualQPS,
		ActualDuration:          int64(f.Duration),
		NumThreads:              f.Connections * s.Streams(),
		Version:                 "barrage-" + f.Version,
		DurationHistogram:       f.Latency.Fortio(percentiles),
		ErrorsDurationHistogram: hist.FortioHistogram{Count: f.Errors, Data: []hist.FortioBucket{}},
		Exactly:                 s.Count,
		Jitter:                  s.Jitter,
		Uniform:                 s.Uniform,
		NoCatchUp:               s.NoCatchUp,
		RunID:                   f.RunID,
		RetCodes:                f.RetCodes,
		NumConnections:          f.Connections,
		SocketCount:             f.Connections,
		BytesSent:               f.BytesSent,
		BytesReceived:           f.BytesReceived,
	}
	if f.RequestedQPS > 0 {
		r.RequestedQPS = strconv.FormatFloat(f.RequestedQPS, 'g', 9, 64)
	}
	if s.Protocol() == spec.ProtocolHTTP {
		r.URL = f.Target
	} else {
		r.Destination = f.Target
	}
	if s.Protocol() == spec.ProtocolGRPC {
		r.Streams = s.Streams()
	}
	r.ID = ID(f.Start, f.RunID, r.Labels)
	return r
}

// RunType is Fortio's RunType for a spec.
func RunType(s spec.Spec) string {
	switch s.Protocol() {
	case spec.ProtocolTCP:
		return "TCP"
	case spec.ProtocolUDP:
		return "UDP"
	case spec.ProtocolGRPC:
		if g := s.GRPC; g != nil && g.Mode == spec.GRPCMethod {
			return "GRPC Method " + strings.TrimPrefix(g.Method, "/")
		}
		if g := s.GRPC; g != nil && g.Mode == spec.GRPCPing {
			if d := g.PingDelay.Std(); d > 0 {
				return fmt.Sprintf("GRPC Ping Delay=%v", d)
			}
			return "GRPC Ping"
		}
		svc := ""
		if s.GRPC != nil {
			svc = s.GRPC.Service
		}
		return "GRPC Health for '" + svc + "'"
	default:
		return "HTTP"
	}
}

// RequestedDuration is Fortio's RequestedDuration for a spec.
func RequestedDuration(s spec.Spec) string {
	switch {
	case s.Count > 0:
		return fmt.Sprintf("exactly %d calls", s.Count)
	case s.UntilStopped:
		return "until stop"
	}
	return s.Duration.Std().String()
}

// Labels renders labels as Fortio's single label string: a "title" label
// alone as is, others as sorted "key=value" words.
func Labels(labels map[string]string) string {
	if t, ok := labels["title"]; ok && len(labels) == 1 {
		return t
	}
	words := make([]string, 0, len(labels))
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		words = append(words, k+"="+labels[k])
	}
	return strings.Join(words, " ")
}

// nonAlnum matches what Fortio collapses to "_" in IDs.
var nonAlnum = regexp.MustCompile(`[^A-Za-z0-9]+`)

// ID builds a Fortio result ID: YYYY-MM-DD-HHMMSS[_<runID>][_<labels>] in
// start's time zone (Fortio uses local time), the labels' non-alphanumerics
// collapsed to "_", at most MaxID characters.
func ID(start time.Time, runID int64, labels string) string {
	id := start.Format("2006-01-02-150405")
	if runID != 0 {
		id += "_" + strconv.FormatInt(runID, 10)
	}
	if l := strings.Trim(nonAlnum.ReplaceAllString(labels, "_"), "_"); l != "" {
		id += "_" + l
	}
	return id[:min(len(id), MaxID)]
}
