package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"go.yaml.in/yaml/v4"

	"github.com/barrage-dev/barrage/pkg/hist"
	"github.com/barrage-dev/barrage/pkg/spec"
)

// formatsResult is a result with a server histogram: 90 of the 100
// responses reported 500 µs.
func formatsResult(t *testing.T) Result {
	t.Helper()
	sp := spec.Spec{URL: "http://u:secret@h/", QPS: 50, Percentiles: []float64{50, 90, 99.9},
		Labels: map[string]string{"team": "edge", "app.tier": "x"}, LatencyHeader: "X-Server-Time"}
	sp.Normalize()
	final := finalSnapshot(100)
	final.Server = hist.New()
	for range 90 {
		final.Server.Record(500 * time.Microsecond)
	}
	r, err := New(final, Meta{Spec: sp, RunType: "HTTP", CodeName: func(c int32) string { return strconv.Itoa(int(c)) }})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestWriteCSV: a header and one row per percentile of each histogram,
// whose values are the result's.
func TestWriteCSV(t *testing.T) {
	t.Parallel()
	r := formatsResult(t)
	var buf bytes.Buffer
	if err := WriteCSV(&buf, &r); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(rows[0], ","); got != "histogram,percentile,value_seconds,count,min_seconds,mean_seconds,max_seconds,stddev_seconds" {
		t.Fatalf("header %q", got)
	}
	if len(rows) != 1+4*3 {
		t.Fatalf("%d rows, want a header and 12 (4 histograms × 3 percentiles)", len(rows))
	}
	want := map[string]*Latency{"response": &r.Response, "service": &r.Service, "lag": &r.Lag, "server": r.Server}
	for i, row := range rows[1:] {
		lat := want[row[0]]
		p := lat.Percentiles[i%3]
		if v, _ := strconv.ParseFloat(row[2], 64); row[1] != strconv.FormatFloat(p.P, 'g', -1, 64) || v != p.Value {
			t.Errorf("row %v, want p%g = %g", row, p.P, p.Value)
		}
		if wantCount := map[bool]string{true: "90", false: "100"}[row[0] == "server"]; row[3] != wantCount {
			t.Errorf("row %v: count %s, want %s", row, row[3], wantCount)
		}
	}
	if v, _ := strconv.ParseFloat(rows[10][2], 64); rows[10][0] != "server" || math.Abs(v-0.0005) > 1e-6 {
		t.Errorf("server p50 row %v, want 0.0005 s", rows[10])
	}
	// p99.9 of service times 1..100 ms is 100 ms (HDR precision).
	if v, _ := strconv.ParseFloat(rows[6][2], 64); rows[6][0] != "service" || math.Abs(v-0.1) > 0.0001 {
		t.Errorf("service p99.9 row %v, want 0.1 s", rows[6])
	}
}

// TestWritePrometheus: the text parses with Prometheus's own parser into
// the result's figures.
func TestWritePrometheus(t *testing.T) {
	t.Parallel()
	r := formatsResult(t)
	var buf bytes.Buffer
	if err := WritePrometheus(&buf, &r); err != nil {
		t.Fatal(err)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, buf.String())
	}
	label := func(m *dto.Metric, name string) string {
		for _, l := range m.GetLabel() {
			if l.GetName() == name {
				return l.GetValue()
			}
		}
		return ""
	}
	codes := map[string]float64{}
	for _, m := range families["barrage_requests_total"].GetMetric() {
		codes[label(m, "code")] = m.GetCounter().GetValue()
		if label(m, "team") != "edge" {
			t.Errorf("requests by code without the run label team=edge: %v", m)
		}
	}
	if codes["200"] != 99 || codes["503"] != 1 || len(codes) != 2 {
		t.Errorf("requests by code %v, want 200: 99, 503: 1", codes)
	}
	if got := families["barrage_actual_qps"].GetMetric()[0].GetGauge().GetValue(); got != 50 {
		t.Errorf("actual qps %g, want 50", got)
	}
	if got := families["barrage_errors_total"].GetMetric()[0].GetCounter().GetValue(); got != 1 {
		t.Errorf("errors %g, want 1", got)
	}
	sums := families["barrage_latency_seconds"]
	if sums.GetType() != dto.MetricType_SUMMARY || len(sums.GetMetric()) != 4 {
		t.Fatalf("latency family %v, want a summary per histogram", sums)
	}
	for _, m := range sums.GetMetric() {
		if label(m, "histogram") == "server" && m.GetSummary().GetSampleCount() != 90 {
			t.Errorf("server summary count %d, want 90", m.GetSummary().GetSampleCount())
		}
		if label(m, "histogram") != "response" {
			continue
		}
		s := m.GetSummary()
		if s.GetSampleCount() != 100 || math.Abs(s.GetSampleSum()-r.Response.Mean*100) > 1e-9 {
			t.Errorf("response summary count %d sum %g", s.GetSampleCount(), s.GetSampleSum())
		}
		if q := s.GetQuantile()[1]; q.GetQuantile() != 0.9 || q.GetValue() != r.Response.Percentiles[1].Value {
			t.Errorf("response quantile %v, want 0.9 = %g", q, r.Response.Percentiles[1].Value)
		}
	}
	if strings.Contains(buf.String(), "app.tier") || strings.Contains(buf.String(), "secret") {
		t.Errorf("exposition carries an invalid label or a secret:\n%s", buf.String())
	}
}

// TestWriteYAML: the YAML reads back into the same tree as the native JSON.
func TestWriteYAML(t *testing.T) {
	t.Parallel()
	r := formatsResult(t)
	var y, j bytes.Buffer
	if err := WriteYAML(&y, &r); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSON(&j, &r); err != nil {
		t.Fatal(err)
	}
	var fromYAML, fromJSON any
	if err := yaml.Unmarshal(y.Bytes(), &fromYAML); err != nil {
		t.Fatalf("parse yaml: %v", err)
	}
	if err := json.Unmarshal(j.Bytes(), &fromJSON); err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(fromYAML)
	b, _ := json.Marshal(fromJSON)
	if !bytes.Equal(a, b) {
		t.Errorf("yaml reads back as\n%s\nwant the json\n%s", a, b)
	}
	if !strings.Contains(y.String(), "actual_qps: 50") {
		t.Errorf("yaml keys are not the json ones:\n%s", y.String())
	}
}

// TestTextShowsServerTime: the summary has a server line with the share of
// responses that reported it, and none without a latency header.
func TestTextShowsServerTime(t *testing.T) {
	t.Parallel()
	r := formatsResult(t)
	var buf bytes.Buffer
	if err := WriteText(&buf, &r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "Server time (reported in X-Server-Time by 90 of 100 responses):\n  min 500µs") {
		t.Errorf("no server line:\n%s", buf.String())
	}
	plain := mustResult(t, spec.Spec{URL: "http://h/"})
	buf.Reset()
	if err := WriteText(&buf, &plain); err != nil {
		t.Fatal(err)
	}
	if plain.Server != nil || strings.Contains(buf.String(), "Server time") {
		t.Errorf("server latency without a latency header:\n%s", buf.String())
	}
}
