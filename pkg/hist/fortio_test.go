package hist

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestFortioBoundaries(t *testing.T) {
	t.Parallel()
	b := fortioBoundaries()
	for i := 1; i < len(b); i++ {
		if b[i] <= b[i-1] {
			t.Fatalf("boundary %d (%d) not above the previous (%d)", i, b[i], b[i-1])
		}
	}
	if b[0] <= LowestMicros || b[len(b)-1] >= HighestMicros {
		t.Errorf("boundaries %d..%d not inside the trackable range", b[0], b[len(b)-1])
	}
}

func TestFortioBuckets(t *testing.T) {
	t.Parallel()
	us := time.Microsecond
	ms := time.Millisecond
	tests := []struct {
		name string
		in   []time.Duration
		want []FortioBucket
	}{
		{"empty", nil, []FortioBucket{}},
		{"one value", []time.Duration{1500 * us}, []FortioBucket{
			{Start: 0.0015, End: 0.0015, Percent: 100, Count: 1},
		}},
		{"boundary is inclusive", []time.Duration{100 * us, 101 * us}, []FortioBucket{
			{Start: 0.0001, End: 0.0001, Percent: 50, Count: 1},
			{Start: 0.0001, End: 0.000101, Percent: 100, Count: 1},
		}},
		{"spread", []time.Duration{5 * us, 150 * us, 150 * us, 1500 * us, 13 * ms, 13 * ms, 13 * ms, 13 * ms, 2 * time.Hour}, []FortioBucket{
			{Start: 0.000005, End: 0.00001, Percent: 100.0 / 9, Count: 1},
			{Start: 0.0001, End: 0.0002, Percent: 300.0 / 9, Count: 2},
			{Start: 0.001, End: 0.002, Percent: 400.0 / 9, Count: 1},
			{Start: 0.012, End: 0.014, Percent: 800.0 / 9, Count: 4},
			{Start: 1800, End: 3600.5, Percent: 100, Count: 1},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := mustHist(t, tt.in...).Fortio(nil).Data
			if len(got) != len(tt.want) {
				t.Fatalf("got %d buckets %+v, want %d %+v", len(got), got, len(tt.want), tt.want)
			}
			for i := range got {
				g, w := got[i], tt.want[i]
				// The top bucket's End is 1 h's highest equivalent value.
				if g.Count != w.Count || !near(g.Start, w.Start) || !near(g.End, w.End) || !near(g.Percent, w.Percent) {
					t.Errorf("bucket %d = %+v, want %+v", i, g, w)
				}
			}
		})
	}
}

// near reports whether a is b within the histogram's precision.
func near(a, b float64) bool {
	d := a - b
	if d < 0 {
		d = -d
	}
	return d <= 1e-3*max(b, -b)+1e-9
}

func TestFortioFigures(t *testing.T) {
	t.Parallel()
	h := New()
	for i := 1; i <= 100; i++ {
		h.Record(time.Duration(i) * time.Millisecond)
	}
	f := h.Fortio([]float64{50, 90, 99.9})
	want := FortioHistogram{
		Count: 100, Min: 0.001, Max: 0.1, Sum: 5.05, Avg: 0.0505, StdDev: 0.028866,
		Percentiles: []FortioPercentile{{50, 0.05}, {90, 0.09}, {99.9, 0.1}},
	}
	if f.Count != want.Count || !near(f.Min, want.Min) || !near(f.Max, want.Max) || !near(f.Sum, want.Sum) ||
		!near(f.Avg, want.Avg) || !near(f.StdDev, want.StdDev) {
		t.Errorf("figures %+v, want %+v", f, want)
	}
	for i, p := range f.Percentiles {
		if p.Percentile != want.Percentiles[i].Percentile || !near(p.Value, want.Percentiles[i].Value) {
			t.Errorf("percentile %+v, want %+v", p, want.Percentiles[i])
		}
	}
}

func TestFortioJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		h           *Histogram
		percentiles []float64
		want        string
	}{
		{
			"empty", New(), []float64{50},
			`{"Count":0,"Min":0,"Max":0,"Sum":0,"Avg":0,"StdDev":0,"Data":[]}`,
		},
		{
			"no percentiles", mustHist(t, 2*time.Millisecond), nil,
			`{"Count":1,"Min":0.002,"Max":0.002,"Sum":0.002,"Avg":0.002,"StdDev":0,` +
				`"Data":[{"Start":0.002,"End":0.002,"Percent":100,"Count":1}]}`,
		},
		{
			"percentiles", mustHist(t, 2*time.Millisecond), []float64{99.9},
			`{"Count":1,"Min":0.002,"Max":0.002,"Sum":0.002,"Avg":0.002,"StdDev":0,` +
				`"Data":[{"Start":0.002,"End":0.002,"Percent":100,"Count":1}],` +
				`"Percentiles":[{"Percentile":99.9,"Value":0.002}]}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b, err := json.Marshal(tt.h.Fortio(tt.percentiles))
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tt.want {
				t.Errorf("JSON\n%s\nwant\n%s", b, tt.want)
			}
		})
	}
}

func TestFortioFieldNames(t *testing.T) {
	t.Parallel()
	// Fortio's stats.HistogramData, Bucket (Interval flattened) and Percentile.
	tests := []struct {
		v    any
		want string
	}{
		{FortioHistogram{}, "Count Min Max Sum Avg StdDev Data Percentiles"},
		{FortioBucket{}, "Start End Percent Count"},
		{FortioPercentile{}, "Percentile Value"},
	}
	for _, tt := range tests {
		typ := reflect.TypeOf(tt.v)
		var names []string
		for i := range typ.NumField() {
			names = append(names, typ.Field(i).Name)
		}
		if got := strings.Join(names, " "); got != tt.want {
			t.Errorf("%s fields %q, want %q", typ.Name(), got, tt.want)
		}
	}
}

func BenchmarkFortio(b *testing.B) {
	h := New()
	for i := range 100_000 {
		h.Record(time.Duration(i) * 37 * time.Microsecond)
	}
	ps := []float64{50, 75, 90, 99, 99.9}
	b.ReportAllocs()
	for b.Loop() {
		_ = h.Fortio(ps)
	}
}
