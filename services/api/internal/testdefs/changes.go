package testdefs

import (
	"fmt"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/pkg/changepoint"
)

// ChangePoint is a run of a test from which one of its latencies stayed
// at another level (docs/verdicts.md, "Changes across a test's history").
type ChangePoint struct {
	// RunID is the first run at the new level.
	RunID uuid.UUID
	// Metric is "p50", "p90" or "p99".
	Metric string
	// BeforeUS and AfterUS are the levels either side, in microseconds:
	// the medians of the runs' figures between changes.
	BeforeUS, AfterUS float64
}

// Change is AfterUS/BeforeUS − 1: 0.18 is +18 %.
func (c ChangePoint) Change() float64 { return c.AfterUS/c.BeforeUS - 1 }

// Trend is a test's recent runs and where their latency changed.
type Trend struct {
	// Points are the runs, oldest first.
	Points []TrendPoint
	// Changes are the change points of p50, p90 and p99, in that order,
	// each oldest first.
	Changes []ChangePoint
	// Limits are the fixed limits of the test's thresholds on the trend's
	// metrics (trendLimits).
	Limits []TrendLimit
}

// trendMetric is a latency whose changes a trend lists, with how to read
// it from a point.
type trendMetric struct {
	name string
	of   func(TrendPoint) float64
}

// trendMetrics are the latencies whose changes a trend lists.
func trendMetrics() []trendMetric {
	return []trendMetric{
		{"p50", func(p TrendPoint) float64 { return p.P50US }},
		{"p90", func(p TrendPoint) float64 { return p.P90US }},
		{"p99", func(p TrendPoint) float64 { return p.P99US }},
	}
}

// changePoints finds where p50, p90 and p99 changed level across the
// completed runs among points that have figures and were not judged
// error (a failed or degraded run measured something else), in order.
func changePoints(points []TrendPoint) ([]ChangePoint, error) {
	out := []ChangePoint{}
	for _, m := range trendMetrics() {
		var (
			ids []uuid.UUID
			xs  []float64
		)
		for i := range points {
			p := &points[i]
			if p.Status != "completed" || !p.HasSummary || p.Verdict == "error" || !(m.of(*p) > 0) {
				continue
			}
			ids, xs = append(ids, p.RunID), append(xs, m.of(*p))
		}
		found, err := changepoint.Detect(xs, changepoint.Options{})
		if err != nil {
			return nil, fmt.Errorf("change points of %s: %w", m.name, err)
		}
		for _, c := range found {
			out = append(out, ChangePoint{RunID: ids[c.Index], Metric: m.name, BeforeUS: c.Before, AfterUS: c.After})
		}
	}
	return out, nil
}
