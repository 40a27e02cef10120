package threshold

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestPool checks the pooled figures and that confidence forms resample
// the pooled runs' seconds: three 6-second baselines make one of 18
// measured seconds, enough to judge where each alone is too short.
func TestPool(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(21, 22))
	parts := make([]Observed, 3)
	for i := range parts {
		parts[i] = observed(seconds(rng, 6, 1, int64(i)))
		parts[i].Codes = map[string]int64{"200": parts[i].Count - parts[i].Errors}
	}
	base, err := Pool(parts)
	if err != nil {
		t.Fatal(err)
	}
	if base.Count != 3600 || base.Errors != 6*(0+1+2) || base.Codes["200"] != 3600-18 || base.QPS != 200 ||
		base.Response.Count() != 3600 || len(base.Parts) != 3 {
		t.Fatalf("pooled count %d errors %d codes %v qps %v histogram %d parts %d", base.Count, base.Errors, base.Codes,
			base.QPS, base.Response.Count(), len(base.Parts))
	}
	if one, err := Pool(parts[:1]); err != nil || one.Parts != nil || one.Count != 1200 {
		t.Errorf("pool of one: %+v %v, want the run itself", one.Count, err)
	}
	if _, err := Pool(nil); err == nil {
		t.Error("pool of none: no error")
	}

	run := observed(seconds(rng, 12, 1.3, 0))
	e := mustParse(t, "p(50) < baseline * 1.10 @ 95%")
	if o := e.Eval(run, &parts[0]); !o.Inconclusive || !strings.Contains(o.Note, "the baseline has 6 measured seconds") {
		t.Errorf("against one 6 s run: %+v, want inconclusive for too few seconds", o)
	}
	o := e.Eval(run, &base)
	if o.Pass || o.Inconclusive || o.Estimate == nil || o.Estimate.RatioLow < 1.2 || o.Estimate.Seconds != 12 {
		t.Errorf("30 %% slower against 3 pooled runs: %+v estimate %+v, want a regression over 12 s", o, o.Estimate)
	}
	if want := base.Response.Percentile(50).Microseconds(); o.Limit != float64(want)*1.1 {
		t.Errorf("limit %v, want 1.1 × the pooled p50 %d", o.Limit, want)
	}
}
