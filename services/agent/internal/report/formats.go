package report

import (
	"io"

	"github.com/barrage-dev/barrage/pkg/resultformat"
)

// Figures returns r's final figures for the shared writers of package
// resultformat: response, service and lag, then server when the run read a
// latency header.
func (r *Result) Figures() *resultformat.Figures {
	lats := []resultformat.Named{
		{Name: resultformat.Response, Latency: &r.Response},
		{Name: resultformat.Service, Latency: &r.Service},
		{Name: resultformat.Lag, Latency: &r.Lag},
	}
	if r.Server != nil {
		lats = append(lats, resultformat.Named{Name: resultformat.Server, Latency: r.Server})
	}
	return &resultformat.Figures{
		Labels: r.Spec.Labels, RequestedQPS: r.RequestedQPS, ActualQPS: r.ActualQPS, DurationSeconds: r.DurationSeconds,
		Connections: r.Connections, Count: r.Count, Errors: r.Errors, Dropped: r.Dropped,
		BytesSent: r.BytesSent, BytesReceived: r.BytesReceived, RetCodes: r.RetCodes, Latencies: lats,
	}
}

// WriteCSV writes one row per percentile of each latency histogram (see
// resultformat.WriteCSV).
func WriteCSV(w io.Writer, r *Result) error { return resultformat.WriteCSV(w, r.Figures()) }

// WritePrometheus writes r's final figures in the Prometheus text
// exposition format (see resultformat.WritePrometheus).
func WritePrometheus(w io.Writer, r *Result) error {
	return resultformat.WritePrometheus(w, r.Figures())
}

// WriteYAML writes r as YAML with the keys of its native JSON.
func WriteYAML(w io.Writer, r *Result) error { return resultformat.WriteYAML(w, r) }
