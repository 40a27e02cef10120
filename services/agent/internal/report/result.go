// Package report turns the engine's final snapshot into what people and tools
// read: Barrage's native result JSON (with the encoded HDR histograms, so results
// can be merged later), Fortio-compatible result JSON, and the human summary and
// live progress lines of `barrage-agent load`. It does not run anything.
package report

import (
	"encoding/json"
	"io"
	"sort"
	"time"

	"github.com/barrage-dev/barrage/pkg/resultformat"
	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/pkg/version"
	"github.com/barrage-dev/barrage/services/agent/internal/engine"
)

// Result is Barrage's native result of one load (`-json FILE`, `-format json`).
type Result struct {
	Version string    `json:"version"`
	RunType string    `json:"run_type"`
	Spec    spec.Spec `json:"spec"` // secrets redacted
	Start   time.Time `json:"start"`
	End     time.Time `json:"end"`
	// DurationSeconds is End − Start.
	DurationSeconds float64 `json:"duration_seconds"`
	// Connections counts connections, not callers: a gRPC run has
	// Connections × spec.grpc.streams callers.
	Connections int `json:"connections"`
	// RequestedQPS is the target rate; 0 means as fast as possible.
	RequestedQPS  float64          `json:"requested_qps"`
	ActualQPS     float64          `json:"actual_qps"`
	Count         int64            `json:"count"`
	Errors        int64            `json:"errors"`
	RetCodes      map[string]int64 `json:"ret_codes"`
	BytesSent     int64            `json:"bytes_sent"`
	BytesReceived int64            `json:"bytes_received"`
	Aborted       bool             `json:"aborted,omitempty"`
	// Dropped counts requests scheduled within the duration that were never
	// sent because the target or the connections did not keep up.
	Dropped int64 `json:"dropped,omitempty"`
	// Primary names the latency shown by default: "response" in open loop,
	// "service" otherwise (docs/architecture.md §4).
	Primary  string  `json:"primary"`
	Response Latency `json:"response"`
	Service  Latency `json:"service"`
	Lag      Latency `json:"lag"`
	// Server is the latency the target reported in the spec's latency
	// header, one sample per response that carried a readable value (its
	// count may be below Count); absent without a latency header.
	Server *Latency `json:"server,omitempty"`
	// Phases are where the requests' time went (HTTP only); absent for
	// other protocols.
	Phases    *Phases    `json:"phases,omitempty"`
	Intervals []Interval `json:"intervals,omitempty"`
}

// Latency summarises one histogram; values are in seconds.
type Latency = resultformat.Latency

// Percentile is the value in seconds at percentile P.
type Percentile = resultformat.Percentile

// Meta is what a Result needs besides the final snapshot.
type Meta struct {
	Spec      spec.Spec
	RunType   string
	CodeName  func(int32) string
	Intervals []Interval
}

// primaryIsResponse reports whether response time (rather than service time) is
// the headline latency of s.
func primaryIsResponse(s spec.Spec) bool {
	return s.Pacing == spec.PacingOpen
}

// New builds the Result of a finished load.
func New(final *engine.Snapshot, m Meta) (Result, error) {
	r := Result{
		Version:         version.String(),
		RunType:         m.RunType,
		Spec:            m.Spec.Redacted(),
		Start:           final.Start,
		End:             final.End,
		DurationSeconds: final.End.Sub(final.Start).Seconds(),
		Connections:     final.Connections / m.Spec.Streams(), // the engine counts callers
		RequestedQPS:    m.Spec.PeakQPS(),
		Count:           final.Count,
		Errors:          final.Errors,
		RetCodes:        make(map[string]int64, len(final.Codes)),
		BytesSent:       final.Sent,
		BytesReceived:   final.Received,
		Aborted:         final.Aborted,
		Dropped:         final.Dropped,
		Primary:         "service",
		Intervals:       m.Intervals,
	}
	if primaryIsResponse(m.Spec) {
		r.Primary = "response"
	}
	if r.DurationSeconds > 0 {
		r.ActualQPS = float64(r.Count) / r.DurationSeconds
	}
	for code, n := range final.Codes {
		r.RetCodes[m.CodeName(code)] += n
	}
	var err error
	ps := m.Spec.Percentiles
	if r.Response, err = resultformat.NewLatency(final.Response, ps); err != nil {
		return Result{}, err
	}
	if r.Service, err = resultformat.NewLatency(final.Service, ps); err != nil {
		return Result{}, err
	}
	if r.Lag, err = resultformat.NewLatency(final.Lag, ps); err != nil {
		return Result{}, err
	}
	if final.Server != nil {
		l, err := resultformat.NewLatency(final.Server, ps)
		if err != nil {
			return Result{}, err
		}
		r.Server = &l
	}
	if r.Phases, err = newPhases(&final.Phases, ps); err != nil {
		return Result{}, err
	}
	return r, nil
}

// PrimaryLatency returns the headline latency of r.
func (r *Result) PrimaryLatency() *Latency {
	if r.Primary == "response" {
		return &r.Response
	}
	return &r.Service
}

// sortedCodes returns r's codes ordered by count, then name.
func (r *Result) sortedCodes() []string {
	codes := make([]string, 0, len(r.RetCodes))
	for c := range r.RetCodes {
		codes = append(codes, c)
	}
	sort.Slice(codes, func(i, j int) bool {
		if r.RetCodes[codes[i]] != r.RetCodes[codes[j]] {
			return r.RetCodes[codes[i]] > r.RetCodes[codes[j]]
		}
		return codes[i] < codes[j]
	})
	return codes
}

// WriteJSON writes r as indented native JSON.
func WriteJSON(w io.Writer, r *Result) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
