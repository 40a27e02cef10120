package app

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"go.yaml.in/yaml/v4"

	"github.com/barrage-dev/barrage/services/api/client"
	echoserver "github.com/barrage-dev/barrage/services/echo/echo"
)

// TestDistributedServerLatencyAndFormats runs a spec with a latency_header
// on two agents against the echo's -server-time-header and a 5 ms delay:
// the result has a server latency with one sample per request, and its
// csv, prometheus and yaml forms read back into the figures of its JSON.
func TestDistributedServerLatencyAndFormats(t *testing.T) { // serial: see heavyTests
	e := startAPI(t, "BARRAGE_DISPATCH_WAIT=10s")
	echo := startEchoWith(t, func(c *echoserver.Options) { c.ServerTimeHeader = "X-Server-Time" })
	startAgents(t, e.NATSURL, 2)
	created := decode[client.Run](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/runs", e.AdminToken, map[string]any{
		"project": "default",
		"spec": map[string]any{"url": echo + "/?delay=5ms", "qps": 100, "connections": 4, "duration": "2s",
			"latency_header": "X-Server-Time", "labels": map[string]string{"team": "edge"}},
	}))
	id := created.Id.String()
	if run := e.waitRun(t, id, 40*time.Second); run.Status != "completed" {
		t.Fatalf("run ended %s (error %q)", run.Status, derefS(run.Error))
	}
	raw := e.mustDo(t, http.StatusOK, http.MethodGet, "/runs/"+id+"/result", e.AdminToken, nil)
	res := decode[client.RunResult](t, raw)
	checkPhases(t, res, 4)
	if res.Count < 190 || res.Server == nil || res.Server.Count != res.Count {
		t.Fatalf("count %d, server %+v; want about 200 requests, each with a server sample", res.Count, res.Server)
	}
	t.Logf("server p50 %.0f µs, service p50 %.0f µs", res.Server.P50Us, res.Service.P50Us)
	if res.Server.P50Us < 4900 || res.Server.P50Us > res.Service.P50Us {
		t.Errorf("server p50 %.0f µs, want ≥ the 5 ms delay and ≤ the service p50 %.0f µs", res.Server.P50Us, res.Service.P50Us)
	}
	checkCSVFormat(t, e, id, res)
	checkPrometheusFormat(t, e, id, res)
	checkYAMLFormat(t, e, id, raw)
	status, header, body := e.do(t, http.MethodGet, "/runs/"+id+"/result?format=xml", e.AdminToken, nil)
	p := wantProblem(t, status, header, body, http.StatusUnprocessableEntity, "validation")
	if fields := problemFields(p); len(fields) != 1 || fields[0] != "format" {
		t.Errorf("bad format: problem fields %v, want format", problemFields(p))
	}
}

// checkPhases: a plain-HTTP result over conns keep-alive connections has
// connect once per connection, no DNS (the echo is an IP literal) nor TLS,
// and waiting and receiving once per response, the echo's 5 ms delay
// within waiting.
func checkPhases(t *testing.T, res client.RunResult, conns int64) {
	t.Helper()
	p := res.Phases
	if p == nil || p.Connect == nil || p.Waiting == nil || p.Receiving == nil {
		t.Fatalf("phases %+v: want connect, waiting and receiving", p)
	}
	if p.Dns != nil || p.Tls != nil {
		t.Errorf("dns %+v tls %+v: want neither for http://127.0.0.1", p.Dns, p.Tls)
	}
	if p.Connect.Count != conns || p.Waiting.Count != res.Count || p.Receiving.Count != res.Count {
		t.Errorf("counts: connect %d waiting %d receiving %d; want %d connections and %d responses",
			p.Connect.Count, p.Waiting.Count, p.Receiving.Count, conns, res.Count)
	}
	if p.Waiting.P50Us < 4900 || p.Waiting.P50Us > res.Service.P50Us {
		t.Errorf("waiting p50 %.0f µs, want ≥ the 5 ms delay and ≤ the service p50 %.0f µs", p.Waiting.P50Us, res.Service.P50Us)
	}
}

// getFormat fetches a run's result in format and checks its content type.
func getFormat(t *testing.T, e *apiEnv, id, format, contentType string) []byte {
	t.Helper()
	status, header, body := e.do(t, http.MethodGet, "/runs/"+id+"/result?format="+format, e.AdminToken, nil)
	if status != http.StatusOK || header.Get("Content-Type") != contentType {
		t.Fatalf("format=%s: %d %q, want 200 %q; body: %s", format, status, header.Get("Content-Type"), contentType, body)
	}
	return body
}

// summaryAt returns the figure of s at percentile p.
func summaryAt(s client.LatencySummary, p float64) float64 {
	return map[float64]float64{50: s.P50Us, 75: s.P75Us, 90: s.P90Us, 99: s.P99Us, 99.9: s.P999Us}[p]
}

// sameSeconds reports whether seconds equals us microseconds.
func sameSeconds(seconds, us float64) bool { return math.Abs(seconds*1e6-us) < 1e-6 }

func checkCSVFormat(t *testing.T, e *apiEnv, id string, res client.RunResult) {
	t.Helper()
	rows, err := csv.NewReader(bytes.NewReader(getFormat(t, e, id, "csv", "text/csv; charset=utf-8"))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(rows[0], ",") != "histogram,percentile,value_seconds,count,min_seconds,mean_seconds,max_seconds,stddev_seconds" || len(rows) != 1+4*5 {
		t.Fatalf("csv: header %v and %d rows, want 20 (4 histograms × the 5 default percentiles)", rows[0], len(rows)-1)
	}
	want := map[string]client.LatencySummary{"response": *res.Response, "service": res.Service, "lag": *res.Lag, "server": *res.Server}
	for _, row := range rows[1:] {
		p, _ := strconv.ParseFloat(row[1], 64)
		v, _ := strconv.ParseFloat(row[2], 64)
		s, ok := want[row[0]]
		if !ok || !sameSeconds(v, summaryAt(s, p)) || row[3] != strconv.FormatInt(s.Count, 10) {
			t.Errorf("csv row %v, want %s p%g = %g µs, count %d", row, row[0], p, summaryAt(s, p), s.Count)
		}
	}
}

func checkPrometheusFormat(t *testing.T, e *apiEnv, id string, res client.RunResult) {
	t.Helper()
	body := getFormat(t, e, id, "prometheus", "text/plain; version=0.0.4; charset=utf-8")
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, body)
	}
	label := func(m *dto.Metric, name string) string {
		for _, l := range m.GetLabel() {
			if l.GetName() == name {
				return l.GetValue()
			}
		}
		return ""
	}
	reqs := families["barrage_requests_total"].GetMetric()
	if len(reqs) != 1 || label(reqs[0], "code") != "200" || int64(reqs[0].GetCounter().GetValue()) != res.RetCodes["200"] || label(reqs[0], "team") != "edge" {
		t.Errorf("barrage_requests_total %v, want code 200 = %d with team=edge", reqs, res.RetCodes["200"])
	}
	if got := families["barrage_errors_total"].GetMetric()[0].GetCounter().GetValue(); int64(got) != res.Errors {
		t.Errorf("errors %g, want %d", got, res.Errors)
	}
	if got := families["barrage_actual_qps"].GetMetric()[0].GetGauge().GetValue(); math.Abs(got-res.Qps) > 1e-9 {
		t.Errorf("actual qps %g, want %g", got, res.Qps)
	}
	want := map[string]client.LatencySummary{"response": *res.Response, "service": res.Service, "lag": *res.Lag, "server": *res.Server}
	sums := families["barrage_latency_seconds"].GetMetric()
	if len(sums) != 4 {
		t.Fatalf("%d latency summaries, want 4", len(sums))
	}
	for _, m := range sums {
		name := label(m, "histogram")
		s := m.GetSummary()
		if int64(s.GetSampleCount()) != want[name].Count || len(s.GetQuantile()) != 5 {
			t.Errorf("%s summary: count %d, %d quantiles; want %d and 5", name, s.GetSampleCount(), len(s.GetQuantile()), want[name].Count)
		}
		for _, q := range s.GetQuantile() {
			if p := q.GetQuantile() * 100; !sameSeconds(q.GetValue(), summaryAt(want[name], math.Round(p*10)/10)) {
				t.Errorf("%s quantile %g = %g s, want %g µs", name, q.GetQuantile(), q.GetValue(), summaryAt(want[name], p))
			}
		}
	}
}

func checkYAMLFormat(t *testing.T, e *apiEnv, id string, jsonBody []byte) {
	t.Helper()
	var fromYAML, fromJSON any
	if err := yaml.Unmarshal(getFormat(t, e, id, "yaml", "application/yaml"), &fromYAML); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(jsonBody, &fromJSON); err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(fromYAML)
	b, _ := json.Marshal(fromJSON)
	if !bytes.Equal(a, b) {
		t.Errorf("yaml reads back as\n%s\nwant the json\n%s", a, b)
	}
}
