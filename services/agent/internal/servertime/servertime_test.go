package servertime

import (
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"20345", 20345 * time.Microsecond, true},
		{" 20345 ", 20345 * time.Microsecond, true},
		{"12.5", 12500 * time.Nanosecond, true},
		{"12.3ms", 12300 * time.Microsecond, true},
		{"12.3 ms", 12300 * time.Microsecond, true},
		{"1234us", 1234 * time.Microsecond, true},
		{"1234µs", 1234 * time.Microsecond, true},
		{"900ns", 900, true},
		{"0.5s", 500 * time.Millisecond, true},
		{"0", 0, true},
		{"total;dur=20.5", 20500 * time.Microsecond, true},
		{`app;desc="x";dur=47.2, db;dur=53`, 47200 * time.Microsecond, true},
		{"cache;desc=hit, app;DUR=3", 3 * time.Millisecond, true},
		{`app;dur="1.5"`, 1500 * time.Microsecond, true},
		{"dur=7", 0, false}, // a metric named dur, without a dur parameter
		{"miss, db;dur=2", 2 * time.Millisecond, true},
		{"", 0, false},
		{"-5", 0, false},
		{"abc", 0, false},
		{"12h", 0, false},
		{"1.2.3", 0, false},
		{".", 0, false},
		{"app;desc=x", 0, false},
		{"app;dur=", 0, false},
		{"app;dur=12x", 0, false},
		{"1234567890123456789", 0, false},
		{"99999999999999s", 0, false},
	}
	for _, tt := range tests {
		got, ok := Parse([]byte(tt.in))
		if got != tt.want || ok != tt.ok {
			t.Errorf("Parse(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestParseDoesNotAllocate(t *testing.T) {
	values := [][]byte{[]byte("20345"), []byte("app;dur=47.2, db;dur=53"), []byte("12.3ms")}
	if n := testing.AllocsPerRun(100, func() {
		for _, v := range values {
			Parse(v)
		}
	}); n != 0 {
		t.Fatalf("Parse allocates %.0f times per call", n)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"20345", "12.3ms", "app;dur=47.2, db;dur=53", `a;dur="1"`, "-1", "1e9"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		d, ok := Parse(b)
		if d < 0 || (!ok && d != 0) {
			t.Fatalf("Parse(%q) = %v, %v", b, d, ok)
		}
	})
}
