package hist

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// mustHist returns a Histogram holding ds.
func mustHist(tb testing.TB, ds ...time.Duration) *Histogram {
	tb.Helper()
	h := New()
	for _, d := range ds {
		h.Record(d)
	}
	return h
}

// withinPrecision reports whether got is want at the histogram's precision:
// relative error at most 0.1 % plus 1 µs.
func withinPrecision(got, want time.Duration) bool {
	diff := math.Abs(float64(got - want))
	return diff <= math.Abs(float64(want))*1e-3+float64(time.Microsecond)
}

func TestLayout(t *testing.T) {
	t.Parallel()
	h := New()
	if got := len(h.h.Export().Counts); got != countsLen {
		t.Fatalf("library counts length %d, want %d", got, countsLen)
	}
	// Every slot's range must match the library's idea of equivalent values.
	for _, v := range []int64{1, 2, 1023, 1024, 2047, 2048, 2049, 4095, 4096, 1_000_000, 1<<31 + 12345, HighestMicros} {
		h.Reset()
		h.RecordMicros(v)
		d := h.distribution()
		if len(d.bins) != 1 {
			t.Fatalf("value %d: %d bins, want 1", v, len(d.bins))
		}
		b := d.bins[0]
		if b.lo != h.h.Min() || b.hi != h.h.Max() || b.lo > v || v > b.hi {
			t.Errorf("value %d: slot range [%d, %d], library [%d, %d]", v, b.lo, b.hi, h.h.Min(), h.h.Max())
		}
	}
}

func TestKnownSamples(t *testing.T) {
	t.Parallel()
	h := New()
	for i := 1; i <= 100; i++ {
		h.Record(time.Duration(i) * time.Millisecond)
	}
	tests := []struct {
		name string
		got  time.Duration
		want time.Duration
	}{
		{"min", h.Min(), time.Millisecond},
		{"max", h.Max(), 100 * time.Millisecond},
		{"mean", h.Mean(), 50500 * time.Microsecond},
		{"stddev", h.StdDev(), time.Duration(28.866070 * float64(time.Millisecond))},
		{"p0", h.Percentile(0), time.Millisecond},
		{"p1", h.Percentile(1), time.Millisecond},
		{"p50", h.Percentile(50), 50 * time.Millisecond},
		{"p90", h.Percentile(90), 90 * time.Millisecond},
		{"p99", h.Percentile(99), 99 * time.Millisecond},
		{"p99.9", h.Percentile(99.9), 100 * time.Millisecond},
		{"p100", h.Percentile(100), 100 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if !withinPrecision(tt.got, tt.want) {
				t.Errorf("got %v, want %v within 0.1%% + 1µs", tt.got, tt.want)
			}
		})
	}
	if h.Count() != 100 {
		t.Errorf("Count %d, want 100", h.Count())
	}
}

func TestPercentileRanks(t *testing.T) {
	t.Parallel()
	// 1..10 µs are recorded exactly; ranks follow ceil(p% × count).
	h := New()
	for v := int64(1); v <= 10; v++ {
		h.RecordMicros(v)
	}
	tests := []struct {
		p    float64
		want int64
	}{
		{-5, 1}, {math.NaN(), 1}, {0, 1}, {1, 1}, {10, 1}, {10.0001, 2}, {50, 5}, {55, 6},
		{90, 9}, {99, 10}, {100, 10}, {250, 10}, {math.Inf(1), 10},
	}
	qs := h.Percentiles([]float64{-5, math.NaN(), 0, 1, 10, 10.0001, 50, 55, 90, 99, 100, 250, math.Inf(1)})
	for i, tt := range tests {
		if got := qs[i].Value; got != micros(tt.want) {
			t.Errorf("p%v: got %v, want %v", tt.p, got, micros(tt.want))
		}
		if got := h.Percentile(tt.p); got != micros(tt.want) {
			t.Errorf("Percentile(%v): got %v, want %v", tt.p, got, micros(tt.want))
		}
	}
}

func TestEmpty(t *testing.T) {
	t.Parallel()
	h := New()
	figures := map[string]time.Duration{
		"min": h.Min(), "max": h.Max(), "mean": h.Mean(), "stddev": h.StdDev(),
		"p0": h.Percentile(0), "p50": h.Percentile(50), "p100": h.Percentile(100),
	}
	for name, got := range figures {
		if got != 0 {
			t.Errorf("%s = %v, want 0", name, got)
		}
	}
	if h.Count() != 0 || h.MeanMicros() != 0 || h.StdDevMicros() != 0 {
		t.Errorf("count %d, mean %g µs, stddev %g µs; want 0", h.Count(), h.MeanMicros(), h.StdDevMicros())
	}
	for _, q := range h.Percentiles([]float64{50, 99}) {
		if q.Value != 0 {
			t.Errorf("p%g = %v, want 0", q.P, q.Value)
		}
	}
	if qs := h.Percentiles(nil); len(qs) != 0 {
		t.Errorf("Percentiles(nil) = %v, want empty", qs)
	}
}

func TestClamp(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		record func(h *Histogram)
		want   int64 // microseconds, before HdrHistogram rounding
	}{
		{"negative", func(h *Histogram) { h.Record(-5 * time.Second) }, LowestMicros},
		{"zero", func(h *Histogram) { h.Record(0) }, LowestMicros},
		{"sub-microsecond", func(h *Histogram) { h.Record(999 * time.Nanosecond) }, LowestMicros},
		{"truncated", func(h *Histogram) { h.Record(2999 * time.Nanosecond) }, 2},
		{"one hour", func(h *Histogram) { h.Record(time.Hour) }, HighestMicros},
		{"two hours", func(h *Histogram) { h.Record(2 * time.Hour) }, HighestMicros},
		{"max duration", func(h *Histogram) { h.Record(math.MaxInt64) }, HighestMicros},
		{"micros negative", func(h *Histogram) { h.RecordMicros(math.MinInt64) }, LowestMicros},
		{"micros huge", func(h *Histogram) { h.RecordMicros(math.MaxInt64) }, HighestMicros},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := New()
			tt.record(h)
			if h.Count() != 1 {
				t.Fatalf("Count %d, want 1", h.Count())
			}
			if !withinPrecision(h.Max(), micros(tt.want)) || !withinPrecision(h.Min(), micros(tt.want)) {
				t.Errorf("recorded [%v, %v], want %v", h.Min(), h.Max(), micros(tt.want))
			}
		})
	}
}

func TestMerge(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		dst     *Histogram
		src     func(dst *Histogram) *Histogram
		count   int64
		wantErr error
	}{
		{"other", mustHist(t, time.Millisecond), func(*Histogram) *Histogram { return mustHist(t, time.Second, time.Minute) }, 3, nil},
		{"nil", mustHist(t, time.Millisecond), func(*Histogram) *Histogram { return nil }, 1, nil},
		{"empty", mustHist(t, time.Millisecond), func(*Histogram) *Histogram { return New() }, 1, nil},
		{"self", mustHist(t, time.Millisecond, time.Second), func(dst *Histogram) *Histogram { return dst }, 4, nil},
		{
			"config mismatch", mustHist(t, time.Millisecond),
			func(*Histogram) *Histogram { return &Histogram{h: hdrhistogram.New(1, 1000, 2)} },
			1, ErrConfigMismatch,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.dst.Merge(tt.src(tt.dst))
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Merge error %v, want %v", err, tt.wantErr)
			}
			if got := tt.dst.Count(); got != tt.count {
				t.Errorf("Count %d, want %d", got, tt.count)
			}
		})
	}
}

func TestReset(t *testing.T) {
	t.Parallel()
	h := mustHist(t, time.Millisecond, time.Hour)
	h.Reset()
	if h.Count() != 0 || h.Max() != 0 || h.Percentile(99) != 0 {
		t.Errorf("after Reset: count %d, max %v, p99 %v", h.Count(), h.Max(), h.Percentile(99))
	}
	h.Record(3 * time.Millisecond)
	if h.Count() != 1 || !withinPrecision(h.Max(), 3*time.Millisecond) {
		t.Errorf("record after Reset: count %d, max %v", h.Count(), h.Max())
	}
}

func TestRecordDoesNotAllocate(t *testing.T) {
	h := New()
	d := 1234 * time.Microsecond
	allocs := testing.AllocsPerRun(1000, func() {
		h.Record(d)
		h.RecordMicros(-1)
		h.Record(2 * time.Hour)
	})
	if allocs != 0 {
		t.Errorf("Record allocates %v times per call, want 0", allocs)
	}
}

func BenchmarkRecord(b *testing.B) {
	h := New()
	b.ReportAllocs()
	var d time.Duration
	for b.Loop() {
		d = (d + 7919*time.Microsecond) % (10 * time.Second)
		h.Record(d)
	}
}

func BenchmarkPercentiles(b *testing.B) {
	h := New()
	for i := range 100_000 {
		h.Record(time.Duration(i%5000) * time.Millisecond / 7)
	}
	ps := []float64{50, 75, 90, 99, 99.9}
	b.ReportAllocs()
	for b.Loop() {
		_ = h.Percentiles(ps)
	}
}

func TestBins(t *testing.T) {
	t.Parallel()
	h := New()
	for _, us := range []int64{5000, 5000, 5001, 20000} {
		h.RecordMicros(us)
	}
	bins := h.Bins()
	var n int64
	for i, b := range bins {
		n += b.Count
		if b.Lo > b.Hi || (i > 0 && bins[i-1].Hi >= b.Lo) {
			t.Errorf("bin %d %+v out of order", i, b)
		}
	}
	if n != 4 || bins[len(bins)-1].Hi != h.Max().Microseconds() {
		t.Errorf("bins %+v: count %d, want 4 ending at the max %v", bins, n, h.Max())
	}
}
