package threshold

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/pkg/hist"
)

// seconds returns n seconds of 200 requests each, answered in 5 ms times
// scale times a per-second jitter of about ±2 %, errors of them failing.
func seconds(rng *rand.Rand, n int, scale float64, errors int64) []Second {
	out := make([]Second, n)
	for i := range out {
		h := hist.New()
		level := 1 + 0.02*rng.NormFloat64()
		for range 200 {
			d := (5*time.Millisecond + time.Duration(rng.ExpFloat64()*float64(300*time.Microsecond)))
			h.Record(time.Duration(float64(d) * scale * level))
		}
		out[i] = Second{Count: 200, Errors: errors, Response: h, Service: h}
	}
	return out
}

func observed(s []Second) Observed {
	obs := Observed{Primary: Response, Seconds: s, Response: hist.New()}
	for _, sec := range s {
		obs.Count += sec.Count
		obs.Errors += sec.Errors
		_ = obs.Response.Merge(sec.Response)
	}
	obs.QPS = float64(obs.Count) / float64(len(s))
	return obs
}

func TestEvalConfidence(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(11, 12))
	base := observed(seconds(rng, 20, 1, 0))
	same := observed(seconds(rng, 20, 1, 0))
	slower := observed(seconds(rng, 20, 1.30, 0))
	slight := observed(seconds(rng, 10, 1.015, 0))
	short := observed(seconds(rng, 9, 1, 0))
	erring := observed(seconds(rng, 20, 1, 4))
	tests := []struct {
		name         string
		expr         string
		run, base    Observed
		pass, unsure bool
		note         string
	}{
		{"same build passes a 10 % allowance", "p(50) < baseline * 1.10 @ 95%", same, base, true, false, ""},
		{"30 % slower fails", "p(50) < baseline * 1.10 @ 95%", slower, base, false, false, ""},
		{"30 % slower passes a 50 % allowance", "p(90) < baseline * 1.5 @ 95%", slower, base, true, false, ""},
		{"1.5 % slower at 10 s is inconclusive", "p(50) < baseline @ 95%", slight, base, false, true, "longer to tell"},
		{"too short is inconclusive", "p(99) < baseline * 1.10 @ 95%", short, base, false, true, "the run has 9 measured seconds"},
		{"not comparable is inconclusive", "p(99) < baseline * 1.10 @ 95%", same, Observed{NotComparable: "the baseline ran at 100 qps"}, false, true, "100 qps"},
		{"errors appear", "error_rate < baseline @ 95%", erring, base, false, false, ""},
		{"no errors on either", "error_rate <= baseline @ 95%", same, base, true, false, ""},
		{"qps held", "qps >= baseline * 0.99 @ 95%", same, base, true, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o := mustParse(t, tt.expr).Eval(tt.run, &tt.base)
			if o.Error != "" || o.Pass != tt.pass || o.Inconclusive != tt.unsure || !strings.Contains(o.Note, tt.note) {
				t.Fatalf("%s: %+v (estimate %+v), want pass %v inconclusive %v note %q", tt.expr, o, o.Estimate, tt.pass, tt.unsure, tt.note)
			}
			if x := o.Estimate; x != nil && !tt.unsure && x.Longer != 1 {
				t.Errorf("resolved outcome with Longer %v", x.Longer)
			}
		})
	}
}

// TestEvalConfidenceInterval checks the ratio an outcome reports on a run
// 30 % slower.
func TestEvalConfidenceInterval(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(13, 14))
	base, run := observed(seconds(rng, 15, 1, 0)), observed(seconds(rng, 15, 1.3, 0))
	o := mustParse(t, "p(50) < baseline * 1.10 @ 95%").Eval(run, &base)
	x := o.Estimate
	if x == nil || x.RatioLow > 1.3 || x.RatioHigh < 1.3 || x.RatioLow < 1.2 || x.Seconds != 15 || x.Confidence != 95 {
		t.Fatalf("estimate %+v, want a ratio interval around 1.3 over 15 seconds", x)
	}
	if o.Observed != float64(run.Response.Percentile(50).Microseconds()) || x.MarginLow <= 0 {
		t.Errorf("observed %v margin %v..%v", o.Observed, x.MarginLow, x.MarginHigh)
	}
}

func TestNeedsSeconds(t *testing.T) {
	t.Parallel()
	if NeedsSeconds([]string{"p(99) < baseline * 1.1", "nonsense"}) {
		t.Error("plain forms need no seconds")
	}
	if !NeedsSeconds([]string{"p(99) < 1s", "p(99) < baseline @ 95%"}) {
		t.Error("a confidence form needs seconds")
	}
}

func TestStatement(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		o    Outcome
		want string
	}{
		{"regression", Outcome{Metric: "response.p(99)", Estimate: &Estimate{Confidence: 95, Ratio: 1.12, RatioLow: 1.07, RatioHigh: 1.17}},
			"p(99) +12.0 % (95 % CI +7.0 % to +17.0 %): regression"},
		{"pass", Outcome{Metric: "qps", Pass: true, Estimate: &Estimate{Confidence: 90, Ratio: 0.995, RatioLow: 0.99, RatioHigh: 1.001}},
			"qps -0.5 % (90 % CI -1.0 % to +0.1 %): pass"},
		{"inconclusive", Outcome{Metric: "p(50)", Inconclusive: true, Note: "run about 3.2× longer to tell",
			Estimate: &Estimate{Confidence: 95, Ratio: 1.04, RatioLow: 0.98, RatioHigh: 1.11}},
			"p(50) +4.0 % (95 % CI -2.0 % to +11.0 %): inconclusive, run about 3.2× longer to tell"},
		{"no baseline errors", Outcome{Metric: "error_rate", Unit: Ratio, Observed: 0.002, Estimate: &Estimate{Confidence: 95, MarginLow: 0.001, MarginHigh: 0.003}},
			"error_rate 0.2% against 0% (95 % CI of the excess +0.1% to +0.3%): regression"},
		{"plain form", Outcome{Metric: "p(50)", Pass: true}, ""},
	}
	for _, tt := range tests {
		if got := tt.o.Statement(); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}
