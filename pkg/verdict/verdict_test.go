package verdict

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/pkg/hist"
)

func TestCompareTooShort(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	long := sim{qps: 50, seconds: 12, scale: 1}.run(rng)
	short := sim{qps: 50, seconds: 9, scale: 1}.run(rng)
	tests := []struct {
		name      string
		run, base []Second
		warmup    int
	}{
		{"short run", short, long, 0},
		{"short baseline", long, short, 0},
		{"warm-up leaves too few", long, long, 3},
		{"no seconds", nil, long, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Compare(tt.run, tt.base, Options{Warmup: tt.warmup, Resamples: 100})
			if !errors.Is(err, ErrTooShort) {
				t.Fatalf("Compare: %v, want ErrTooShort", err)
			}
		})
	}
}

func TestCompareBadOptions(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	s := sim{qps: 20, seconds: 10, scale: 1}.run(rng)
	for _, o := range []Options{{Percentiles: []float64{101}}, {Resamples: 5}, {Warmup: -1}} {
		if _, err := Compare(s, s, o); err == nil || errors.Is(err, ErrTooShort) {
			t.Errorf("Compare with %+v: %v, want an options error", o, err)
		}
	}
}

// TestPointsMatchHist checks the point estimates against pkg/hist on the
// merged histograms and the counts.
func TestPointsMatchHist(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	run := sim{qps: 100, seconds: 10, scale: 1.2, errRate: 0.02}.run(rng)
	base := sim{qps: 100, seconds: 10, scale: 1, errRate: 0.01}.run(rng)
	c := mustCompare(t, run, base, Options{Resamples: 200})
	merge := func(s []Second) (*hist.Histogram, int64, int64) {
		h := hist.New()
		var n, e int64
		for _, sec := range s {
			if err := h.Merge(sec.Latency); err != nil {
				t.Fatal(err)
			}
			n, e = n+sec.Count, e+sec.Errors
		}
		return h, n, e
	}
	rh, rn, re := merge(run)
	bh, bn, be := merge(base)
	for _, p := range []float64{50, 90, 99, 99.9} {
		e := mustFind(t, c, "p("+formatP(p)+")")
		if want := float64(rh.Percentile(p).Microseconds()); e.Run != want {
			t.Errorf("run p%v = %v, want %v", p, e.Run, want)
		}
		if want := float64(bh.Percentile(p).Microseconds()); e.Base != want {
			t.Errorf("base p%v = %v, want %v", p, e.Base, want)
		}
	}
	er := mustFind(t, c, ErrorRate)
	if er.Run != float64(re)/float64(rn) || er.Base != float64(be)/float64(bn) {
		t.Errorf("error rates %v, %v; want %v, %v", er.Run, er.Base, float64(re)/float64(rn), float64(be)/float64(bn))
	}
	if q := mustFind(t, c, QPS); q.Run != 100 || q.Base != 100 {
		t.Errorf("qps %v, %v; want 100, 100", q.Run, q.Base)
	}
	if c.RunSeconds != 10 || c.Block != 3 {
		t.Errorf("seconds %d, block %d; want 10, 3", c.RunSeconds, c.Block)
	}
}

// TestRatioInterval checks that a +20 % run's p50 interval holds the true
// ratio and excludes 1, and that the error-rate ratio is undefined with no
// baseline errors while its margin is not.
func TestRatioInterval(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 8))
	run := sim{qps: 200, seconds: 20, scale: 1.2}.run(rng)
	base := sim{qps: 200, seconds: 20, scale: 1}.run(rng)
	c := mustCompare(t, run, base, Options{})
	iv, ok := mustFind(t, c, "p(50)").Ratio(0.95)
	if !ok || iv.Low > 1.2 || iv.High < 1.2 || iv.Low <= 1 {
		t.Errorf("p50 ratio %+v (ok %v), want an interval around 1.2 above 1", iv, ok)
	}
	if iv.Low > iv.Point || iv.High < iv.Point {
		t.Errorf("p50 ratio %+v: point outside its interval", iv)
	}
	er := mustFind(t, c, ErrorRate)
	if _, ok := er.Ratio(0.95); ok {
		t.Error("error-rate ratio defined with no baseline errors")
	}
	if m := er.Margin(1, 0.95); m.Point != 0 || m.Low != 0 || m.High != 0 {
		t.Errorf("error-rate margin %+v, want 0", m)
	}
	if l := er.Longer(1, 0.95); !math.IsInf(l, 1) {
		t.Errorf("Longer with no difference = %v, want +Inf", l)
	}
	if l := mustFind(t, c, "p(50)").Longer(1, 0.95); l != 1 {
		t.Errorf("Longer of a resolved difference = %v, want 1", l)
	}
}

// TestReproducible checks that one seed gives one answer and that the
// interval barely moves with another seed.
func TestReproducible(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(9, 10))
	run := sim{qps: 100, seconds: 15, scale: 1.05}.run(rng)
	base := sim{qps: 100, seconds: 15, scale: 1}.run(rng)
	a, _ := mustFind(t, mustCompare(t, run, base, Options{}), "p(90)").Ratio(0.95)
	b, _ := mustFind(t, mustCompare(t, run, base, Options{}), "p(90)").Ratio(0.95)
	if a != b {
		t.Fatalf("same seed: %+v then %+v", a, b)
	}
	c, _ := mustFind(t, mustCompare(t, run, base, Options{Seed: 77}), "p(90)").Ratio(0.95)
	if math.Abs(c.Low-a.Low) > 0.01 || math.Abs(c.High-a.High) > 0.01 {
		t.Errorf("seed 77 %+v, default %+v: bounds moved by more than 0.01", c, a)
	}
}

// TestLonger checks the 1/sqrt(seconds) rule on a margin with a known
// spread.
func TestLonger(t *testing.T) {
	t.Parallel()
	e := Estimate{Run: 1.05, Base: 1, runB: make([]float64, 1001), baseB: make([]float64, 1001)}
	for i := range e.runB { // replicates spread evenly over 0.95..1.15
		e.runB[i], e.baseB[i] = 0.95+0.2*float64(i)/1000, 1
	}
	m := e.Margin(1, 0.95)
	if math.Abs(m.Low-(-0.045)) > 1e-9 || math.Abs(m.High-0.145) > 1e-9 {
		t.Fatalf("margin %+v, want -0.045..0.145", m)
	}
	// half width 0.095 against a point of 0.05: (0.095/0.05)^2 = 3.61
	if l := e.Longer(1, 0.95); math.Abs(l-3.61) > 1e-9 {
		t.Errorf("Longer = %v, want 3.61", l)
	}
	// Lopsided: replicates over 0.99..1.19 put the low bound at -0.005,
	// 0.055 below the point of 0.05: (0.055/0.05)^2 = 1.21, not the
	// symmetric half width's 3.61.
	for i := range e.runB {
		e.runB[i] = 0.99 + 0.2*float64(i)/1000
	}
	if l := e.Longer(1, 0.95); math.Abs(l-1.21) > 1e-9 {
		t.Errorf("lopsided: Longer = %v, want 1.21", l)
	}
}

func TestTrailingPartialSecond(t *testing.T) {
	t.Parallel()
	h := hist.New()
	h.Record(time.Millisecond)
	s := make([]Second, 12)
	for i := range s {
		s[i] = Second{Count: 100, Latency: h}
	}
	s[11].Count = 40
	if got := len(measured(s, 1)); got != 10 {
		t.Errorf("measured %d seconds, want 10 (1 warm-up, 1 partial dropped)", got)
	}
}

// TestLongRunUnits checks that a run longer than MaxUnits seconds is
// resampled in MaxUnits units and still estimates its ratio.
func TestLongRunUnits(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(15, 16))
	run := sim{qps: 20, seconds: 250, scale: 1.2}.run(rng)
	base := sim{qps: 20, seconds: 250, scale: 1}.run(rng)
	c := mustCompare(t, run, base, Options{Resamples: 300, Percentiles: []float64{50}})
	if c.RunSeconds != 250 || c.Block != BlockLength(MaxUnits) {
		t.Errorf("seconds %d block %d; want 250 and %d units", c.RunSeconds, c.Block, BlockLength(MaxUnits))
	}
	iv, ok := mustFind(t, c, "p(50)").Ratio(0.95)
	if !ok || iv.Low > 1.2 || iv.High < 1.2 || iv.Low <= 1 {
		t.Errorf("p50 ratio %+v, want an interval around 1.2 above 1", iv)
	}
	if q := mustFind(t, c, QPS); q.Run != 20 {
		t.Errorf("qps %v, want 20", q.Run)
	}
}

// TestSparseMatchesDense checks that units kept sparse (a comparison too
// large for dense ones) give the same figures as dense units, on the
// whole runs and on resamples.
func TestSparseMatchesDense(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(17, 18))
	s := sim{qps: 100, seconds: 12, scale: 1, errRate: 0.01, echo: true}.run(rng)
	bins := binsOf(s)
	values, index := valueIndex(bins)
	sparse, dense := prepare(s, bins, index, 0, 0), prepare(s, bins, index, 0, 1<<30)
	if sparse.units[0].dense != nil || dense.units[0].dense == nil {
		t.Fatal("prepare did not keep the units sparse with limit 0 and dense with a large one")
	}
	metrics := []Metric{{"p(0)", 0}, {"p(50)", 50}, {"p(90)", 90}, {"p(99.9)", 99.9}, {"p(100)", 100}, {ErrorRate, -1}, {QPS, -1}}
	a, b := make([]float64, len(metrics)), make([]float64, len(metrics))
	d := sparse.all()
	for k := range 300 {
		if k > 0 {
			sparse.resample(rng, &d)
		}
		sparse.stats(d, values, metrics, a)
		dense.stats(d, values, metrics, b)
		if !slices.Equal(a, b) {
			t.Fatalf("draw %d: sparse %v, dense %v", k, a, b)
		}
	}
}

// TestWidening checks Student's t quantiles against the tables and the
// widening of 10 s and 60 s runs.
func TestWidening(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ q, nu, want float64 }{
		{0.975, 1, 12.706}, {0.975, 2, 4.303}, {0.975, 4, 2.776}, {0.975, 14, 2.145}, {0.95, 10, 1.812}, {0.975, 1e6, 1.960},
	} {
		if got := tQuantile(c.q, c.nu); math.Abs(got-c.want) > 0.001 {
			t.Errorf("t(%v, %v df) = %.4f, want %.3f", c.q, c.nu, got, c.want)
		}
	}
	for _, c := range []struct{ b, want float64 }{{10.0 / 3, 2.30}, {15, 1.13}} {
		if got := widening(c.b, 0.95); math.Abs(got-c.want) > 0.01 {
			t.Errorf("widening(%.2f blocks) = %.3f, want %.2f", c.b, got, c.want)
		}
	}
}
