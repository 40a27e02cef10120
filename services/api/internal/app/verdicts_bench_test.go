//go:build verdictsbench

package app

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/services/api/client"
)

// benchThresholds judge every run of a pair after its baseline: the
// confidence form with no allowance and with allowances below and at the
// injected change, and the plain form beside it, of response time (what a
// run at a set rate judges by default) and of service time.
var benchThresholds = []string{
	"p(90) < baseline @ 95%", "p(90) < baseline * 1.05 @ 95%", "p(90) < baseline * 1.10 @ 95%", "p(90) < baseline * 1.10",
	"service.p(90) < baseline @ 95%", "service.p(90) < baseline * 1.10",
	"p(99) < baseline @ 95%", "p(99) < baseline * 1.10 @ 95%", "p(99) < baseline * 1.10",
}

// benchDesign is a campaign's design, read from the environment
// (bench/verdicts lists the variables).
type benchDesign struct {
	pairs, parallel int
	// measured and warmup are the seconds of each run that are judged,
	// and the seconds before them (a ramp at the full rate) left out.
	measured, warmup int
	// changes are the B runs of each pair: their delays are this many
	// percent longer than the baseline's.
	changes []float64
	// judgeBase judges each baseline too, against one anchor run, so that
	// every run of a pair ends with the same work (see docs/verdicts.md).
	judgeBase bool
	// shuffle runs the A and B runs of each pair in a random order.
	shuffle bool
	// stagger starts the workers a fraction of a run apart.
	stagger bool
	// pool, when above 0, judges each pair's runs against a pooled
	// baseline: the last pool baseline runs of the worker's own test
	// (baseline_last), of which the pair's baseline is the newest.
	pool int
}

func benchDesignFromEnv() benchDesign {
	d := benchDesign{
		pairs: envInt("BENCH_VERDICTS_PAIRS", 100), parallel: envInt("BENCH_VERDICTS_PARALLEL", 4),
		measured: envInt("BENCH_VERDICTS_SECONDS", 10), warmup: envInt0("BENCH_VERDICTS_WARMUP", 2),
		judgeBase: os.Getenv("BENCH_VERDICTS_JUDGE_BASE") != "0", shuffle: os.Getenv("BENCH_VERDICTS_SHUFFLE") != "0",
		stagger: os.Getenv("BENCH_VERDICTS_STAGGER") != "0", pool: envInt0("BENCH_VERDICTS_POOL", 0),
	}
	if d.pool > 0 {
		// A pooled baseline's runs are runs of a stored test; an anchor
		// run's thresholds would keep the inconclusive ones out of it.
		d.judgeBase = false
	}
	for _, f := range strings.Split(envString("BENCH_VERDICTS_CHANGES", "10"), ",") {
		if v, err := strconv.ParseFloat(strings.TrimSpace(f), 64); err == nil && v > 0 {
			d.changes = append(d.changes, v)
		}
	}
	return d
}

// delays returns the echo's delay parameter with every delay change
// percent longer: 5ms:50,20ms:1 for 0.
func delays(change float64) string {
	f := 1 + change/100
	return strconv.FormatFloat(5*f, 'f', -1, 64) + "ms:50," + strconv.FormatFloat(20*f, 'f', -1, 64) + "ms:1"
}

// role names a run of a pair: "A", or "B+10%".
func role(change float64) string {
	if change == 0 {
		return "A"
	}
	return "B+" + strconv.FormatFloat(change, 'f', -1, 64) + "%"
}

// tally counts the outcomes of each threshold over a campaign's pairs.
type tally struct {
	mu                         sync.Mutex
	pairs                      int
	fail, unsure, broken, pass map[string]int
	// ratios, lows, highs and longer collect each confidence form's
	// estimate over the pairs.
	ratios, lows, highs, longer map[string][]float64
	// spreads collects the run-to-run spread a pooled baseline's runs
	// gave each confidence form.
	spreads map[string][]float64
}

func newTally() *tally {
	return &tally{fail: map[string]int{}, unsure: map[string]int{}, broken: map[string]int{}, pass: map[string]int{},
		ratios: map[string][]float64{}, lows: map[string][]float64{}, highs: map[string][]float64{}, longer: map[string][]float64{},
		spreads: map[string][]float64{}}
}

// add counts one pair's outcomes, out in the order of benchThresholds.
// The API names each outcome by its expression written canonically
// ("baseline * 1.1" for "baseline * 1.10"), so outcomes are matched by
// position: the 2026-11-26 campaign matched them by name, missed every
// "* 1.10" outcome and reported those thresholds as passing every pair.
func (c *tally) add(out []client.ThresholdResult) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pairs++
	for i, o := range out {
		if i >= len(benchThresholds) {
			break
		}
		th := benchThresholds[i]
		if x := o.Estimate; x != nil {
			c.ratios[th] = append(c.ratios[th], x.Ratio)
			c.lows[th] = append(c.lows[th], x.RatioLow)
			c.highs[th] = append(c.highs[th], x.RatioHigh)
			if x.Longer > 0 {
				c.longer[th] = append(c.longer[th], x.Longer)
			}
			if x.Spread != nil {
				c.spreads[th] = append(c.spreads[th], *x.Spread)
			}
		}
		switch {
		case o.Error != nil && *o.Error != "":
			c.broken[th]++
		case o.Inconclusive != nil && *o.Inconclusive:
			c.unsure[th]++
		case !o.Pass:
			c.fail[th]++
		default:
			c.pass[th]++
		}
	}
}

// profile collects, for each role and each second of a run, the
// second's response and service p90 over the pairs: where in a run, and
// in which run of a pair, the latency differs.
type profile struct {
	mu            sync.Mutex
	resp, service map[string]map[int][]float64
}

func newProfile() *profile {
	return &profile{resp: map[string]map[int][]float64{}, service: map[string]map[int][]float64{}}
}

func (p *profile) add(role string, items []client.Interval) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.resp[role] == nil {
		p.resp[role], p.service[role] = map[int][]float64{}, map[int][]float64{}
	}
	for i := range items {
		it := &items[i]
		p.resp[role][it.Second] = append(p.resp[role][it.Second], it.Response.P90Us)
		p.service[role][it.Second] = append(p.service[role][it.Second], it.Service.P90Us)
	}
}

// TestVerdictsBench runs the A/A and A/B campaigns of docs/verdicts.md on
// the real stack: pairs of runs at 200 qps against the echo
// (delay=5ms:50,20ms:1), several at once. Each pair's baseline is compared
// with an identical run (A/A) and with runs whose delays are longer (A/B).
// It writes the results to BENCH_VERDICTS_OUT.
func TestVerdictsBench(t *testing.T) {
	d := benchDesignFromEnv()
	e := startAPI(t, "BARRAGE_ALL_IN_ONE=true", "BARRAGE_ECHO_HTTP_ADDR=127.0.0.1:0", "BARRAGE_ECHO_GRPC_ADDR=127.0.0.1:0",
		"BARRAGE_ECHO_TCP_ADDR=127.0.0.1:0", "BARRAGE_ECHO_UDP_ADDR=127.0.0.1:0", "BARRAGE_DISPATCH_WAIT=60s")
	m := regexp.MustCompile(`echo target: (http://127\.0\.0\.1:\d+/)`).FindStringSubmatch(e.Out)
	if m == nil {
		t.Fatalf("start-up notice %q does not name the echo target", e.Out)
	}
	echo := m[1]
	spec := func(change float64) map[string]any {
		s := map[string]any{"url": echo + "?delay=" + delays(change), "qps": 200, "connections": 8,
			"duration": strconv.Itoa(d.warmup+d.measured) + "s"}
		if d.warmup > 0 {
			s["ramp"] = map[string]any{"from": 200, "to": 200, "over": strconv.Itoa(d.warmup) + "s"}
		}
		return s
	}
	b := &bench{e: e, t: t, d: d, spec: spec, aa: newTally(), ab: map[float64]*tally{}, prof: newProfile()}
	for _, c := range d.changes {
		b.ab[c] = newTally()
	}
	if d.judgeBase {
		anchor, err := b.run(map[string]any{"project": "default", "name": "verdicts-anchor", "spec": spec(0)})
		if err != nil || anchor.Status != "completed" {
			t.Fatalf("anchor run: %v (%s)", err, anchor.Status)
		}
		b.anchor = anchor.Id.String()
	}
	var errs []string
	var errMu sync.Mutex
	b.loadBefore = loadAverage()
	b.command, b.commit = benchCommand()
	stopSampling := b.sampleLoad()
	started := time.Now()
	work := make(chan int)
	var wg sync.WaitGroup
	runLen := time.Duration(d.warmup+d.measured+1) * time.Second * time.Duration(2+len(d.changes))
	for w := range d.parallel {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if d.stagger {
				time.Sleep(time.Duration(w) * runLen / time.Duration(d.parallel))
			}
			var pool *benchPool
			if d.pool > 0 {
				var err error
				if pool, err = b.newPool(w); err != nil {
					errMu.Lock()
					errs = append(errs, err.Error())
					errMu.Unlock()
					return
				}
			}
			for i := range work {
				if err := b.pair(i, pool); err != nil {
					errMu.Lock()
					errs = append(errs, err.Error())
					errMu.Unlock()
				}
			}
		}()
	}
	deadline := started.Add(envDuration("BENCH_VERDICTS_BUDGET", 40*time.Minute))
	for i := 0; i < d.pairs && time.Now().Before(deadline); i++ {
		work <- i
	}
	close(work)
	wg.Wait()
	stopSampling()
	b.loadAfter = loadAverage()
	report := b.report(time.Since(started), errs)
	t.Log(report)
	if out := os.Getenv("BENCH_VERDICTS_OUT"); out != "" {
		if err := os.WriteFile(out, []byte(report), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// bench is one campaign in progress.
type bench struct {
	e      *apiEnv
	t      *testing.T
	d      benchDesign
	spec   func(change float64) map[string]any
	anchor string
	aa     *tally
	ab     map[float64]*tally
	prof   *profile
	// loadBefore and loadAfter are the host's load averages around the
	// campaign: other work shares the machine.
	loadBefore, loadAfter string
	// command and commit are what ran, read when the campaign started.
	command, commit string
	// loads are the 1 minute load averages sampled every 30 s.
	loads []float64
}

// sampleLoad samples the 1 minute load average every 30 s until the
// returned stop is called.
func (b *bench) sampleLoad() (stop func()) {
	done, over := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(over)
		tick := time.NewTicker(30 * time.Second)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				if v, err := strconv.ParseFloat(strings.Fields(loadAverage() + " x")[0], 64); err == nil {
					b.loads = append(b.loads, v)
				}
			}
		}
	}()
	return func() { close(done); <-over }
}

// loadAverage returns the host's 1, 5 and 15 minute load averages.
func loadAverage() string {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Join(strings.Fields(string(raw))[:3], " ")
}

// benchCommand returns the command that ran the campaign, with the
// variables that set its design, and the commit it ran at.
func benchCommand() (cmd, commit string) {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "BENCH_VERDICTS_") && !strings.HasPrefix(kv, "BENCH_VERDICTS_OUT=") {
			env = append(env, kv)
		}
	}
	slices.Sort(env)
	commit = "unknown"
	if out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output(); err == nil {
		commit = strings.TrimSpace(string(out))
		if st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(st) > 0 {
			commit += " with uncommitted changes"
		}
	}
	return strings.TrimSpace(strings.Join(env, " ") + " make bench-verdicts"), commit
}

// run creates a run with body, waits for it to end and records its
// seconds' profile under the body's "role" (removed from the body).
func (b *bench) run(body map[string]any) (client.Run, error) {
	status, _, raw := b.e.do(b.t, http.MethodPost, "/runs", b.e.AdminToken, body)
	if status != http.StatusCreated {
		return client.Run{}, fmt.Errorf("create run: %d %s", status, raw)
	}
	id := decode[client.Run](b.t, raw).Id.String()
	for end := time.Now().Add(2 * time.Minute); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		status, _, raw := b.e.do(b.t, http.MethodGet, "/runs/"+id, b.e.AdminToken, nil)
		if status != http.StatusOK {
			continue
		}
		r := decode[client.Run](b.t, raw)
		if r.Status == "completed" || r.Status == "failed" || r.Status == "canceled" {
			return r, nil
		}
	}
	return client.Run{}, fmt.Errorf("run %s did not end in 2 min", id)
}

// profiled records the seconds of run r under role.
func (b *bench) profiled(role string, r client.Run) {
	status, _, raw := b.e.do(b.t, http.MethodGet, "/runs/"+r.Id.String()+"/intervals?limit=1000", b.e.AdminToken, nil)
	if status == http.StatusOK {
		b.prof.add(role, decode[client.IntervalPage](b.t, raw).Items)
	}
}

// pair runs pair i: one baseline, then an identical run and the slower
// ones, each compared with the baseline, or with pool's last runs.
func (b *bench) pair(i int, pool *benchPool) error {
	body := map[string]any{"project": "default", "name": "verdicts-base", "spec": b.spec(0)}
	if b.anchor != "" {
		body["baseline_run"], body["thresholds"] = b.anchor, benchThresholds
	}
	if pool != nil {
		var err error
		if body, err = pool.baseline(); err != nil {
			return err
		}
	}
	base, err := b.run(body)
	if err != nil {
		return fmt.Errorf("baseline: %w", err)
	}
	if base.Status != "completed" || base.Degraded {
		return fmt.Errorf("baseline ended %s (degraded %v)", base.Status, base.Degraded)
	}
	b.profiled("base", base)
	sides := append([]float64{0}, b.d.changes...)
	if b.d.shuffle {
		rng := rand.New(rand.NewPCG(uint64(i), 30))
		rng.Shuffle(len(sides), func(x, y int) { sides[x], sides[y] = sides[y], sides[x] })
	}
	for _, c := range sides {
		body := map[string]any{"project": "default", "name": "verdicts-pair", "spec": b.spec(c),
			"baseline_run": base.Id, "thresholds": benchThresholds}
		if pool != nil {
			if body, err = pool.judged(c); err != nil {
				return err
			}
		}
		r, err := b.run(body)
		if err != nil {
			return fmt.Errorf("run %s: %w", delays(c), err)
		}
		if r.Status != "completed" || r.ThresholdResults == nil {
			return fmt.Errorf("run %s ended %s without threshold results", delays(c), r.Status)
		}
		b.profiled(role(c), r)
		into := b.aa
		if c != 0 {
			into = b.ab[c]
		}
		into.add(*r.ThresholdResults)
	}
	return nil
}

// report writes the campaign's results as Markdown.
func (b *bench) report(took time.Duration, errs []string) string {
	d := b.d
	var w strings.Builder
	fmt.Fprintf(&w, "# Statistical verdicts: A/A and A/B campaigns on the real stack (%s)\n\n", time.Now().UTC().Format("2006-01-02"))
	fmt.Fprintf(&w, "`bench/verdicts` (go test -tags verdictsbench -run TestVerdictsBench ./services/api/internal/app/):\n"+
		"the all-in-one API with its agent and barrage-echo in one process. Each run: 200 qps (8 connections) against\n"+
		"`?delay=5ms:50,20ms:1` (50 %% of requests wait 5 ms, 1 %% 20 ms, the rest none) for %d s", d.warmup+d.measured)
	if d.warmup > 0 {
		fmt.Fprintf(&w, ", of which the first %d s\nare a ramp at the full rate (`ramp: {from: 200, to: 200, over: %ds}`), left out as warm-up, and %d s judged", d.warmup, d.warmup, d.measured)
	}
	w.WriteString(".\n")
	fmt.Fprintf(&w, "Each pair: a baseline%s, then, in %s order, an identical run (A/A) and runs whose every delay is longer (A/B:",
		map[bool]string{true: " (itself judged against one anchor run, so that every run ends with the same work)"}[d.judgeBase],
		map[bool]string{true: "a random", false: "a fixed"}[d.shuffle])
	for _, c := range d.changes {
		fmt.Fprintf(&w, " `%s`", delays(c))
	}
	if d.pool > 0 {
		fmt.Fprintf(&w, "), each judged against a pooled baseline: the last %d passing runs of the worker's own stored test\n"+
			"(`baseline_last: %d`), the pair's baseline the newest of them. The test's spec is set before each run (the\n"+
			"target's delays change, the test does not); its baseline runs have no thresholds and pass, its judged runs also\n"+
			"carry `%s`, which fails, so that only baselines are pooled", d.pool, d.pool, neverPasses)
	} else {
		w.WriteString("), each judged against the baseline")
	}
	fmt.Fprintf(&w, ". %d pairs asked, %d A/A pairs completed, %d at once%s, in %s.\n\n",
		d.pairs, b.aa.pairs, d.parallel, map[bool]string{true: " (workers started staggered)"}[d.stagger], took.Round(time.Second))
	fmt.Fprintf(&w, "Command: `%s` at commit %s; host load average (1, 5, 15 min) %s before, %s after, on 2 cores\n"+
		"shared with other work", b.command, b.commit, b.loadBefore, b.loadAfter)
	if len(b.loads) > 0 {
		fmt.Fprintf(&w, "; 1 min load sampled every 30 s: min %.2f, median %.2f, max %.2f", slices.Min(b.loads), median(b.loads), slices.Max(b.loads))
	}
	w.WriteString(".\n\n")
	w.WriteString("A fail of a confidence form means its whole 95 % interval lies above the limit.\n\n")
	type section struct {
		name string
		t    *tally
		what string
	}
	secs := []section{{"A/A (no change)", b.aa, "a failure is a false regression"}}
	for _, c := range d.changes {
		secs = append(secs, section{fmt.Sprintf("A/B (+%g %% delay)", c), b.ab[c], "a failure is a detection"})
	}
	for _, s := range secs {
		fmt.Fprintf(&w, "## %s: %d pairs, %s\n\n", s.name, s.t.pairs, s.what)
		w.WriteString("| threshold | fail | inconclusive | pass | not evaluated |\n|---|---:|---:|---:|---:|\n")
		for _, th := range benchThresholds {
			f, u, ok := s.t.fail[th], s.t.unsure[th], s.t.pass[th]
			fmt.Fprintf(&w, "| `%s` | %d (%s) | %d | %d | %d |\n", th, f, pct(f, s.t.pairs), u, ok, s.t.pairs-f-u-ok)
		}
		w.WriteString("\nMedians over the pairs of each confidence form's estimate (ratio run / baseline, its 95 % interval,\n" +
			"over the inconclusive ones, how many times longer both runs would need to be, and the run-to-run spread of the pooled baseline's runs, where estimated, with its 90th percentile):\n\n" +
			"| threshold | ratio | interval low | interval high | longer | spread | spread p90 |\n|---|---:|---:|---:|---:|---:|---:|\n")
		for _, th := range benchThresholds {
			if len(s.t.ratios[th]) == 0 {
				continue
			}
			fmt.Fprintf(&w, "| `%s` | %.3f | %.3f | %.3f | %s | %s | %s |\n", th, median(s.t.ratios[th]), median(s.t.lows[th]), median(s.t.highs[th]),
				medianOrDash(s.t.longer[th]), percentOf(s.t.spreads[th], 0.5), percentOf(s.t.spreads[th], 0.9))
		}
		w.WriteString("\n")
	}
	b.writeProfile(&w)
	if len(errs) > 0 {
		fmt.Fprintf(&w, "## Pairs that did not complete: %d\n\n", len(errs))
		for _, e := range errs {
			fmt.Fprintf(&w, "- %s\n", e)
		}
	}
	return w.String()
}

// writeProfile writes the median p90 of each second of the runs, by role.
func (b *bench) writeProfile(w *strings.Builder) {
	roles := []string{"base", "A"}
	for _, c := range b.d.changes {
		roles = append(roles, role(c))
	}
	w.WriteString("## Where the time goes: median p90 of each second, µs\n\n" +
		"Each second of the runs (0 is the first, the ramp included), the median over the pairs of that second's\n" +
		"p90 of response time (from the intended send) and of service time (from the actual send):\n\n| second |")
	for _, r := range roles {
		fmt.Fprintf(w, " %s response | %s service |", r, r)
	}
	w.WriteString("\n|---:|")
	w.WriteString(strings.Repeat("---:|---:|", len(roles)))
	w.WriteString("\n")
	for s := 0; s <= b.d.warmup+b.d.measured; s++ {
		fmt.Fprintf(w, "| %d |", s)
		for _, r := range roles {
			fmt.Fprintf(w, " %s | %s |", medianOf(b.prof.resp[r][s]), medianOf(b.prof.service[r][s]))
		}
		w.WriteString("\n")
	}
	w.WriteString("\n")
}

func medianOf(xs []float64) string {
	if len(xs) == 0 {
		return "–"
	}
	return strconv.FormatFloat(median(xs), 'f', 0, 64)
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

// envInt0 is envInt that takes 0 too.
func envInt0(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v >= 0 {
		return v
	}
	return def
}

func envString(name, def string) string {
	if v := os.Getenv(name); v != "" {
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

// percentOf returns the q quantile of xs as a percentage, "–" for none.
func percentOf(xs []float64, q float64) string {
	if len(xs) == 0 {
		return "–"
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return strconv.FormatFloat(100*s[int(q*float64(len(s)-1))], 'f', 2, 64) + " %"
}

func medianOrDash(xs []float64) string {
	if len(xs) == 0 {
		return "–"
	}
	return strconv.FormatFloat(median(xs), 'f', 1, 64) + "×"
}
