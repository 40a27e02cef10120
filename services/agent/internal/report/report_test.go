package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/pkg/hist"
	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/services/agent/internal/engine"
)

// finalSnapshot builds a final snapshot of n requests with service times
// 1..n ms, response times 2 ms longer, and one 503 among 200s.
func finalSnapshot(n int) *engine.Snapshot {
	start := time.Date(2026, 11, 23, 10, 4, 5, 0, time.UTC)
	s := &engine.Snapshot{
		Seq: 3, Final: true, Start: start, End: start.Add(2 * time.Second),
		Count: int64(n), Errors: 1, Codes: map[int32]int64{200: int64(n - 1), 503: 1},
		Sent: int64(100 * n), Received: int64(50 * n),
		Service: hist.New(), Response: hist.New(), Lag: hist.New(), Connections: 4,
	}
	for i := 1; i <= n; i++ {
		s.Service.Record(time.Duration(i) * time.Millisecond)
		s.Response.Record(time.Duration(i+2) * time.Millisecond)
		s.Lag.Record(2 * time.Millisecond)
	}
	return s
}

func mustResult(t *testing.T, sp spec.Spec) Result {
	t.Helper()
	sp.Normalize()
	if err := sp.Validate(); err != nil {
		t.Fatal(err)
	}
	r, err := New(finalSnapshot(100), Meta{Spec: sp, RunType: "HTTP", CodeName: func(c int32) string {
		return map[int32]string{200: "200", 503: "503"}[c]
	}})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestNewResult(t *testing.T) {
	t.Parallel()
	r := mustResult(t, spec.Spec{URL: "http://u:secret@h/", QPS: 50, Headers: []string{"Authorization: Bearer x"}})
	if r.Count != 100 || r.ActualQPS != 50 || r.RetCodes["200"] != 99 || r.RetCodes["503"] != 1 || r.Errors != 1 {
		t.Fatalf("figures: %+v", r)
	}
	if r.Primary != "response" || r.PrimaryLatency() != &r.Response {
		t.Fatalf("open loop primary = %q", r.Primary)
	}
	if got := r.Response.Percentiles[0]; got.P != 50 || got.Value < 0.0519 || got.Value > 0.0521 {
		t.Fatalf("response p50 = %+v, want 52 ms", got)
	}
	if strings.Contains(r.Spec.URL, "secret") || strings.Contains(strings.Join(r.Spec.Headers, ""), "Bearer x") {
		t.Fatalf("secrets kept in the result spec: %+v", r.Spec)
	}
	h, err := hist.Decode([]byte(r.Service.HDR))
	if err != nil || h.Count() != 100 {
		t.Fatalf("service HDR does not decode to 100 values: %v", err)
	}
	closed := mustResult(t, spec.Spec{URL: "http://h/", QPS: 0})
	if closed.Primary != "service" || closed.RequestedQPS != 0 {
		t.Fatalf("closed loop: primary %q requested %v", closed.Primary, closed.RequestedQPS)
	}
}

func TestFortioJSONShape(t *testing.T) {
	t.Parallel()
	r := mustResult(t, spec.Spec{URL: "http://h:8080/x", QPS: 1234.5, Count: 100, Labels: map[string]string{"title": "Prod run #1!"}})
	var buf bytes.Buffer
	if err := WriteFortio(&buf, &r); err != nil {
		t.Fatal(err)
	}
	// Key order is Fortio's: RunType, Labels, StartTime, RequestedQPS, RequestedDuration, ActualQPS, ...
	order := []string{`"RunType"`, `"Labels"`, `"StartTime"`, `"RequestedQPS"`, `"RequestedDuration"`, `"ActualQPS"`,
		`"ActualDuration"`, `"NumThreads"`, `"Version"`, `"DurationHistogram"`, `"ErrorsDurationHistogram"`,
		`"Exactly"`, `"Jitter"`, `"Uniform"`, `"NoCatchUp"`, `"RunID"`, `"AccessLoggerInfo"`, `"ID"`, `"RetCodes"`, `"URL"`}
	last := -1
	for _, k := range order {
		i := strings.Index(buf.String(), k)
		if i <= last {
			t.Fatalf("key %s at %d, not after the previous key (%d)", k, i, last)
		}
		last = i
	}
	var f map[string]any
	if err := json.Unmarshal(buf.Bytes(), &f); err != nil {
		t.Fatal(err)
	}
	checks := map[string]any{
		"RequestedQPS": "1234.5", "RequestedDuration": "exactly 100 calls", "ActualDuration": 2e9,
		"NumThreads": 4.0, "Labels": "Prod run #1!", "ID": "2026-11-23-100405_Prod_run_1", "Exactly": 100.0,
		"URL": "http://h:8080/x",
	}
	for k, want := range checks {
		if f[k] != want {
			t.Errorf("%s = %#v, want %#v", k, f[k], want)
		}
	}
	dh, _ := f["DurationHistogram"].(map[string]any)
	if dh["Count"] != 100.0 || dh["Min"] != 0.003 || len(dh["Percentiles"].([]any)) != 5 {
		t.Errorf("DurationHistogram = %v", dh)
	}
	if _, ok := f["Destination"]; ok {
		t.Error("HTTP result has Destination")
	}
}

func TestFortioRequestedFields(t *testing.T) {
	t.Parallel()
	tests := []struct {
		spec          spec.Spec
		qps, duration string
	}{
		{spec.Spec{URL: "http://h/", QPS: 0, Duration: spec.Duration(30 * time.Second)}, "max", "30s"},
		{spec.Spec{URL: "http://h/", QPS: 8, UntilStopped: true}, "8", "until stop"},
		{spec.Spec{URL: "tcp://h:1", QPS: 0.5, Duration: spec.Duration(time.Minute)}, "0.5", "1m0s"},
	}
	for _, tt := range tests {
		r := mustResult(t, tt.spec)
		f, err := toFortio(&r)
		if err != nil {
			t.Fatal(err)
		}
		if f.RequestedQPS != tt.qps || f.RequestedDuration != tt.duration {
			t.Errorf("%s: RequestedQPS %q RequestedDuration %q, want %q %q", tt.spec.URL, f.RequestedQPS, f.RequestedDuration, tt.qps, tt.duration)
		}
		if tt.spec.URL[:3] == "tcp" && (f.Destination != tt.spec.URL || f.URL != "") {
			t.Errorf("tcp result: Destination %q URL %q", f.Destination, f.URL)
		}
	}
}

func TestWriteText(t *testing.T) {
	t.Parallel()
	r := mustResult(t, spec.Spec{URL: "http://h/", QPS: 50})
	var buf bytes.Buffer
	if err := WriteText(&buf, &r); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"100 calls, 50.0 qps (target 50), 4 connections, 1 errors (1.00 %)",
		"Response time (from intended send; coordinated omission corrected) [primary]:",
		"p50 52ms", "p99 101ms", "Histogram (response time):", "200                99  (99.0 %)",
		"503                 1  (1.0 %)", "sent 10000 (100 per call)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
}

func TestFormatSeconds(t *testing.T) {
	t.Parallel()
	for in, want := range map[float64]string{0: "0", 0.000042: "42µs", 0.0125: "12.5ms", 1.5: "1.5s", 0.999: "999ms"} {
		if got := FormatSeconds(in); got != want {
			t.Errorf("FormatSeconds(%v) = %q, want %q", in, got, want)
		}
	}
}

func TestProgressLines(t *testing.T) {
	t.Parallel()
	snap := finalSnapshot(10)
	snap.Final = false
	for _, inPlace := range []bool{false, true} {
		var buf bytes.Buffer
		p := &Progress{Out: &buf, Response: true, InPlace: inPlace}
		for range 2 {
			if err := p.Publish(t.Context(), snap); err != nil {
				t.Fatal(err)
			}
		}
		final := *snap
		final.Final = true
		if err := p.Publish(t.Context(), &final); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		if len(p.Intervals()) != 2 || p.Intervals()[0].Count != 10 || p.Intervals()[0].QPS != 5 {
			t.Fatalf("intervals %+v", p.Intervals())
		}
		newlines, rewrites := strings.Count(out, "\n"), strings.Count(out, "\r\x1b[K")
		if inPlace && (newlines != 1 || rewrites != 2) || !inPlace && (newlines != 2 || rewrites != 0) {
			t.Fatalf("inPlace=%v: %d newlines, %d rewrites in %q", inPlace, newlines, rewrites, out)
		}
	}
}
