// Package resultformat writes the final figures of a load in the exchange
// formats that both `barrage-agent load -format` and the API's
// `GET /runs/{run}/result?format=` offer: CSV (one row per percentile of each
// latency histogram), the Prometheus text exposition and YAML. Both sides
// fill the neutral Figures (or, for YAML, pass their own JSON document), so
// the writers exist once and the two surfaces say the same thing.
//
// It also holds Latency, the summary of one histogram in seconds that the
// agent's native result JSON carries. It does not compute merged results,
// read results back, nor know about runs, projects or Fortio's formats.
package resultformat

import (
	"fmt"

	"github.com/barrage-dev/barrage/pkg/hist"
)

// Content types of the formats, as the API serves them.
const (
	// ContentTypeCSV is the content type of WriteCSV's output.
	ContentTypeCSV = "text/csv; charset=utf-8"
	// ContentTypePrometheus is the content type of WritePrometheus's output
	// (the text exposition format, version 0.0.4).
	ContentTypePrometheus = "text/plain; version=0.0.4; charset=utf-8"
	// ContentTypeYAML is the content type of WriteYAML's output.
	ContentTypeYAML = "application/yaml"
)

// Histogram names, in the order the writers list them.
const (
	// Response is intended send → response done (coordinated omission corrected).
	Response = "response"
	// Service is actual send → response done.
	Service = "service"
	// Lag is intended send → actual send.
	Lag = "lag"
	// Server is the latency the target reported in the run's latency header.
	Server = "server"
)

// Figures are the final figures of a load, whoever measured them.
type Figures struct {
	// Labels are the run's labels; those that are valid Prometheus label
	// names label every series of the exposition.
	Labels map[string]string
	// RequestedQPS is the target rate (0: as fast as possible); ActualQPS
	// the rate achieved.
	RequestedQPS, ActualQPS float64
	// DurationSeconds is the length of the run.
	DurationSeconds float64
	// Connections is the number of connections used.
	Connections int
	// Count is the requests completed, Errors those that failed, Dropped
	// those scheduled but never sent.
	Count, Errors, Dropped int64
	// BytesSent and BytesReceived are totals.
	BytesSent, BytesReceived int64
	// RetCodes counts requests by return code.
	RetCodes map[string]int64
	// Latencies are the histograms in the order written (response,
	// service, lag, then server when the run read a latency header).
	Latencies []Named
}

// Named is one latency histogram's summary and its name.
type Named struct {
	Name    string
	Latency *Latency
}

// Latency summarises one histogram; values are in seconds.
type Latency struct {
	Count       int64        `json:"count"`
	Min         float64      `json:"min"`
	Max         float64      `json:"max"`
	Mean        float64      `json:"mean"`
	StdDev      float64      `json:"stddev"`
	Percentiles []Percentile `json:"percentiles"`
	// HDR is the HdrHistogram V2 compressed encoding, as base64 text (the
	// format of HdrHistogram logs; pkg/hist.Decode reads it).
	HDR string `json:"hdr"`
}

// Percentile is the value in seconds at percentile P.
type Percentile struct {
	P     float64 `json:"p"`
	Value float64 `json:"value"`
}

// NewLatency summarises h at the percentiles ps (none for an empty h) and
// keeps its encoding.
func NewLatency(h *hist.Histogram, ps []float64) (Latency, error) {
	enc, err := h.Encode()
	if err != nil {
		return Latency{}, fmt.Errorf("encode histogram: %w", err)
	}
	l := Latency{
		Count:  h.Count(),
		Min:    h.Min().Seconds(),
		Max:    h.Max().Seconds(),
		Mean:   h.Mean().Seconds(),
		StdDev: h.StdDev().Seconds(),
		HDR:    string(enc),
	}
	if h.Count() > 0 {
		for _, q := range h.Percentiles(ps) {
			l.Percentiles = append(l.Percentiles, Percentile{P: q.P, Value: q.Value.Seconds()})
		}
	}
	return l, nil
}
