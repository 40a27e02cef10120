package spec

import (
	"encoding/json"
	"errors"
	"testing"
	"time"
)

func TestDurationUnmarshal(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    time.Duration
		wantErr bool
	}{
		{in: `"1m30s"`, want: 90 * time.Second},
		{in: `90`, want: 90 * time.Second},
		{in: `0.25`, want: 250 * time.Millisecond},
		{in: `"250ms"`, want: 250 * time.Millisecond},
		{in: `"1.5µs"`, want: 1500 * time.Nanosecond},
		{in: `"-1s"`, want: -time.Second}, // decodes; Validate rejects it
		{in: `1e-9`, want: time.Nanosecond},
		{in: `"0"`, want: 0},
		{in: `"soon"`, wantErr: true},
		{in: `"90"`, wantErr: true},
		{in: `""`, wantErr: true},
		{in: `true`, wantErr: true},
		{in: `{}`, wantErr: true},
		{in: `[1]`, wantErr: true},
		{in: `1e300`, wantErr: true},
		{in: `9223372037`, wantErr: true},
		{in: `-9223372037`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			var d Duration
			err := json.Unmarshal([]byte(tt.in), &d)
			if tt.wantErr {
				if !errors.Is(err, errDuration) {
					t.Errorf("Unmarshal(%s) = %v, %v; want an error wrapping errDuration", tt.in, d, err)
				}
				return
			}
			if err != nil || d.Std() != tt.want {
				t.Errorf("Unmarshal(%s) = %v, %v; want %v", tt.in, d, err, tt.want)
			}
		})
	}
}

func TestDurationNullKeepsValue(t *testing.T) {
	t.Parallel()
	d := dur(time.Second)
	if err := json.Unmarshal([]byte(`null`), &d); err != nil || d != dur(time.Second) {
		t.Errorf("Unmarshal(null) = %v, %v; want 1s, nil", d, err)
	}
}

func TestDurationMarshal(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   time.Duration
		want string
	}{
		{90 * time.Second, `"1m30s"`},
		{1500 * time.Millisecond, `"1.5s"`},
		{1500 * time.Nanosecond, `"1.5µs"`},
		{0, `"0s"`},
		{time.Duration(1<<63 - 1), `"2562047h47m16.854775807s"`},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			t.Parallel()
			b, err := json.Marshal(Duration(tt.in))
			if err != nil || string(b) != tt.want {
				t.Fatalf("Marshal(%v) = %s, %v; want %s", tt.in, b, err, tt.want)
			}
			var back Duration
			if err := json.Unmarshal(b, &back); err != nil || back.Std() != tt.in {
				t.Errorf("Unmarshal(%s) = %v, %v; want %v", b, back, err, tt.in)
			}
		})
	}
}

func TestDurationOmitZero(t *testing.T) {
	t.Parallel()
	b, err := json.Marshal(GRPC{Mode: GRPCPing})
	if err != nil || string(b) != `{"mode":"ping"}` {
		t.Errorf("Marshal = %s, %v; want ping_delay omitted", b, err)
	}
}
