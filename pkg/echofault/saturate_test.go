package echofault

import (
	"errors"
	"testing"
	"time"
)

func TestParseSaturate(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	tests := []struct {
		in   string
		want Saturation
		ok   bool
	}{
		{"5ms:2ms", Saturation{5 * ms, 2 * ms, false}, true},
		{"0s:1ms", Saturation{0, ms, false}, true},
		{"1h:1h", Saturation{time.Second, time.Second, false}, true}, // clamped to the limit
		{"5ms", Saturation{}, false},
		{"5ms:", Saturation{}, false},
		{"-1ms:2ms", Saturation{}, false},
		{"5ms:x", Saturation{}, false},
		{"20ms:25ms:rate", Saturation{20 * ms, 25 * ms, true}, true},
		{"20ms:25ms:", Saturation{}, false},
		{"20ms:25ms:flight", Saturation{}, false},
	}
	for _, tt := range tests {
		got, err := ParseSaturate(tt.in, time.Second)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseSaturate(%q) = %+v, %v; want %+v, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
		if err != nil && !errors.Is(err, ErrSyntax) {
			t.Errorf("ParseSaturate(%q) error %v is not ErrSyntax", tt.in, err)
		}
	}
}

func TestSaturationDelay(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	s := Saturation{Base: 5 * ms, Per: 2 * ms}
	for _, c := range []struct {
		n    float64
		want time.Duration
	}{{1, 7 * ms}, {10, 25 * ms}, {0, 5 * ms}, {2.5, 10 * ms}, {-1, 5 * ms}, {1000, 100 * ms}, {1e300, 100 * ms}} {
		if got := s.Delay(c.n, 100*ms); got != c.want {
			t.Errorf("Delay(%v) = %v, want %v", c.n, got, c.want)
		}
	}
	if got := (Saturation{}).Delay(50, time.Second); got != 0 {
		t.Errorf("disabled Delay = %v", got)
	}
}

func TestParseQuerySaturate(t *testing.T) {
	t.Parallel()
	p, err := ParseQuery(map[string][]string{"saturate": {"1ms:3ms"}}, Limits{MaxDelay: time.Second})
	if err != nil || p.Saturate != (Saturation{Base: time.Millisecond, Per: 3 * time.Millisecond}) || len(p.Ignored) != 0 {
		t.Fatalf("%+v, %v", p, err)
	}
	p, err = ParseQuery(map[string][]string{"saturate": {"lots"}}, Limits{MaxDelay: time.Second})
	if err != nil || p.Saturate.Enabled() || len(p.Ignored) != 1 || p.Ignored[0] != "saturate" {
		t.Fatalf("malformed: %+v, %v", p, err)
	}
}

func TestSaturationDelayAtRate(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	s := Saturation{Base: 20 * ms, Per: 20 * ms, ByRate: true}
	for _, c := range []struct {
		rate float64
		want time.Duration
	}{{0, 20 * ms}, {-3, 20 * ms}, {25, 40 * ms}, {37.5, 80 * ms}, {49.5, time.Second}, {50, time.Second}, {1e300, time.Second}} {
		if got := s.DelayAtRate(c.rate, time.Second); got != c.want {
			t.Errorf("DelayAtRate(%v) = %v, want %v", c.rate, got, c.want)
		}
	}
	if got := (Saturation{ByRate: true}).DelayAtRate(30, time.Second); got != 0 {
		t.Errorf("disabled DelayAtRate = %v", got)
	}
}
