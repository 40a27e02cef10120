package verdict

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
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
	got, runs := Pool([]Part{
		{Seconds: secs(1, 2, 100, 101, 102, 10), Warmup: 2}, // warm-up 2, last second partial
		{Seconds: secs(200, 201, 202)},
		{Seconds: secs(5), Warmup: 3}, // nothing measured
	})
	want := []int64{100, 101, 102, 200, 201, 202}
	if !slices.Equal(runs, []int{3, 3, 0}) {
		t.Errorf("pooled runs of %v seconds, want [3 3 0]", runs)
	}
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
// seconds of 5 baseline runs. Pooled seconds alone give a narrower
// interval than one baseline run and still cover 1 (A/A); a +15 % run is
// a regression against the pool; and the runs' spread from run to run is
// estimated: near 0 for alike runs, near the 12 % standard deviation of
// the levels 0.85 to 1.15 for varied ones, whose interval it widens past
// what any length of run would narrow.
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
	// pooled compares run with parts pooled; spread false leaves out
	// the runs' boundaries, and so their spread.
	pooled := func(run []Second, parts []Part, spread bool) Estimate {
		base, runs := Pool(parts)
		po := o
		if spread {
			po.BaseRuns = runs
		} else {
			po.Warmup = 0
			run = run[1:]
		}
		c := mustCompare(t, run, base, po)
		if c.BaseSeconds != 5*11 {
			t.Errorf("pooled baseline has %d measured seconds, want 55", c.BaseSeconds)
		}
		return mustFind(t, c, "p(90)")
	}
	ratio := func(e Estimate) (Interval, float64) {
		t.Helper()
		iv, ok := e.Ratio(0.95)
		if !ok {
			t.Fatal("no ratio")
		}
		return iv, iv.High - iv.Low
	}
	aa, wPooled := ratio(pooled(run, alike, false))
	_, wOne := ratio(mustFind(t, mustCompare(t, run, alike[0].Seconds, o), "p(90)"))
	if aa.Low > 1 || aa.High < 1 || wPooled >= wOne {
		t.Errorf("A/A against 5 pooled runs' seconds: %+v (width %.3f), want it to cover 1 and be narrower than against one run (%.3f)",
			aa, wPooled, wOne)
	}
	alikeEst := pooled(run, alike, true)
	if iv, _ := ratio(alikeEst); iv.Low > 1 || iv.High < 1 {
		t.Errorf("A/A against 5 pooled runs with their spread: %+v, want it to cover 1", iv)
	}
	if tau, k := alikeEst.Spread(); k != 5 || tau > 0.03 {
		t.Errorf("alike runs: spread %.3f from %d runs, want at most 0.03 from 5", tau, k)
	}
	if ab, _ := ratio(pooled(slower, alike, true)); ab.Low <= 1 {
		t.Errorf("+15 %% against 5 pooled runs: %+v, want the interval above 1", ab)
	}
	variedEst := pooled(run, varied, true)
	if tau, k := variedEst.Spread(); k != 5 || tau < 0.08 || tau > 0.17 {
		t.Errorf("runs at levels 0.85 to 1.15: spread %.3f from %d runs, want 0.08 to 0.17 from 5", tau, k)
	}
	if _, wVaried := ratio(variedEst); wVaried <= 3*wPooled {
		t.Errorf("runs at levels 0.85 to 1.15: width %.3f, want over 3 times alike runs' pooled seconds' %.3f", wVaried, wPooled)
	}
	// No length of run tells a difference smaller than the runs' own
	// levels' spread: the run-to-run term does not shrink.
	if l := variedEst.Longer(1, 0.95); !math.IsInf(l, 1) {
		t.Errorf("runs at levels 0.85 to 1.15: longer %v, want +Inf", l)
	}
}

// TestPooledTooShort reports a pooled baseline with too few measured
// seconds.
func TestPooledTooShort(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	run := sim{qps: 50, seconds: 12, scale: 1}.run(rng)
	base, runs := Pool([]Part{{Seconds: sim{qps: 50, seconds: 5, scale: 1}.run(rng)}, {Seconds: sim{qps: 50, seconds: 4, scale: 1}.run(rng)}})
	if _, err := Compare(run, base, Options{BaseRuns: runs, Resamples: 100}); !errors.Is(err, ErrTooShort) {
		t.Errorf("Compare: %v, want ErrTooShort", err)
	}
}
