package testdefs

import (
	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/pkg/threshold"
)

// TrendLimit is a fixed limit that one of a test's thresholds sets on a
// metric its trend carries, for the trend to draw as a reference line.
type TrendLimit struct {
	// Threshold is the expression as the test states it.
	Threshold string
	// Metric is "p50", "p90", "p99" or "qps".
	Metric string
	// Op is the threshold's comparison: the metric must be Op Value.
	Op string
	// Value is in microseconds for a latency, requests per second for qps.
	Value float64
}

// trendLimits returns the fixed limits of thresholds on the trend's
// metrics, in their order. The trend's latencies are the runs' summary
// figures, of the primary kind of s (response time for a paced spec,
// service time otherwise, as services/api/internal/ingest/finish.go
// records them), so a latency threshold counts when it names no kind or
// that one. Baseline and confidence forms have no fixed limit, and a
// step's figures are not the run's; thresholds that do not parse (stored
// before a grammar change) are skipped.
func trendLimits(s spec.Spec, thresholds []string) []TrendLimit {
	kind := threshold.Service
	if s.PeakQPS() > 0 {
		kind = threshold.Response
	}
	out := []TrendLimit{}
	for _, src := range thresholds {
		e, err := threshold.Parse(src)
		if err != nil || e.Baseline || e.Confidence > 0 || e.Scoped() {
			continue
		}
		metric := ""
		switch {
		case e.Stat == threshold.QPS:
			metric = "qps"
		case e.Stat == threshold.Percentile && (e.Kind == threshold.Primary || e.Kind == kind):
			switch e.P {
			case 50:
				metric = "p50"
			case 90:
				metric = "p90"
			case 99:
				metric = "p99"
			}
		}
		if metric == "" {
			continue
		}
		out = append(out, TrendLimit{Threshold: src, Metric: metric, Op: string(e.Op), Value: e.Limit()})
	}
	return out
}
