package httpapi

import (
	"fmt"

	"github.com/barrage-dev/barrage/pkg/fortiojson"
	"github.com/barrage-dev/barrage/pkg/hist"
	"github.com/barrage-dev/barrage/pkg/version"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// fortioOut renders a run's merged result as Fortio's result JSON. The
// DurationHistogram is the run's headline latency (response time in open
// loop, service time otherwise). Barrage does not keep the latencies of
// failed requests apart, so ErrorsDurationHistogram carries only their
// count.
func fortioOut(run runs.Run, res runs.Result) (*fortiojson.Result, error) {
	enc := res.Service
	if run.OpenLoop() {
		enc = res.Response
	}
	h := hist.New()
	if len(enc) > 0 {
		var err error
		if h, err = hist.Decode(enc); err != nil {
			return nil, fmt.Errorf("result of run %s: decode histogram: %w", run.ID, err)
		}
	}
	start := run.StartedAt
	if start.IsZero() {
		start = run.StartAt
	}
	return fortiojson.New(fortiojson.Fields{
		Spec: run.Spec, Target: run.Target, RunType: fortiojson.RunType(run.Spec), Labels: run.Labels,
		Start: start.UTC(), Duration: res.Duration, RequestedQPS: run.QPSRequested, ActualQPS: res.QPS(),
		Connections: run.Spec.Connections, Version: version.String(), Latency: h, Percentiles: run.Spec.Percentiles,
		Errors: res.Errors, RetCodes: codesOf(res.RetCodes), BytesSent: res.BytesSent, BytesReceived: res.BytesReceived,
	}), nil
}
