package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"strconv"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"go.yaml.in/yaml/v4"
	"google.golang.org/protobuf/proto"
)

// histograms names r's latency summaries in a fixed order.
func (r *Result) histograms() []struct {
	name string
	lat  *Latency
} {
	return []struct {
		name string
		lat  *Latency
	}{{"response", &r.Response}, {"service", &r.Service}, {"lag", &r.Lag}}
}

// WriteCSV writes one row per percentile of each latency histogram
// (response, service, lag): histogram, percentile, value in seconds, and
// the histogram's count, min, mean, max and standard deviation.
func WriteCSV(w io.Writer, r *Result) error {
	cw := csv.NewWriter(w)
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	rows := [][]string{{"histogram", "percentile", "value_seconds", "count", "min_seconds", "mean_seconds", "max_seconds", "stddev_seconds"}}
	for _, h := range r.histograms() {
		for _, p := range h.lat.Percentiles {
			rows = append(rows, []string{h.name, f(p.P), f(p.Value), strconv.FormatInt(h.lat.Count, 10),
				f(h.lat.Min), f(h.lat.Mean), f(h.lat.Max), f(h.lat.StdDev)})
		}
	}
	if err := cw.WriteAll(rows); err != nil {
		return fmt.Errorf("write csv: %w", err)
	}
	return nil
}

// labelName is what a run label must look like to become a Prometheus
// label; others are left out of the exposition.
var labelName = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)

// WritePrometheus writes r's final figures in the Prometheus text
// exposition format: counters of requests by code, errors and bytes,
// gauges of the rates and length, and a summary per latency histogram
// (quantiles in seconds, count and sum). The run's labels that are valid
// label names are added to every series.
func WritePrometheus(w io.Writer, r *Result) error {
	var common []*dto.LabelPair
	for _, k := range slices.Sorted(maps.Keys(r.Spec.Labels)) {
		if labelName.MatchString(k) && k != "code" && k != "histogram" && k != "quantile" {
			common = append(common, &dto.LabelPair{Name: proto.String(k), Value: proto.String(r.Spec.Labels[k])})
		}
	}
	with := func(extra ...*dto.LabelPair) []*dto.LabelPair { return append(slices.Clone(common), extra...) }
	family := func(name, help string, t dto.MetricType, ms ...*dto.Metric) *dto.MetricFamily {
		return &dto.MetricFamily{Name: proto.String(name), Help: proto.String(help), Type: t.Enum(), Metric: ms}
	}
	gauge := func(name, help string, v float64) *dto.MetricFamily {
		return family(name, help, dto.MetricType_GAUGE, &dto.Metric{Label: with(), Gauge: &dto.Gauge{Value: proto.Float64(v)}})
	}
	counter := func(name, help string, v int64) *dto.MetricFamily {
		return family(name, help, dto.MetricType_COUNTER, &dto.Metric{Label: with(), Counter: &dto.Counter{Value: proto.Float64(float64(v))}})
	}
	var byCode []*dto.Metric
	for _, c := range slices.Sorted(maps.Keys(r.RetCodes)) {
		byCode = append(byCode, &dto.Metric{
			Label:   with(&dto.LabelPair{Name: proto.String("code"), Value: proto.String(c)}),
			Counter: &dto.Counter{Value: proto.Float64(float64(r.RetCodes[c]))},
		})
	}
	var summaries []*dto.Metric
	for _, h := range r.histograms() {
		s := &dto.Summary{SampleCount: proto.Uint64(uint64(max(h.lat.Count, 0))), SampleSum: proto.Float64(h.lat.Mean * float64(h.lat.Count))}
		for _, p := range h.lat.Percentiles {
			s.Quantile = append(s.Quantile, &dto.Quantile{Quantile: proto.Float64(p.P / 100), Value: proto.Float64(p.Value)})
		}
		summaries = append(summaries, &dto.Metric{
			Label: with(&dto.LabelPair{Name: proto.String("histogram"), Value: proto.String(h.name)}), Summary: s,
		})
	}
	families := []*dto.MetricFamily{
		family("barrage_requests_total", "Requests made, by return code.", dto.MetricType_COUNTER, byCode...),
		counter("barrage_errors_total", "Requests that failed (a non-success code or no answer).", r.Errors),
		counter("barrage_dropped_total", "Requests scheduled within the run but never sent.", r.Dropped),
		counter("barrage_sent_bytes_total", "Bytes sent.", r.BytesSent),
		counter("barrage_received_bytes_total", "Bytes received.", r.BytesReceived),
		gauge("barrage_requested_qps", "Target rate (0: as fast as possible).", r.RequestedQPS),
		gauge("barrage_actual_qps", "Achieved rate.", r.ActualQPS),
		gauge("barrage_duration_seconds", "Length of the run.", r.DurationSeconds),
		gauge("barrage_connections", "Connections used.", float64(r.Connections)),
		family("barrage_latency_seconds", "Latency by histogram: response (from the intended send time), service and lag.",
			dto.MetricType_SUMMARY, summaries...),
	}
	var buf bytes.Buffer
	enc := expfmt.NewEncoder(&buf, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, f := range families {
		if len(f.Metric) == 0 {
			continue
		}
		if err := enc.Encode(f); err != nil {
			return fmt.Errorf("write prometheus text: %w", err)
		}
	}
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("write prometheus text: %w", err)
	}
	return nil
}

// WriteYAML writes r as YAML with the keys of its native JSON.
func WriteYAML(w io.Writer, r *Result) error {
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("encode result: %w", err)
	}
	var tree any
	if err := json.Unmarshal(b, &tree); err != nil {
		return fmt.Errorf("encode result: %w", err)
	}
	out, err := yaml.Marshal(tree)
	if err != nil {
		return fmt.Errorf("write yaml: %w", err)
	}
	if _, err := w.Write(out); err != nil {
		return fmt.Errorf("write yaml: %w", err)
	}
	return nil
}
