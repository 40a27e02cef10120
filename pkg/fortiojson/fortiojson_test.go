package fortiojson

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/pkg/hist"
	"github.com/barrage-dev/barrage/pkg/spec"
)

func TestIDAndLabels(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		runID  int64
		labels string
		want   string
	}{
		{0, "", "2026-01-02-030405"},
		{7, "", "2026-01-02-030405_7"},
		{0, "  -- a b--", "2026-01-02-030405_a_b"},
		{0, strings.Repeat("x", 200), "2026-01-02-030405_" + strings.Repeat("x", MaxID-18)},
	}
	for _, tt := range tests {
		if got := ID(start, tt.runID, tt.labels); got != tt.want {
			t.Errorf("ID(%d, %q) = %q, want %q", tt.runID, tt.labels, got, tt.want)
		}
	}
	if got := ID(start.In(time.FixedZone("x", 3600)), 0, ""); got != "2026-01-02-040405" {
		t.Errorf("ID in UTC+1 = %q, want the time in that zone", got)
	}
	if got := Labels(map[string]string{"team": "core", "env": "prod"}); got != "env=prod team=core" {
		t.Errorf("Labels = %q", got)
	}
	if got := Labels(map[string]string{"title": "my run"}); got != "my run" {
		t.Errorf("Labels(title) = %q", got)
	}
}

func TestRunType(t *testing.T) {
	t.Parallel()
	tests := []struct {
		s    spec.Spec
		want string
	}{
		{spec.Spec{URL: "https://x.test/"}, "HTTP"},
		{spec.Spec{URL: "tcp://x.test:1"}, "TCP"},
		{spec.Spec{URL: "udp://x.test:1"}, "UDP"},
		{spec.Spec{URL: "grpc://x.test:1"}, "GRPC Health for ''"},
		{spec.Spec{URL: "grpc://x.test:1", GRPC: &spec.GRPC{Mode: spec.GRPCHealth, Service: "ping"}}, "GRPC Health for 'ping'"},
		{spec.Spec{URL: "grpc://x.test:1", GRPC: &spec.GRPC{Mode: spec.GRPCPing, PingDelay: spec.Duration(250 * time.Millisecond)}}, "GRPC Ping Delay=250ms"},
		{spec.Spec{URL: "grpc://x.test:1", GRPC: &spec.GRPC{Mode: spec.GRPCMethod, Method: "/a.B/C"}}, "GRPC Method a.B/C"},
	}
	for _, tt := range tests {
		if got := RunType(tt.s); got != tt.want {
			t.Errorf("RunType(%s) = %q, want %q", tt.s.URL, got, tt.want)
		}
	}
}

func TestNew(t *testing.T) {
	t.Parallel()
	h := hist.New()
	for i := 1; i <= 100; i++ {
		h.RecordMicros(int64(i * 100))
	}
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	r := New(Fields{
		Spec: spec.Spec{URL: "tcp://h:1", Count: 100}, Target: "tcp://h:1", RunType: "TCP", Labels: map[string]string{"a": "b"},
		Start: start, Duration: 2 * time.Second, RequestedQPS: 50, ActualQPS: 49.5, Connections: 3, Version: "1.2",
		Latency: h, Errors: 4, RetCodes: map[string]int64{"OK": 96, "EOF": 4},
	})
	if r.URL != "" || r.Destination != "tcp://h:1" || r.RequestedQPS != "50" || r.RequestedDuration != "exactly 100 calls" ||
		r.ActualDuration != int64(2*time.Second) || r.ID != "2026-01-02-030405_a_b" || r.Version != "barrage-1.2" ||
		r.DurationHistogram.Count != 100 || r.ErrorsDurationHistogram.Count != 4 || len(r.DurationHistogram.Percentiles) != 5 {
		t.Errorf("New = %+v", r)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(b), `{"RunType":"TCP","Labels":"a=b","StartTime":`) || strings.Contains(string(b), `"URL"`) {
		t.Errorf("JSON starts %.80s", b)
	}
	if strings.Contains(string(b), `"Streams"`) {
		t.Errorf("a TCP result has Streams: %s", b)
	}
	g := New(Fields{Spec: spec.Spec{URL: "grpc://h:1", GRPC: &spec.GRPC{Mode: spec.GRPCPing, Streams: 4}}, Connections: 2, Latency: h})
	if g.NumThreads != 8 || g.SocketCount != 2 || g.Streams != 4 || g.Destination != "" {
		t.Errorf("gRPC with 2 connections × 4 streams: NumThreads %d SocketCount %d Streams %d", g.NumThreads, g.SocketCount, g.Streams)
	}
	if New(Fields{Spec: spec.Spec{URL: "http://h/"}, Latency: h}).RequestedQPS != "max" {
		t.Error("no requested rate is not \"max\"")
	}
}
