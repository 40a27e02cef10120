package pacer

import (
	"math"
	"testing"
	"time"
)

// countUntil returns how many requests s schedules before offset t.
func countUntil(s Schedule, t time.Duration) int64 {
	var n int64
	for {
		at, ok := s.At(n)
		if !ok || at >= t {
			return n
		}
		n++
	}
}

func TestConstant(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		qps      float64
		limits   Limits
		jitter   bool
		window   time.Duration
		want     int64
		interval time.Duration
	}{
		{"1000 qps for 5 s", 1000, Limits{End: 5 * time.Second}, false, time.Hour, 5000, time.Millisecond},
		{"count limit", 1000, Limits{Count: 1234}, false, time.Hour, 1234, time.Millisecond},
		{"count and end, end first", 10, Limits{Count: 100, End: time.Second}, false, time.Hour, 10, 100 * time.Millisecond},
		{"fractional rate", 0.5, Limits{End: 10 * time.Second}, false, time.Hour, 5, 2 * time.Second},
		{"jitter keeps the count", 1000, Limits{End: 5 * time.Second}, true, time.Hour, 5000, time.Millisecond},
		{"first second of unlimited", 250, Limits{}, false, time.Second, 250, 4 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := NewConstant(tt.qps, 0, tt.jitter, tt.limits)
			if got := countUntil(s, tt.window); got < tt.want-1 || got > tt.want+1 {
				t.Fatalf("scheduled %d, want %d", got, tt.want)
			}
			if s.Interval() != tt.interval {
				t.Fatalf("interval %v, want %v", s.Interval(), tt.interval)
			}
		})
	}
}

func TestConstantJitterBounds(t *testing.T) {
	t.Parallel()
	s := NewConstant(100, 0, true, Limits{})
	moved := 0
	for i := range int64(10_000) {
		at, _ := s.At(i)
		ideal := time.Duration(i) * 10 * time.Millisecond
		d := at - ideal
		if i > 0 && (d < -time.Millisecond || d > time.Millisecond) {
			t.Fatalf("request %d moved by %v, more than 10%% of 10ms", i, d)
		}
		if d != 0 {
			moved++
		}
	}
	if moved < 9000 {
		t.Fatalf("only %d of 10000 requests jittered", moved)
	}
}

func TestRamp(t *testing.T) {
	t.Parallel()
	// 100 → 300 qps over 10 s: 2000 requests in the ramp, then 300/s.
	r := NewRamp(100, 300, 10*time.Second, Limits{End: 15 * time.Second})
	if got := countUntil(r, 10*time.Second); got < 1999 || got > 2001 {
		t.Fatalf("ramp scheduled %d in 10 s, want 2000", got)
	}
	if got := countUntil(r, time.Hour); got < 3499 || got > 3501 {
		t.Fatalf("ramp + hold scheduled %d in 15 s, want 3500", got)
	}
	// Rate in the first and last second of the ramp.
	first := countUntil(r, time.Second)
	last := countUntil(r, 10*time.Second) - countUntil(r, 9*time.Second)
	if first < 108 || first > 112 || last < 288 || last > 292 {
		t.Fatalf("first second %d (want 110), last ramp second %d (want 290)", first, last)
	}
	if got := r.RateAt(5 * time.Second); math.Abs(got-200) > 1e-9 {
		t.Fatalf("RateAt(5s) = %v, want 200", got)
	}
	// Ramp down and a ramp starting from 0.
	down := NewRamp(300, 100, 10*time.Second, Limits{End: 10 * time.Second})
	if got := countUntil(down, time.Hour); got < 1999 || got > 2001 {
		t.Fatalf("ramp down scheduled %d, want 2000", got)
	}
	zero := NewRamp(0, 200, 10*time.Second, Limits{End: 10 * time.Second})
	if got := countUntil(zero, time.Hour); got < 999 || got > 1001 {
		t.Fatalf("ramp from 0 scheduled %d, want 1000", got)
	}
}

func TestPerConnection(t *testing.T) {
	t.Parallel()
	var total int64
	for conn := range 3 {
		s := PerConnection(300, 3, conn, true, false, Limits{Count: 10})
		n := countUntil(s, time.Hour)
		want := int64(3)
		if conn == 0 {
			want = 4
		}
		if n != want {
			t.Fatalf("conn %d got %d requests, want %d", conn, n, want)
		}
		first, _ := s.At(0)
		if wantOffset := time.Duration(conn) * time.Second / 300; first != wantOffset {
			t.Fatalf("conn %d starts at %v, want %v", conn, first, wantOffset)
		}
		total += n
	}
	if total != 10 {
		t.Fatalf("total %d, want 10", total)
	}
	if n := countUntil(PerConnection(10, 8, 7, false, false, Limits{Count: 4}), time.Hour); n != 0 {
		t.Fatalf("connection without a share scheduled %d", n)
	}
}

func BenchmarkConstantAt(b *testing.B) {
	s := NewConstant(5000, 0, true, Limits{End: time.Hour})
	b.ReportAllocs()
	var i int64
	for b.Loop() {
		_, _ = s.At(i)
		i++
	}
}
