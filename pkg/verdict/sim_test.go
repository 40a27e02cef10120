package verdict

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/pkg/hist"
)

// sim simulates the per-second snapshots of a run against an echo that
// answers in 5 ms 50 times out of 51 and in 20 ms otherwise (the campaign's
// delay=5ms:50,20ms:1), with what makes real runs differ: a slowly drifting
// level (an AR(1) process on its logarithm, second to second) and hiccup
// seconds in which some requests wait longer (a pause on the host).
type sim struct {
	qps     int     // requests per second
	seconds int     // seconds of the run
	scale   float64 // latency multiplier: 1.10 injects +10 %
	errRate float64 // chance a request fails
	// echo draws the delays as the echo does for delay=5ms:50,20ms:1
	// (pkg/echofault): 50 % of requests wait 5 ms, 1 % 20 ms and the rest
	// none, so that p50 and p99 sit on steps of the distribution and p90
	// in the middle of the 5 ms one.
	echo bool
	// stalled is the number of first seconds in which every request waits
	// 10 ms longer: a run that starts while its host is busy (the order
	// effect of docs/verdicts.md).
	stalled int
	// runLevel is the standard deviation of a run's own level (on the
	// logarithm of its latencies), drawn once per run: two runs of the
	// same build settle at levels of their own (about 0.02 on the quiet
	// host of bench/results/verdicts-2026-11-27-idle-10s.md).
	runLevel float64
}

// run returns the run's seconds drawn from rng.
func (s sim) run(rng *rand.Rand) []Second {
	const (
		phi       = 0.6   // level memory from one second to the next
		sigma     = 0.015 // level noise per second (log scale)
		hiccupP   = 0.15  // chance a second has a hiccup
		slowShare = 0.05  // share of a hiccup second's requests that wait
	)
	out := make([]Second, s.seconds)
	level, own := 0.0, 0.0
	if s.runLevel > 0 { // drawn only then, so that other runs keep their seeds' draws
		own = s.runLevel * rng.NormFloat64()
	}
	for t := range out {
		level = phi*level + sigma*rng.NormFloat64()
		hiccup := rng.Float64() < hiccupP
		h := hist.New()
		var errs int64
		for range s.qps {
			base := 5 * time.Millisecond
			if s.echo {
				switch u := rng.IntN(100); {
				case u < 50:
				case u < 51:
					base = 20 * time.Millisecond
				default:
					base = 100 * time.Microsecond
				}
			} else if rng.IntN(51) == 0 {
				base = 20 * time.Millisecond
			}
			d := float64(base) + rng.ExpFloat64()*float64(200*time.Microsecond)
			if hiccup && rng.Float64() < slowShare {
				d += float64(15 * time.Millisecond)
			}
			if t < s.stalled {
				d += float64(10 * time.Millisecond)
			}
			h.Record(time.Duration(d * math.Exp(level+own) * s.scale))
			if rng.Float64() < s.errRate {
				errs++
			}
		}
		out[t] = Second{Count: int64(s.qps), Errors: errs, Latency: h}
	}
	return out
}

func mustCompare(tb testing.TB, run, base []Second, o Options) Comparison {
	tb.Helper()
	c, err := Compare(run, base, o)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

func mustFind(tb testing.TB, c Comparison, name string) Estimate {
	tb.Helper()
	e, ok := c.Find(name)
	if !ok {
		tb.Fatalf("no estimate of %s", name)
	}
	return e
}
