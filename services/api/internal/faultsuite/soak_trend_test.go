//go:build soak

package faultsuite

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// TestTrendTellsLevelledFromGrowing: the last-half trend of a series that
// climbs and then stays level is within two errors of 0, while one that
// keeps growing 10 an hour from 100 shows about 9.3 %/h (of its last
// half's mean, 107.5), far above its error. The growth bar (last fifth
// against the second) fails both.
func TestTrendTellsLevelledFromGrowing(t *testing.T) {
	t.Parallel()
	const every = 10 * time.Second
	rng := rand.New(rand.NewPCG(1, 2))
	levelled, growing := &series{}, &series{}
	for i := range 360 { // one hour
		noise := rng.NormFloat64() * 4
		minutes := float64(i) / 6
		levelled.values = append(levelled.values, 100+15*math.Min(minutes/30, 1)+noise)
		growing.values = append(growing.values, 100*(1+0.10*minutes/60)+noise)
	}
	lf, gf := levelled.flatness(every), growing.flatness(every)
	if lf.verdict() != "FAIL" || gf.verdict() != "FAIL" {
		t.Fatalf("growth verdicts %s (%+.1f %%), %s (%+.1f %%), want both FAIL", lf.verdict(), lf.growthPct, gf.verdict(), gf.growthPct)
	}
	if tr := lf.trend; !tr.known || math.Abs(tr.pctPerHour) > 2*tr.errPctPerHour || tr.errPctPerHour > 3 {
		t.Errorf("levelled series: trend %v, want within two errors of 0 with an error under 3 %%/h", tr)
	}
	if tr := gf.trend; !tr.known || math.Abs(tr.pctPerHour-9.3) > 1.5 || tr.pctPerHour < 4*tr.errPctPerHour {
		t.Errorf("growing series: trend %v, want about +9.3 %%/h (10 a hour on a mean of 107.5), well above its error", tr)
	}
	if tr := trendOf([]float64{1, 2, 3}, every); tr.known {
		t.Errorf("3 samples: trend %v, want unknown", tr)
	}
	if tr := trendOf([]float64{5, 5, 5, 5, 5}, every); !tr.known || tr.pctPerHour != 0 || tr.errPctPerHour != 0 {
		t.Errorf("constant series: trend %v, want exactly 0 ± 0", tr)
	}
}
