package hist

import (
	"bytes"
	"math"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// propPercentiles are the percentiles every property compares.
func propPercentiles() []float64 {
	return []float64{0, 1, 10, 50, 75, 90, 99, 99.9, 99.99, 100}
}

// latencyGen draws latencies spread over every order of magnitude of the
// trackable range, with out-of-range values (negative, zero, sub-µs, over
// 1 h) mixed in to exercise clamping.
func latencyGen() *rapid.Generator[time.Duration] {
	logUniform := rapid.Custom(func(t *rapid.T) time.Duration {
		exp := rapid.IntRange(0, 31).Draw(t, "exp")
		lo := int64(1) << exp
		us := rapid.Int64Range(lo, min(2*lo-1, HighestMicros)).Draw(t, "us")
		ns := rapid.Int64Range(0, 999).Draw(t, "ns")
		return time.Duration(us)*time.Microsecond + time.Duration(ns)
	})
	edges := rapid.SampledFrom([]time.Duration{
		math.MinInt64, -time.Second, 0, 1, 999, time.Microsecond,
		time.Hour, time.Hour + time.Nanosecond, 2 * time.Hour, math.MaxInt64,
	})
	return rapid.OneOf(logUniform, logUniform, logUniform, edges)
}

// figures is every summary a Histogram reports (Mean and StdDev derive
// from MeanMicros and StdDevMicros, which the Duration forms round).
type figures struct {
	Count       int64
	Min, Max    time.Duration
	MeanUs      float64
	StdDevUs    float64
	Percentiles []Quantile
}

func figuresOf(h *Histogram) figures {
	return figures{
		Count: h.Count(), Min: h.Min(), Max: h.Max(),
		MeanUs: h.MeanMicros(), StdDevUs: h.StdDevMicros(),
		Percentiles: h.Percentiles(propPercentiles()),
	}
}

func (f figures) equal(g figures) bool {
	if f.Count != g.Count || f.Min != g.Min || f.Max != g.Max || f.MeanUs != g.MeanUs || f.StdDevUs != g.StdDevUs || len(f.Percentiles) != len(g.Percentiles) {
		return false
	}
	for i := range f.Percentiles {
		if f.Percentiles[i] != g.Percentiles[i] {
			return false
		}
	}
	return true
}

func TestPropMergeEqualsRecordingAll(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		k := rapid.IntRange(1, 8).Draw(t, "k")
		all := New()
		merged := New()
		for i := range k {
			samples := rapid.SliceOfN(latencyGen(), 0, 200).Draw(t, "samples")
			part := New()
			for _, d := range samples {
				part.Record(d)
				all.Record(d)
			}
			if i == 0 {
				merged = part
				continue
			}
			if err := merged.Merge(part); err != nil {
				t.Fatalf("Merge: %v", err)
			}
		}
		if got, want := figuresOf(merged), figuresOf(all); !got.equal(want) {
			t.Fatalf("merged %+v\nwant   %+v", got, want)
		}
		if !bytes.Equal(mustEncode(t, merged), mustEncode(t, all)) {
			t.Fatalf("merged snapshot differs from the single histogram's")
		}
	})
}

func TestPropRoundTrip(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		h := New()
		for _, d := range rapid.SliceOfN(latencyGen(), 0, 500).Draw(t, "samples") {
			h.Record(d)
		}
		enc := mustEncode(t, h)
		got, err := Decode(enc)
		if err != nil {
			t.Fatalf("Decode: %v", err)
		}
		if g, w := figuresOf(got), figuresOf(h); !g.equal(w) {
			t.Fatalf("decoded %+v\nwant    %+v", g, w)
		}
		if again := mustEncode(t, got); !bytes.Equal(again, enc) {
			t.Fatalf("re-encoding differs")
		}
	})
}

func TestPropFortioView(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		h := New()
		for _, d := range rapid.SliceOfN(latencyGen(), 1, 500).Draw(t, "samples") {
			h.Record(d)
		}
		ps := propPercentiles()
		f := h.Fortio(ps)
		checkFortioBuckets(t, h, f)
		if len(f.Percentiles) != len(ps) {
			t.Fatalf("%d percentiles, want %d", len(f.Percentiles), len(ps))
		}
		for i, p := range f.Percentiles {
			want := h.Percentile(ps[i]).Seconds()
			if p.Percentile != ps[i] || math.Abs(p.Value-want) > want*1e-3+1e-6 {
				t.Fatalf("percentile %+v, HDR says p%g = %gs", p, ps[i], want)
			}
			if p.Value < f.Data[0].Start || p.Value > f.Data[len(f.Data)-1].End {
				t.Fatalf("percentile %+v outside the buckets' [%g, %g]", p, f.Data[0].Start, f.Data[len(f.Data)-1].End)
			}
		}
	})
}

// checkFortioBuckets checks the bucket invariants of a non-empty view.
func checkFortioBuckets(t *rapid.T, h *Histogram, f FortioHistogram) {
	if len(f.Data) == 0 || len(f.Data) > fortioBoundaryCount+1 {
		t.Fatalf("%d buckets", len(f.Data))
	}
	if f.Data[0].Start != f.Min || !sameSeconds(f.Min, h.Min()) {
		t.Fatalf("first Start %g, Min %g, HDR min %v", f.Data[0].Start, f.Min, h.Min())
	}
	last := f.Data[len(f.Data)-1]
	if last.End != f.Max || !sameSeconds(f.Max, h.Max()) || last.Percent != 100 {
		t.Fatalf("last bucket %+v, Max %g, HDR max %v", last, f.Max, h.Max())
	}
	var sum int64
	for i, b := range f.Data {
		sum += b.Count
		if b.Count <= 0 || b.Start > b.End {
			t.Fatalf("bucket %d = %+v", i, b)
		}
		if i > 0 && (b.Start < f.Data[i-1].End || b.Percent <= f.Data[i-1].Percent) {
			t.Fatalf("bucket %d = %+v does not follow %+v", i, b, f.Data[i-1])
		}
		if want := 100 * float64(sum) / float64(h.Count()); math.Abs(b.Percent-want) > 1e-9 {
			t.Fatalf("bucket %d Percent %g, want %g", i, b.Percent, want)
		}
	}
	if sum != h.Count() || f.Count != h.Count() {
		t.Fatalf("bucket counts sum to %d, Count %d, HDR count %d", sum, f.Count, h.Count())
	}
}

// sameSeconds reports whether s is d in seconds, up to float rounding.
func sameSeconds(s float64, d time.Duration) bool {
	return math.Abs(s-d.Seconds()) <= 1e-12*max(1, math.Abs(s))
}

func TestPropDistributionMatchesLibrary(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		h := New()
		for _, d := range rapid.SliceOfN(latencyGen(), 0, 300).Draw(t, "samples") {
			h.Record(d)
		}
		var want []bin
		for i, b := range h.h.Distribution() {
			if b.Count != 0 {
				want = append(want, bin{slot: i, lo: b.From, hi: b.To, count: b.Count})
			}
		}
		got := h.distribution().bins
		if len(got) != len(want) {
			t.Fatalf("%d bins, library %d", len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("bin %d = %+v, library %+v", i, got[i], want[i])
			}
		}
	})
}
