package testdefs

import (
	"reflect"
	"testing"

	"github.com/barrage-dev/barrage/pkg/spec"
)

// TestTrendLimitsFollowTheSummaryKind checks that the latency limits drawn
// on a trend are those of the kind its figures are of: service time for a
// spec that runs as fast as it can, response time for a paced one.
func TestTrendLimitsFollowTheSummaryKind(t *testing.T) {
	thresholds := []string{"service.p(99) < 10ms", "response.p(99) < 20ms", "p(50) < 5ms", "not a threshold", "qps > 100"}
	closed := trendLimits(spec.Spec{}, thresholds)
	want := []TrendLimit{
		{Threshold: "service.p(99) < 10ms", Metric: "p99", Op: "<", Value: 10_000},
		{Threshold: "p(50) < 5ms", Metric: "p50", Op: "<", Value: 5_000},
		{Threshold: "qps > 100", Metric: "qps", Op: ">", Value: 100},
	}
	if !reflect.DeepEqual(closed, want) {
		t.Errorf("unpaced: %+v, want %+v", closed, want)
	}
	paced := trendLimits(spec.Spec{QPS: 50}, thresholds)
	want[0] = TrendLimit{Threshold: "response.p(99) < 20ms", Metric: "p99", Op: "<", Value: 20_000}
	if !reflect.DeepEqual(paced, want) {
		t.Errorf("paced: %+v, want %+v", paced, want)
	}
	if got := trendLimits(spec.Spec{}, nil); got == nil || len(got) != 0 {
		t.Errorf("no thresholds: %#v, want an empty list", got)
	}
}
