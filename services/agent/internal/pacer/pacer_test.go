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

func TestBurst(t *testing.T) {
	t.Parallel()
	const qps, size = 100, 10
	s := NewBurst(NewConstant(qps, 0, false, Limits{End: 3 * time.Second}), size)
	perSecond := map[int64]int64{}
	groups := map[time.Duration]int64{}
	var n int64
	for ; ; n++ {
		at, ok := s.At(n)
		if !ok {
			break
		}
		if want := time.Duration(n/size) * size * time.Second / qps; at != want {
			t.Fatalf("request %d at %v, want %v (with the first of its burst)", n, at, want)
		}
		perSecond[int64(at/time.Second)]++
		groups[at]++
	}
	if n != 3*qps {
		t.Fatalf("scheduled %d, want %d", n, 3*qps)
	}
	for sec, c := range perSecond {
		if c != qps {
			t.Errorf("second %d has %d requests, want %d", sec, c, qps)
		}
	}
	for at, c := range groups {
		if c != size {
			t.Errorf("%d requests due at %v, want bursts of %d", c, at, size)
		}
	}
	if len(groups) != 3*qps/size {
		t.Errorf("%d bursts, want %d", len(groups), 3*qps/size)
	}
}

func TestBurstLimits(t *testing.T) {
	t.Parallel()
	cut := NewBurst(NewConstant(100, 0, false, Limits{Count: 25}), 10)
	if got := countUntil(cut, time.Hour); got != 25 {
		t.Fatalf("count-limited burst schedule has %d, want 25", got)
	}
	if at, _ := cut.At(24); at != 200*time.Millisecond {
		t.Fatalf("last request at %v, want 200ms with its partial burst", at)
	}
	ramp := NewRamp(0, 100, 2*time.Second, Limits{End: 3 * time.Second})
	if got, want := countUntil(NewBurst(ramp, 7), time.Hour), countUntil(ramp, time.Hour); got != want {
		t.Fatalf("burst ramp schedules %d, the ramp %d", got, want)
	}
	plain := NewConstant(10, 0, false, Limits{})
	if NewBurst(plain, 1) != Schedule(plain) || NewBurst(plain, 0) != Schedule(plain) {
		t.Fatal("a burst of 0 or 1 is not the schedule itself")
	}
}
