package httpapi

import (
	"bytes"
	"fmt"

	"github.com/barrage-dev/barrage/pkg/fortiojson"
	"github.com/barrage-dev/barrage/pkg/hist"
	"github.com/barrage-dev/barrage/pkg/resultformat"
	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// formatOut renders a run's result as csv, prometheus or yaml: the
// formats of `barrage-agent load -format`, written by the same package.
// The csv and prometheus forms are of figuresOf, the yaml form is the
// RunResult of format=barrage as YAML.
func formatOut(run runs.Run, res runs.Result, format GetRunResultParamsFormat) (rawResponse, error) {
	var buf bytes.Buffer
	if format == Yaml {
		out, err := resultOut(run, res)
		if err != nil {
			return rawResponse{}, err
		}
		if err := resultformat.WriteYAML(&buf, out); err != nil {
			return rawResponse{}, err
		}
		return rawResponse{contentType: resultformat.ContentTypeYAML, body: buf.Bytes()}, nil
	}
	f, err := figuresOf(run, res)
	if err != nil {
		return rawResponse{}, err
	}
	write, contentType := resultformat.WriteCSV, resultformat.ContentTypeCSV
	if format == Prometheus {
		write, contentType = resultformat.WritePrometheus, resultformat.ContentTypePrometheus
	}
	if err := write(&buf, f); err != nil {
		return rawResponse{}, fmt.Errorf("result of run %s: %w", run.ID, err)
	}
	return rawResponse{contentType: contentType, body: buf.Bytes()}, nil
}

// figuresOf returns the final figures of a run at its spec's percentiles:
// the response, service and lag histograms (and server when the run read a
// latency header), or for an imported run the service figures of its
// document.
func figuresOf(run runs.Run, res runs.Result) (*resultformat.Figures, error) {
	ps := run.Spec.Percentiles
	if len(ps) == 0 {
		ps = spec.DefaultPercentiles()
	}
	labels := run.Labels
	if len(labels) == 0 {
		labels = run.Spec.Labels
	}
	f := &resultformat.Figures{
		Labels: labels, RequestedQPS: run.Spec.PeakQPS(), ActualQPS: res.QPS(),
		DurationSeconds: res.Duration.Seconds(), Connections: run.Spec.Connections, Count: res.Count, Errors: res.Errors,
		BytesSent: res.BytesSent, BytesReceived: res.BytesReceived, RetCodes: codesOf(res.RetCodes),
	}
	if imp := res.Imported; imp != nil {
		if run.Summary != nil {
			f.ActualQPS = run.Summary.QPS
		}
		l := importedLatency(imp.Latency, ps)
		f.Latencies = []resultformat.Named{{Name: resultformat.Service, Latency: &l}}
		return f, nil
	}
	for _, k := range []struct {
		name string
		enc  []byte
	}{{resultformat.Response, res.Response}, {resultformat.Service, res.Service}, {resultformat.Lag, res.Lag}, {resultformat.Server, res.Server}} {
		if k.name == resultformat.Server && k.enc == nil {
			continue // the run read no latency header
		}
		h := hist.New()
		if len(k.enc) > 0 {
			var err error
			if h, err = hist.Decode(k.enc); err != nil {
				return nil, fmt.Errorf("result of run %s: %s histogram: %w", run.ID, k.name, err)
			}
		}
		l, err := resultformat.NewLatency(h, ps)
		if err != nil {
			return nil, fmt.Errorf("result of run %s: %w", run.ID, err)
		}
		f.Latencies = append(f.Latencies, resultformat.Named{Name: k.name, Latency: &l})
	}
	return f, nil
}

// importedLatency summarises an imported document's latency in seconds at
// percentiles ps (listed ones as given, the others from its buckets).
func importedLatency(l fortiojson.Latency, ps []float64) resultformat.Latency {
	const us = 1e-6
	out := resultformat.Latency{Count: l.Count, Min: l.MinUS * us, Max: l.MaxUS * us, Mean: l.AvgUS * us, StdDev: l.StdDevUS * us}
	if l.Count > 0 {
		for _, p := range ps {
			out.Percentiles = append(out.Percentiles, resultformat.Percentile{P: p, Value: l.Percentile(p) * us})
		}
	}
	return out
}
