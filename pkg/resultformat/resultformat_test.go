package resultformat

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"go.yaml.in/yaml/v4"

	"github.com/barrage-dev/barrage/pkg/hist"
)

// mustLatency summarises n values of d at p50 and p99.
func mustLatency(t *testing.T, d time.Duration, n int) *Latency {
	t.Helper()
	h := hist.New()
	for range n {
		h.Record(d)
	}
	l, err := NewLatency(h, []float64{50, 99})
	if err != nil {
		t.Fatal(err)
	}
	return &l
}

func figures(t *testing.T) *Figures {
	t.Helper()
	return &Figures{
		Labels: map[string]string{"env": "ci", "bad-name": "x"}, RequestedQPS: 10, ActualQPS: 9.5, DurationSeconds: 2,
		Connections: 2, Count: 19, Errors: 1, BytesSent: 100, BytesReceived: 200, RetCodes: map[string]int64{"200": 18, "-1": 1},
		Latencies: []Named{{Service, mustLatency(t, 2*time.Millisecond, 19)}, {Server, mustLatency(t, time.Millisecond, 12)}},
	}
}

func TestNewLatency(t *testing.T) {
	t.Parallel()
	l := mustLatency(t, 2*time.Millisecond, 19)
	if l.Count != 19 || l.Min != 0.002 || l.Max < 0.002 || l.Max > 0.002002 || len(l.Percentiles) != 2 || l.Percentiles[1].P != 99 {
		t.Errorf("latency %+v", l)
	}
	if h, err := hist.Decode([]byte(l.HDR)); err != nil || h.Count() != 19 {
		t.Errorf("hdr decodes to %v, %v; want 19 values", h, err)
	}
	if empty := mustLatency(t, 0, 0); empty.Count != 0 || empty.Percentiles != nil {
		t.Errorf("empty latency %+v, want no percentiles", empty)
	}
}

// TestWriters: each format reads back with its own parser into the figures.
func TestWriters(t *testing.T) {
	t.Parallel()
	f := figures(t)
	var c, p, y bytes.Buffer
	if err := WriteCSV(&c, f); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&c).ReadAll()
	if err != nil || len(rows) != 1+2*2 || rows[3][0] != "server" || rows[3][1] != "50" || rows[3][2] != "0.001" || rows[3][3] != "12" {
		t.Errorf("csv rows %v (%v), want a header, 2 service rows and 2 server rows", rows, err)
	}
	if err := WritePrometheus(&p, f); err != nil {
		t.Fatal(err)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(bytes.NewReader(p.Bytes()))
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, p.String())
	}
	if got := fams["barrage_requests_total"].GetMetric(); len(got) != 2 || len(fams["barrage_latency_seconds"].GetMetric()) != 2 {
		t.Errorf("exposition:\n%s", p.String())
	}
	if !strings.Contains(p.String(), `barrage_latency_seconds_count{env="ci",histogram="server"} 12`) || strings.Contains(p.String(), "bad-name") {
		t.Errorf("exposition lacks the server summary, or has an invalid label:\n%s", p.String())
	}
	if err := WriteYAML(&y, f.Latencies[1].Latency); err != nil {
		t.Fatal(err)
	}
	var back Latency
	if err := yaml.Unmarshal(y.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(back)
	b, _ := json.Marshal(f.Latencies[1].Latency)
	if !bytes.Equal(a, b) {
		t.Errorf("yaml reads back as %s, want %s", a, b)
	}
}
