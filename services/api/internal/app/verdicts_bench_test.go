//go:build verdictsbench

package app

import (
	"fmt"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/services/api/client"
)

// benchThresholds judge the second run of every pair: the confidence form
// with and without an allowance, and the plain form beside it.
var benchThresholds = []string{
	"p(90) < baseline @ 95%", "p(90) < baseline * 1.10 @ 95%", "p(90) < baseline * 1.10",
	"p(99) < baseline @ 95%", "p(99) < baseline * 1.10 @ 95%", "p(99) < baseline * 1.10",
}

// tally counts the outcomes of each threshold over a campaign's pairs.
type tally struct {
	mu                   sync.Mutex
	pairs                int
	fail, unsure, broken map[string]int
	// ratios, lows, highs and longer collect each confidence form's
	// estimate over the pairs.
	ratios, lows, highs, longer map[string][]float64
}

func newTally() *tally {
	return &tally{fail: map[string]int{}, unsure: map[string]int{}, broken: map[string]int{},
		ratios: map[string][]float64{}, lows: map[string][]float64{}, highs: map[string][]float64{}, longer: map[string][]float64{}}
}

func (c *tally) add(out []client.ThresholdResult) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pairs++
	for _, o := range out {
		if x := o.Estimate; x != nil {
			c.ratios[o.Expression] = append(c.ratios[o.Expression], x.Ratio)
			c.lows[o.Expression] = append(c.lows[o.Expression], x.RatioLow)
			c.highs[o.Expression] = append(c.highs[o.Expression], x.RatioHigh)
			if x.Longer > 0 {
				c.longer[o.Expression] = append(c.longer[o.Expression], x.Longer)
			}
		}
		switch {
		case o.Error != nil && *o.Error != "":
			c.broken[o.Expression]++
		case o.Inconclusive != nil && *o.Inconclusive:
			c.unsure[o.Expression]++
		case !o.Pass:
			c.fail[o.Expression]++
		}
	}
}

// TestVerdictsBench runs the A/A and A/B campaigns of docs/verdicts.md on
// the real stack: BENCH_VERDICTS_PAIRS pairs (default 100) of 10 s runs at
// 200 qps against the echo (delay=5ms:50,20ms:1), BENCH_VERDICTS_PARALLEL
// (default 4, the agent's slots) at once. Each pair's baseline is compared
// with an identical run (A/A) and with one whose delays are 10 % longer
// (A/B). It writes the results to BENCH_VERDICTS_OUT.
func TestVerdictsBench(t *testing.T) {
	pairs, parallel := envInt("BENCH_VERDICTS_PAIRS", 100), envInt("BENCH_VERDICTS_PARALLEL", 4)
	e := startAPI(t, "BARRAGE_ALL_IN_ONE=true", "BARRAGE_ECHO_HTTP_ADDR=127.0.0.1:0", "BARRAGE_ECHO_GRPC_ADDR=127.0.0.1:0",
		"BARRAGE_ECHO_TCP_ADDR=127.0.0.1:0", "BARRAGE_ECHO_UDP_ADDR=127.0.0.1:0", "BARRAGE_DISPATCH_WAIT=60s")
	m := regexp.MustCompile(`echo target: (http://127\.0\.0\.1:\d+/)`).FindStringSubmatch(e.Out)
	if m == nil {
		t.Fatalf("start-up notice %q does not name the echo target", e.Out)
	}
	echo := m[1]
	spec := func(delay string) map[string]any {
		return map[string]any{"url": echo + "?delay=" + delay, "qps": 200, "connections": 8, "duration": "10s"}
	}
	run := func(body map[string]any) (client.Run, error) {
		status, _, raw := e.do(t, http.MethodPost, "/runs", e.AdminToken, body)
		if status != http.StatusCreated {
			return client.Run{}, fmt.Errorf("create run: %d %s", status, raw)
		}
		id := decode[client.Run](t, raw).Id.String()
		for end := time.Now().Add(2 * time.Minute); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
			status, _, raw := e.do(t, http.MethodGet, "/runs/"+id, e.AdminToken, nil)
			if status != http.StatusOK {
				continue
			}
			r := decode[client.Run](t, raw)
			if r.Status == "completed" || r.Status == "failed" || r.Status == "canceled" {
				return r, nil
			}
		}
		return client.Run{}, fmt.Errorf("run %s did not end in 2 min", id)
	}
	aa, ab := newTally(), newTally()
	var errs []string
	var errMu sync.Mutex
	started := time.Now()
	work := make(chan int)
	var wg sync.WaitGroup
	for range parallel {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range work {
				err := benchPair(run, spec, aa, ab)
				if err != nil {
					errMu.Lock()
					errs = append(errs, err.Error())
					errMu.Unlock()
				}
			}
		}()
	}
	deadline := started.Add(envDuration("BENCH_VERDICTS_BUDGET", 40*time.Minute))
	for i := 0; i < pairs && time.Now().Before(deadline); i++ {
		work <- i
	}
	close(work)
	wg.Wait()
	report := benchReport(pairs, parallel, time.Since(started), aa, ab, errs)
	t.Log(report)
	if out := os.Getenv("BENCH_VERDICTS_OUT"); out != "" {
		if err := os.WriteFile(out, []byte(report), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// benchPair runs one baseline and compares an identical run and a slower
// one with it.
func benchPair(run func(map[string]any) (client.Run, error), spec func(string) map[string]any, aa, ab *tally) error {
	base, err := run(map[string]any{"project": "default", "name": "verdicts-base", "spec": spec("5ms:50,20ms:1")})
	if err != nil {
		return fmt.Errorf("baseline: %w", err)
	}
	if base.Status != "completed" || base.Degraded {
		return fmt.Errorf("baseline ended %s (degraded %v)", base.Status, base.Degraded)
	}
	for _, side := range []struct {
		delay string
		into  *tally
	}{{"5ms:50,20ms:1", aa}, {"5.5ms:50,22ms:1", ab}} {
		r, err := run(map[string]any{"project": "default", "name": "verdicts-pair", "spec": spec(side.delay),
			"baseline_run": base.Id, "thresholds": benchThresholds})
		if err != nil {
			return fmt.Errorf("run %s: %w", side.delay, err)
		}
		if r.Status != "completed" || r.ThresholdResults == nil {
			return fmt.Errorf("run %s ended %s without threshold results", side.delay, r.Status)
		}
		side.into.add(*r.ThresholdResults)
	}
	return nil
}

// benchReport writes the campaign's results as Markdown.
func benchReport(asked, parallel int, took time.Duration, aa, ab *tally, errs []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Statistical verdicts: A/A and A/B campaigns on the real stack (2026-11-26)\n\n")
	fmt.Fprintf(&b, "`bench/verdicts` (go test -tags verdictsbench -run TestVerdictsBench ./services/api/internal/app/):\n"+
		"the all-in-one API with its agent and barrage-echo on this 2-core machine, shared with other work.\n"+
		"Each pair: a 10 s baseline run at 200 qps (8 connections) against `?delay=5ms:50,20ms:1`, then an A run\n"+
		"with the same delays (A/A) and a B run with every delay 10 %% longer, `?delay=5.5ms:50,22ms:1` (A/B),\n"+
		"each compared with the baseline by the thresholds below. %d pairs asked, %d A/A and %d A/B pairs completed,\n"+
		"%d at once, in %s.\n\n", asked, aa.pairs, ab.pairs, parallel, took.Round(time.Second))
	b.WriteString("Echo delays `5ms:50,20ms:1` are Fortio's: 50 % of requests wait 5 ms, 1 % 20 ms, the rest none.\n" +
		"A fail of a confidence form means its whole 95 % interval lies above the limit.\n\n")
	for _, c := range []struct {
		name string
		t    *tally
		what string
	}{{"A/A (no change)", aa, "a failure is a false regression"}, {"A/B (+10 % delay)", ab, "a failure is a detection"}} {
		fmt.Fprintf(&b, "## %s: %d pairs, %s\n\n", c.name, c.t.pairs, c.what)
		b.WriteString("| threshold | fail | inconclusive | pass | not evaluated |\n|---|---:|---:|---:|---:|\n")
		for _, th := range benchThresholds {
			f, u, x := c.t.fail[th], c.t.unsure[th], c.t.broken[th]
			fmt.Fprintf(&b, "| `%s` | %d (%s) | %d | %d | %d |\n", th, f, pct(f, c.t.pairs), u, c.t.pairs-f-u-x, x)
		}
		b.WriteString("\nMedians over the pairs of each confidence form's estimate (ratio run / baseline, its 95 % interval,\n" +
			"and, over the inconclusive ones, how many times longer both runs would need to be):\n\n" +
			"| threshold | ratio | interval low | interval high | longer |\n|---|---:|---:|---:|---:|\n")
		for _, th := range benchThresholds {
			if len(c.t.ratios[th]) == 0 {
				continue
			}
			fmt.Fprintf(&b, "| `%s` | %.3f | %.3f | %.3f | %s |\n", th, median(c.t.ratios[th]), median(c.t.lows[th]), median(c.t.highs[th]),
				medianOrDash(c.t.longer[th]))
		}
		b.WriteString("\n")
	}
	if len(errs) > 0 {
		fmt.Fprintf(&b, "## Pairs that did not complete: %d\n\n", len(errs))
		for _, e := range errs {
			fmt.Fprintf(&b, "- %s\n", e)
		}
	}
	return b.String()
}

func pct(n, of int) string {
	if of == 0 {
		return "–"
	}
	return strconv.FormatFloat(100*float64(n)/float64(of), 'f', 1, 64) + " %"
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

func envDuration(name string, def time.Duration) time.Duration {
	if v, err := time.ParseDuration(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

func medianOrDash(xs []float64) string {
	if len(xs) == 0 {
		return "–"
	}
	return strconv.FormatFloat(median(xs), 'f', 1, 64) + "×"
}
