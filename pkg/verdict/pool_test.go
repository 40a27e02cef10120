package verdict

import (
	"errors"
	"math/rand/v2"
	"testing"
)

// TestPoolTrims checks that Pool leaves out each run's warm-up and its
// trailing partial second, and keeps the runs' order.
func TestPoolTrims(t *testing.T) {
	t.Parallel()
	secs := func(counts ...int64) []Second {
		out := make([]Second, len(counts))
		for i, c := range counts {
			out[i] = Second{Count: c}
		}
		return out
	}
	got := Pool([]Part{
		{Seconds: secs(1, 2, 100, 101, 102, 10), Warmup: 2}, // warm-up 2, last second partial
		{Seconds: secs(200, 201, 202)},
		{Seconds: secs(5), Warmup: 3}, // nothing measured
	})
	want := []int64{100, 101, 102, 200, 201, 202}
	if len(got) != len(want) {
		t.Fatalf("pooled %d seconds, want %d", len(got), len(want))
	}
	for i, w := range want {
		if got[i].Count != w {
			t.Errorf("second %d counted %d, want %d", i, got[i].Count, w)
		}
	}
}

// TestPooledBaseline compares seeded simulated runs with the pooled
// seconds of 5 alike baseline runs: the point estimate is that of the
// merged runs, the interval is narrower than against one baseline run
// and still covers 1 (A/A), a +15 % run is a regression against it, and
// baseline runs whose levels differ widen it.
func TestPooledBaseline(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(31, 32))
	run := sim{qps: 200, seconds: 12, scale: 1}.run(rng)
	slower := sim{qps: 200, seconds: 12, scale: 1.15}.run(rng)
	alike := make([]Part, 5)
	for i := range alike {
		alike[i] = Part{Seconds: sim{qps: 200, seconds: 12, scale: 1}.run(rng), Warmup: 1}
	}
	varied := make([]Part, 5)
	for i := range varied {
		varied[i] = Part{Seconds: sim{qps: 200, seconds: 12, scale: []float64{0.85, 1.15, 0.9, 1.1, 1}[i]}.run(rng), Warmup: 1}
	}
	o := Options{Percentiles: []float64{90}, Warmup: 1}
	pooled := o
	pooled.BasePooled = true
	width := func(c Comparison) (Interval, float64) {
		t.Helper()
		iv, ok := mustFind(t, c, "p(90)").Ratio(0.95)
		if !ok {
			t.Fatal("no ratio")
		}
		return iv, iv.High - iv.Low
	}
	c := mustCompare(t, run, Pool(alike), pooled)
	if c.BaseSeconds != 5*11 {
		t.Errorf("pooled baseline has %d measured seconds, want 55", c.BaseSeconds)
	}
	aa, wPooled := width(c)
	_, wOne := width(mustCompare(t, run, alike[0].Seconds, o))
	if aa.Low > 1 || aa.High < 1 || wPooled >= wOne {
		t.Errorf("A/A against 5 pooled runs: %+v (width %.3f), want it to cover 1 and be narrower than against one run (%.3f)",
			aa, wPooled, wOne)
	}
	if ab, _ := width(mustCompare(t, slower, Pool(alike), pooled)); ab.Low <= 1 {
		t.Errorf("+15 %% against 5 pooled runs: %+v, want the interval above 1", ab)
	}
	if _, wVaried := width(mustCompare(t, run, Pool(varied), pooled)); wVaried <= wPooled {
		t.Errorf("baseline runs at levels 0.85 to 1.15: width %.3f, want wider than alike runs' %.3f", wVaried, wPooled)
	}
}

// TestPooledTooShort reports a pooled baseline with too few measured
// seconds.
func TestPooledTooShort(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	run := sim{qps: 50, seconds: 12, scale: 1}.run(rng)
	base := Pool([]Part{{Seconds: sim{qps: 50, seconds: 5, scale: 1}.run(rng)}, {Seconds: sim{qps: 50, seconds: 4, scale: 1}.run(rng)}})
	if _, err := Compare(run, base, Options{BasePooled: true, Resamples: 100}); !errors.Is(err, ErrTooShort) {
		t.Errorf("Compare: %v, want ErrTooShort", err)
	}
}
