package resultformat

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
)

// CSVHeader returns the first row WriteCSV writes.
func CSVHeader() []string {
	return []string{"histogram", "percentile", "value_seconds", "count", "min_seconds", "mean_seconds", "max_seconds", "stddev_seconds"}
}

// WriteCSV writes one row per percentile of each latency histogram:
// histogram, percentile, value in seconds, and the histogram's count, min,
// mean, max and standard deviation, after a header row (CSVHeader()).
func WriteCSV(w io.Writer, f *Figures) error {
	cw := csv.NewWriter(w)
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	rows := [][]string{CSVHeader()}
	for _, h := range f.Latencies {
		l := h.Latency
		for _, p := range l.Percentiles {
			rows = append(rows, []string{h.Name, g(p.P), g(p.Value), strconv.FormatInt(l.Count, 10),
				g(l.Min), g(l.Mean), g(l.Max), g(l.StdDev)})
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

// ptr returns a pointer to v (the exposition's protobuf fields are pointers).
func ptr[T any](v T) *T { return &v }

// WritePrometheus writes f in the Prometheus text exposition format:
// counters of requests by code, errors, dropped requests and bytes, gauges
// of the rates, length and connections, and a summary per latency
// histogram (quantiles in seconds, count and sum). The run's labels that
// are valid label names are added to every series.
func WritePrometheus(w io.Writer, f *Figures) error {
	var common []*dto.LabelPair
	for _, k := range slices.Sorted(maps.Keys(f.Labels)) {
		if labelName.MatchString(k) && k != "code" && k != "histogram" && k != "quantile" {
			common = append(common, &dto.LabelPair{Name: ptr(k), Value: ptr(f.Labels[k])})
		}
	}
	with := func(extra ...*dto.LabelPair) []*dto.LabelPair { return append(slices.Clone(common), extra...) }
	family := func(name, help string, t dto.MetricType, ms ...*dto.Metric) *dto.MetricFamily {
		return &dto.MetricFamily{Name: ptr(name), Help: ptr(help), Type: t.Enum(), Metric: ms}
	}
	gauge := func(name, help string, v float64) *dto.MetricFamily {
		return family(name, help, dto.MetricType_GAUGE, &dto.Metric{Label: with(), Gauge: &dto.Gauge{Value: ptr(v)}})
	}
	counter := func(name, help string, v int64) *dto.MetricFamily {
		return family(name, help, dto.MetricType_COUNTER, &dto.Metric{Label: with(), Counter: &dto.Counter{Value: ptr(float64(v))}})
	}
	var byCode []*dto.Metric
	for _, c := range slices.Sorted(maps.Keys(f.RetCodes)) {
		byCode = append(byCode, &dto.Metric{
			Label:   with(&dto.LabelPair{Name: ptr("code"), Value: ptr(c)}),
			Counter: &dto.Counter{Value: ptr(float64(f.RetCodes[c]))},
		})
	}
	var summaries []*dto.Metric
	for _, h := range f.Latencies {
		l := h.Latency
		s := &dto.Summary{SampleCount: ptr(uint64(max(l.Count, 0))), SampleSum: ptr(l.Mean * float64(l.Count))}
		for _, p := range l.Percentiles {
			s.Quantile = append(s.Quantile, &dto.Quantile{Quantile: ptr(p.P / 100), Value: ptr(p.Value)})
		}
		summaries = append(summaries, &dto.Metric{Label: with(&dto.LabelPair{Name: ptr("histogram"), Value: ptr(h.Name)}), Summary: s})
	}
	families := []*dto.MetricFamily{
		family("barrage_requests_total", "Requests made, by return code.", dto.MetricType_COUNTER, byCode...),
		counter("barrage_errors_total", "Requests that failed (a non-success code or no answer).", f.Errors),
		counter("barrage_dropped_total", "Requests scheduled within the run but never sent.", f.Dropped),
		counter("barrage_sent_bytes_total", "Bytes sent.", f.BytesSent),
		counter("barrage_received_bytes_total", "Bytes received.", f.BytesReceived),
		gauge("barrage_requested_qps", "Target rate (0: as fast as possible).", f.RequestedQPS),
		gauge("barrage_actual_qps", "Achieved rate.", f.ActualQPS),
		gauge("barrage_duration_seconds", "Length of the run.", f.DurationSeconds),
		gauge("barrage_connections", "Connections used.", float64(f.Connections)),
		family("barrage_latency_seconds",
			"Latency by histogram: response (from the intended send time), service, lag, and server (reported by the target).",
			dto.MetricType_SUMMARY, summaries...),
	}
	var buf bytes.Buffer
	enc := expfmt.NewEncoder(&buf, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, fam := range families {
		if len(fam.Metric) == 0 {
			continue
		}
		if err := enc.Encode(fam); err != nil {
			return fmt.Errorf("write prometheus text: %w", err)
		}
	}
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("write prometheus text: %w", err)
	}
	return nil
}

// WriteYAML writes v, any value that encodes as JSON, as YAML with the keys
// of its JSON: each surface's YAML is its JSON document in YAML.
func WriteYAML(w io.Writer, v any) error {
	b, err := json.Marshal(v)
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
