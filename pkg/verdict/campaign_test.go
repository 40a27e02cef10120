package verdict

import (
	"math/rand/v2"
	"testing"
)

// campaign is the outcome of judging pairs of simulated runs.
type campaign struct {
	pairs int
	// confident counts the pairs whose margin interval at 95 % to the
	// baseline (factor 1) lies wholly above 0: a regression the confidence
	// form reports. plain counts the pairs where the run's figure exceeds
	// 1.10 times the baseline's: what "p(99) < baseline * 1.10" fails.
	// guarded counts the pairs where the margin interval to 1.10 times the
	// baseline lies wholly above 0: what "p(99) < baseline * 1.10 @ 95%"
	// fails.
	confident, plain, guarded map[string]int
}

// runCampaign compares pairs of runs of base and run drawn from one seed.
func runCampaign(tb testing.TB, pairs int, seed uint64, base, run sim, metrics []string) campaign {
	tb.Helper()
	rng := rand.New(rand.NewPCG(seed, seed+1))
	c := campaign{pairs: pairs, confident: map[string]int{}, plain: map[string]int{}, guarded: map[string]int{}}
	for range pairs {
		b, r := base.run(rng), run.run(rng)
		cmp := mustCompare(tb, r, b, Options{Resamples: 1000})
		for _, name := range metrics {
			e := mustFind(tb, cmp, name)
			if e.Margin(1, 0.95).Low > 0 {
				c.confident[name]++
			}
			if e.Margin(1.10, 0.95).Low > 0 {
				c.guarded[name]++
			}
			if e.Run > 1.10*e.Base {
				c.plain[name]++
			}
		}
	}
	return c
}

// TestCampaignAA is the A/A campaign on simulated runs: pairs of 10 s runs
// of the same system. The confidence form, even with no allowance (factor
// 1), must report a regression in at most 5 % of them; the plain
// threshold's rate is logged beside it.
func TestCampaignAA(t *testing.T) {
	t.Parallel()
	a := sim{qps: 200, seconds: 10, scale: 1}
	metrics := []string{"p(50)", "p(90)", "p(99)"}
	c := runCampaign(t, 100, 1, a, a, metrics)
	for _, m := range metrics {
		rate := float64(c.confident[m]) / float64(c.pairs)
		t.Logf("A/A %s: false regressions: baseline @ 95%% %d/%d, baseline*1.10 @ 95%% %d/%d, plain baseline*1.10 %d/%d",
			m, c.confident[m], c.pairs, c.guarded[m], c.pairs, c.plain[m], c.pairs)
		if rate > 0.05 {
			t.Errorf("A/A %s: false-regression rate %.2f, want at most 0.05", m, rate)
		}
	}
}

// TestCampaignAB is the A/B campaign on simulated runs: the run answers
// 10 % slower than its baseline. The confidence form must detect it in at
// least 90 % of the pairs at p50, p90 and p99, where the plain threshold
// "baseline * 1.10" misses about half of them.
func TestCampaignAB(t *testing.T) {
	t.Parallel()
	a, b := sim{qps: 200, seconds: 10, scale: 1}, sim{qps: 200, seconds: 10, scale: 1.10}
	metrics := []string{"p(50)", "p(90)", "p(99)"}
	c := runCampaign(t, 100, 2, a, b, metrics)
	for _, m := range metrics {
		t.Logf("A/B +10%% %s: confidence form detected %d/%d, plain baseline*1.10 %d/%d", m, c.confident[m], c.pairs, c.plain[m], c.pairs)
	}
	for _, m := range metrics {
		if rate := float64(c.confident[m]) / float64(c.pairs); rate < 0.90 {
			t.Errorf("A/B %s: detected in %.2f of pairs, want at least 0.90", m, rate)
		}
	}
}
