package spec

import (
	"reflect"
	"testing"
	"time"
)

func TestNormalizeDefaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   Spec
		want Spec
	}{
		{
			name: "bare http url",
			in:   Spec{URL: target},
			want: Spec{URL: target, Connections: 8, Duration: dur(5 * time.Second), Pacing: PacingClosed,
				Method: "GET", Timeout: dur(3 * time.Second), Percentiles: []float64{50, 75, 90, 99, 99.9}},
		},
		{
			name: "qps gives open pacing",
			in:   Spec{URL: target, QPS: 100},
			want: Spec{URL: target, QPS: 100, Connections: 8, Duration: dur(5 * time.Second), Pacing: PacingOpen,
				Method: "GET", Timeout: dur(3 * time.Second), Percentiles: DefaultPercentiles()},
		},
		{
			name: "ramp gives open pacing",
			in:   Spec{URL: target, Ramp: &Ramp{To: 10, Over: dur(time.Second)}},
			want: Spec{URL: target, Connections: 8, Duration: dur(5 * time.Second), Pacing: PacingOpen,
				Ramp: &Ramp{To: 10, Over: dur(time.Second)}, Method: "GET", Timeout: dur(3 * time.Second),
				Percentiles: DefaultPercentiles()},
		},
		{
			name: "payload gives POST",
			in:   Spec{URL: target, Payload: "x", Count: 10},
			want: Spec{URL: target, Connections: 8, Count: 10, Pacing: PacingClosed, Method: "POST", Payload: "x",
				Timeout: dur(3 * time.Second), Percentiles: DefaultPercentiles()},
		},
		{
			name: "payload file gives POST",
			in:   Spec{URL: target, PayloadFile: "body.json", UntilStopped: true},
			want: Spec{URL: target, Connections: 8, UntilStopped: true, Pacing: PacingClosed, Method: "POST",
				PayloadFile: "body.json", Timeout: dur(3 * time.Second), Percentiles: DefaultPercentiles()},
		},
		{
			name: "content type gives POST like fortio",
			in:   Spec{URL: target, ContentType: "application/json"},
			want: Spec{URL: target, Connections: 8, Duration: dur(5 * time.Second), Pacing: PacingClosed,
				Method: "POST", ContentType: "application/json", Timeout: dur(3 * time.Second),
				Percentiles: DefaultPercentiles()},
		},
		{
			name: "udp has a shorter timeout and no method",
			in:   Spec{URL: "udp://example.com:8078"},
			want: Spec{URL: "udp://example.com:8078", Connections: 8, Duration: dur(5 * time.Second),
				Pacing: PacingClosed, Timeout: dur(750 * time.Millisecond), Percentiles: DefaultPercentiles()},
		},
		{
			name: "tcp",
			in:   Spec{URL: "tcp://example.com:8078"},
			want: Spec{URL: "tcp://example.com:8078", Connections: 8, Duration: dur(5 * time.Second),
				Pacing: PacingClosed, Timeout: dur(3 * time.Second), Percentiles: DefaultPercentiles()},
		},
		{
			name: "grpc gets health mode",
			in:   Spec{URL: "grpc://example.com:8079"},
			want: Spec{URL: "grpc://example.com:8079", Connections: 8, Duration: dur(5 * time.Second),
				Pacing: PacingClosed, Timeout: dur(3 * time.Second), GRPC: &GRPC{Mode: GRPCHealth, Streams: 1},
				Percentiles: DefaultPercentiles()},
		},
		{
			name: "grpc block without mode keeps its service",
			in:   Spec{URL: "grpcs://example.com:443", GRPC: &GRPC{Service: "svc"}},
			want: Spec{URL: "grpcs://example.com:443", Connections: 8, Duration: dur(5 * time.Second),
				Pacing: PacingClosed, Timeout: dur(3 * time.Second), GRPC: &GRPC{Mode: GRPCHealth, Service: "svc", Streams: 1},
				Percentiles: DefaultPercentiles()},
		},
		{
			name: "grpc block with a method gets method mode, streams kept",
			in:   Spec{URL: "grpc://example.com:8079", GRPC: &GRPC{Method: "a.B/C", Streams: 4}},
			want: Spec{URL: "grpc://example.com:8079", Connections: 8, Duration: dur(5 * time.Second),
				Pacing: PacingClosed, Timeout: dur(3 * time.Second), GRPC: &GRPC{Mode: GRPCMethod, Method: "a.B/C", Streams: 4},
				Percentiles: DefaultPercentiles()},
		},
		{
			name: "set values are kept",
			in: Spec{URL: target, QPS: 5, Connections: 2, Duration: dur(time.Minute), Pacing: PacingFortio,
				Method: "PUT", Timeout: dur(time.Second), Percentiles: []float64{99}},
			want: Spec{URL: target, QPS: 5, Connections: 2, Duration: dur(time.Minute), Pacing: PacingFortio,
				Method: "PUT", Timeout: dur(time.Second), Percentiles: []float64{99}},
		},
		{
			name: "empty headers and labels become nil",
			in:   Spec{URL: target, Headers: []string{}, Labels: map[string]string{}, Percentiles: []float64{}},
			want: Spec{URL: target, Connections: 8, Duration: dur(5 * time.Second), Pacing: PacingClosed,
				Method: "GET", Timeout: dur(3 * time.Second), Percentiles: DefaultPercentiles()},
		},
		{
			name: "bad url still gets the generic defaults",
			in:   Spec{URL: "ftp://example.com/"},
			want: Spec{URL: "ftp://example.com/", Connections: 8, Duration: dur(5 * time.Second),
				Pacing: PacingClosed, Timeout: dur(3 * time.Second), Percentiles: DefaultPercentiles()},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := tt.in.Clone()
			got.Normalize()
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Normalize:\n got %+v\nwant %+v", got, tt.want)
			}
			again := got.Clone()
			again.Normalize()
			if !reflect.DeepEqual(again, got) {
				t.Errorf("Normalize is not idempotent:\nonce  %+v\ntwice %+v", got, again)
			}
		})
	}
}

func TestNormalizeDoesNotWriteThroughSharedGRPC(t *testing.T) {
	t.Parallel()
	shared := &GRPC{Service: "svc"}
	s := Spec{URL: "grpc://example.com:8079", GRPC: shared}
	s.Normalize()
	if shared.Mode != "" || shared.Streams != 0 {
		t.Errorf("Normalize changed the caller's grpc block: %+v", shared)
	}
	if s.GRPC.Mode != GRPCHealth || s.GRPC.Service != "svc" || s.GRPC.Streams != 1 {
		t.Errorf("grpc = %+v, want health mode with service svc and 1 stream", s.GRPC)
	}
	// A block with its mode set still gets a copy when streams are filled in.
	moded := &GRPC{Mode: GRPCPing}
	p := Spec{URL: "grpc://example.com:8079", GRPC: moded}
	p.Normalize()
	if moded.Streams != 0 || p.GRPC.Streams != 1 {
		t.Errorf("caller's block %+v, normalized %+v; want streams 0 and 1", moded, p.GRPC)
	}
}

func TestDefaultPercentilesIsFresh(t *testing.T) {
	t.Parallel()
	p := DefaultPercentiles()
	p[0] = 1
	if DefaultPercentiles()[0] != 50 {
		t.Error("DefaultPercentiles shares its slice")
	}
}
