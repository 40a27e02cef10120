package changepoint

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// series returns n values around level with multiplicative noise of sd
// sigma on the log scale, times step from index at on (at < 0: no step),
// and, with outlierEvery above 0, one value in every outlierEvery 1.6
// times higher (a run that met a busy host), the first time two in a row.
func series(seed uint64, n int, level, sigma float64, at int, step float64, outlierEvery int) []float64 {
	rng := rand.New(rand.NewPCG(seed, seed+1))
	out := make([]float64, n)
	for i := range out {
		v := level * math.Exp(sigma*rng.NormFloat64())
		if at >= 0 && i >= at {
			v *= step
		}
		if k := outlierEvery / 2; outlierEvery > 0 && (i%outlierEvery == k || i == k+1) {
			v *= 1.6
		}
		out[i] = v
	}
	return out
}

// TestStepFound finds a step at its index, with its levels, for rises and
// falls of several sizes and series lengths.
func TestStepFound(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		n, at int
		step  float64
		sigma float64
	}{
		{name: "p99 +18 % at run 25 of 40", n: 40, at: 25, step: 1.18, sigma: 0.04},
		{name: "+30 % at run 12 of 60, noisier", n: 60, at: 12, step: 1.30, sigma: 0.06},
		{name: "-20 % at run 90 of 200", n: 200, at: 90, step: 0.80, sigma: 0.05},
		{name: "+50 % three runs before the end", n: 30, at: 27, step: 1.5, sigma: 0.04},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			offByOne := 0
			defer func() {
				if offByOne > 2 {
					t.Errorf("%d of 20 seeds put the step one run off, want at most 2", offByOne)
				}
			}()
			for seed := range uint64(20) {
				xs := series(seed, tt.n, 2000, tt.sigma, tt.at, tt.step, 0)
				got, err := Detect(xs, Options{})
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != 1 || got[0].Index < tt.at-1 || got[0].Index > tt.at+1 {
					t.Fatalf("seed %d: changes %+v, want one at %d", seed, got, tt.at)
				}
				if got[0].Index != tt.at {
					offByOne++
				}
				// The levels are medians: within 4 of their standard errors
				// (1.25 times a mean's) of the truth.
				se := 1.25 * tt.sigma * math.Sqrt(1/float64(tt.at)+1/float64(tt.n-tt.at))
				if c := math.Log1p(got[0].Change()); math.Abs(c-math.Log(tt.step)) > 4*se {
					t.Errorf("seed %d: change %.3f, want %.2f (log within %.3f)", seed, got[0].Change(), tt.step-1, 4*se)
				}
				if b := math.Log(got[0].Before / 2000); math.Abs(b) > 4*1.25*tt.sigma/math.Sqrt(float64(tt.at)) {
					t.Errorf("seed %d: level before %.0f, want about 2000", seed, b)
				}
			}
		})
	}
}

// TestFlatSeries finds no change in flat noisy series, with and without
// outliers, at the default penalty: 200 seeded series each.
func TestFlatSeries(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		n            int
		sigma        float64
		outlierEvery int
	}{
		{name: "40 runs, 5 % noise", n: 40, sigma: 0.05},
		{name: "200 runs, 8 % noise", n: 200, sigma: 0.08},
		{name: "60 runs, 5 % noise, one run in 12 60 % slower, two in a row once", n: 60, sigma: 0.05, outlierEvery: 12},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			found := 0
			for seed := range uint64(200) {
				got, err := Detect(series(1000+seed, tt.n, 5000, tt.sigma, -1, 1, tt.outlierEvery), Options{})
				if err != nil {
					t.Fatal(err)
				}
				found += len(got)
			}
			if found != 0 {
				t.Errorf("%d changes in 200 flat series, want none", found)
			}
		})
	}
}

// TestTwoSteps finds both changes of a rise that is later undone.
func TestTwoSteps(t *testing.T) {
	t.Parallel()
	xs := series(7, 60, 1000, 0.03, 20, 1.25, 0)
	for i := 40; i < 60; i++ {
		xs[i] /= 1.25
	}
	got, err := Detect(xs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Index != 20 || got[1].Index != 40 || got[0].Change() < 0.15 || got[1].Change() > -0.12 {
		t.Fatalf("changes %+v, want a rise at 20 and a fall at 40", got)
	}
}

// TestSmallChangesMerged drops a real but small change under MinChange,
// and keeps it when asked for every change.
func TestSmallChangesMerged(t *testing.T) {
	t.Parallel()
	xs := series(3, 80, 1000, 0.005, 40, 1.03, 0) // +3 %, ten times the noise
	if got, err := Detect(xs, Options{}); err != nil || len(got) != 0 {
		t.Errorf("default options: %+v %v, want no change under 5 %%", got, err)
	}
	if got, err := Detect(xs, Options{MinChange: -1}); err != nil || len(got) != 1 || got[0].Index != 40 {
		t.Errorf("every change: %+v %v, want one at 40", got, err)
	}
}

// TestEdges covers short, constant and bad series.
func TestEdges(t *testing.T) {
	t.Parallel()
	if got, err := Detect([]float64{1, 1, 1, 9, 9}, Options{}); err != nil || got != nil {
		t.Errorf("5 values: %+v %v, want none (two segments need 6)", got, err)
	}
	if got, err := Detect([]float64{10, 10, 10, 10, 20, 20, 20, 20}, Options{}); err != nil || len(got) != 1 || got[0].Index != 4 ||
		math.Abs(got[0].Before-10) > 1e-9 || math.Abs(got[0].After-20) > 1e-9 {
		t.Errorf("noiseless step: %+v %v, want 10 to 20 at 4", got, err)
	}
	if got, err := Detect([]float64{7, 7, 7, 7, 7, 7, 7}, Options{}); err != nil || len(got) != 0 {
		t.Errorf("constant: %+v %v", got, err)
	}
	for _, bad := range [][]float64{{1, 0, 1}, {1, -2}, {math.NaN()}, {math.Inf(1)}} {
		if _, err := Detect(bad, Options{}); !errors.Is(err, ErrNotPositive) {
			t.Errorf("%v: error %v, want ErrNotPositive", bad, err)
		}
	}
	if _, err := Detect([]float64{1}, Options{Penalty: -1}); err == nil {
		t.Error("a negative penalty was accepted")
	}
}

// TestNoise checks the noise estimate on a seeded normal series and that
// one step barely moves it.
func TestNoise(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(9, 10))
	xs := make([]float64, 2000)
	for i := range xs {
		xs[i] = 0.1 * rng.NormFloat64()
		if i >= 1000 {
			xs[i] += 5
		}
	}
	if got := Noise(xs); math.Abs(got-0.1) > 0.01 {
		t.Errorf("noise %.4f, want 0.1 ± 0.01", got)
	}
}

// BenchmarkDetect500 times a trend's largest series (500 runs).
func BenchmarkDetect500(b *testing.B) {
	xs := series(5, 500, 1000, 0.05, 250, 1.2, 0)
	for b.Loop() {
		if _, err := Detect(xs, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
