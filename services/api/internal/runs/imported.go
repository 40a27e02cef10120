package runs

import (
	"fmt"

	"github.com/barrage-dev/barrage/pkg/fortiojson"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
)

// Import formats: what produced an imported document.
const (
	FormatFortio    = "fortio"
	FormatNighthawk = "nighthawk"
)

// Imported is what a run imported from a Fortio result JSON keeps of it
// besides the document itself: its latency figures and buckets, since such
// a run has no HdrHistograms (and so cannot be merged losslessly).
type Imported struct {
	// Format is FormatFortio or FormatNighthawk.
	Format string
	// Origin is where the document came from: a file name or a URL.
	Origin string
	// Latency is the document's DurationHistogram, in microseconds.
	Latency fortiojson.Latency
}

// ImportedLatency returns the figures of an imported document's latency:
// listed percentiles as given, the others interpolated in its buckets.
func ImportedLatency(l fortiojson.Latency) Latency {
	return Latency{
		Count: l.Count, MinUS: l.MinUS, AvgUS: l.AvgUS, StdDevUS: l.StdDevUS,
		P50US: l.Percentile(50), P75US: l.Percentile(75), P90US: l.Percentile(90),
		P99US: l.Percentile(99), P999US: l.Percentile(99.9), MaxUS: l.MaxUS,
	}
}

// HeadlineHDR returns the encoded histogram of the latency a native run
// shows by default: response time in open loop, service time otherwise.
func (r Result) HeadlineHDR(run Run) []byte {
	if run.OpenLoop() {
		return r.Response
	}
	return r.Service
}

// Headline returns the latency a run shows by default: response time in
// open loop, service time otherwise, and an imported run's document
// figures.
func (r Result) Headline(run Run) (Latency, error) {
	if r.Imported != nil {
		return ImportedLatency(r.Imported.Latency), nil
	}
	l, err := LatencyOf(r.HeadlineHDR(run))
	if err != nil {
		return Latency{}, fmt.Errorf("result of run %s: %w", run.ID, err)
	}
	return l, nil
}

// NewImport is an imported run to store: the run (status completed), its
// summary, and its result with Imported and Fortio (the redacted document)
// set.
type NewImport struct {
	Run     Run
	Summary Summary
	Result  Result
	Actor   auth.Actor
}
