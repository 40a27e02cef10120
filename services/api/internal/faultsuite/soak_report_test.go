//go:build soak

package faultsuite

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// soakReport is the Markdown section TestSoak writes (SOAK_OUT).
type soakReport struct {
	cfg        soakConfig
	startedAt  time.Time
	concurrent concurrentResult
	long       longResult
}

// maxLag is the SSE goal.
const maxLag = time.Second

func (r *soakReport) markdown() string {
	var b strings.Builder
	r.longSection(&b)
	r.memorySection(&b)
	r.sseSection(&b)
	r.concurrentSection(&b)
	return b.String()
}

func (r *soakReport) longSection(b *strings.Builder) {
	l, cfg := r.long, r.cfg
	sum := l.r.Summary
	fmt.Fprintf(b, "## Long run: %d qps on 2 agents for %s\n\n", cfg.qps, cfg.duration)
	fmt.Fprintf(b, "Processes on loopback: barrage-api (1 replica, Postgres pool 20), 2 × barrage-agent (capacity %d, `-debug-addr` for pprof), barrage-echo (HTTP only), nats-server (JetStream file store), a Postgres cluster of its own (initdb, fsync off). Spec: `GET %s/`, %d connections, %d qps, %s. Started %s.\n\n",
		soakCapacity, "http://127.0.0.1:PORT", soakConns, cfg.qps, cfg.duration, r.startedAt.Format(time.RFC3339))
	fmt.Fprintf(b, "- Run %s: %s, degraded %v; %d requests, %d errors, %.0f qps achieved (goal %d), p50 %.0f µs, p99 %.0f µs\n",
		l.r.Id, l.r.Status, l.r.Degraded, sum.Count, sum.Errors, deref(sum.Qps), cfg.qps, deref(sum.P50Us), deref(sum.P99Us))
	fmt.Fprintf(b, "- Ledger: each shard's stored count equals its agent's logged count (%v); the run's seconds sum to its result; the echo answered %d requests, the run counted %d (difference %d, in flight at the end)\n",
		l.agentCounts, l.echoed, l.counted, l.echoed-l.counted)
	fmt.Fprintf(b, "- Load average (1, 5, 15 min) before: %.2f %.2f %.2f; after: %.2f %.2f %.2f; 1-min load over the run: mean %.2f, max %.2f (2 CPUs, shared with other work)\n\n",
		l.loadBefore[0], l.loadBefore[1], l.loadBefore[2], l.loadAfter[0], l.loadAfter[1], l.loadAfter[2],
		meanOr0(l.sampler.load), maxOr0(l.sampler.load))
}

func (r *soakReport) memorySection(b *strings.Builder) {
	sm := r.long.sampler
	fmt.Fprintf(b, "### RSS and goroutines\n\n")
	fmt.Fprintf(b, "Every %s while the run ran: VmRSS of /proc/PID/status (for the API also its parts RssAnon, the Go runtime's memory, and RssFile, the binary's pages as they are paged in); goroutines from the API's `/metrics` (`go_goroutines`) and the agents' `/debug/pprof/goroutine?debug=1`. %d samples (%d missed). Growth: the mean of the last fifth of the samples against the mean of the second fifth (the first is warm-up, SSE subscribers connecting); flat = growth ≤ %.0f %%. Trend: the least-squares slope of the last half of the samples, in %% of their mean per hour, ± its standard error; a figure that climbed and then levelled off has a trend near 0 whatever its growth, one that keeps growing has a trend well above its error.\n\n",
		r.cfg.every, sm.samples, sm.missed, maxGrowthPct)
	b.WriteString("| process | figure | start | end | min | max | growth % | flat | last-half trend %/h |\n| --- | --- | ---: | ---: | ---: | ---: | ---: | --- | ---: |\n")
	for _, s := range sm.series {
		f := s.flatness(r.cfg.every)
		fmt.Fprintf(b, "| %s | %s | %.1f | %.1f | %.1f | %.1f | %s | %s | %s |\n", s.proc, s.what, f.start, f.end, f.min, f.max, growth(f), f.verdict(), f.trend)
	}
	names := sm.procNames()
	var cpu []string
	for i, pc := range sm.cpuPercent() {
		cpu = append(cpu, fmt.Sprintf("%s %.0f %%", names[i], pc))
	}
	fmt.Fprintf(b, "\nCPU from the first sample to the last (utime+stime of /proc/PID/stat, %% of one core): %s.\n", strings.Join(cpu, ", "))
	b.WriteString("\nBy minute (the sample nearest each minute):\n\n| minute |")
	for _, s := range sm.series {
		fmt.Fprintf(b, " %s %s |", s.proc, s.what)
	}
	b.WriteString("\n| ---: |" + strings.Repeat(" ---: |", len(sm.series)) + "\n")
	perMinute := max(1, int(time.Minute/r.cfg.every))
	for i := 0; i < sm.samples; i += perMinute {
		fmt.Fprintf(b, "| %d |", i/perMinute)
		for _, s := range sm.series {
			fmt.Fprintf(b, " %.1f |", s.values[i])
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
}

func (t trend) String() string {
	if !t.known {
		return "n/a"
	}
	return fmt.Sprintf("%+.1f ± %.1f", t.pctPerHour, t.errPctPerHour)
}

func growth(f flatness) string {
	if !f.known {
		return "n/a"
	}
	return fmt.Sprintf("%+.1f", f.growthPct)
}

func (r *soakReport) sseSection(b *strings.Builder) {
	subs := r.long.subs
	var all []time.Duration
	minSeconds, reconnects, results := -1, 0, 0
	for _, sb := range subs {
		all = append(all, sb.lags...)
		if minSeconds < 0 || len(sb.lags) < minSeconds {
			minSeconds = len(sb.lags)
		}
		reconnects += sb.reconnects
		if sb.result {
			results++
		}
	}
	slices.Sort(all)
	fmt.Fprintf(b, "### %d SSE subscribers on the long run\n\n", len(subs))
	fmt.Fprintf(b, "Each subscriber reads `GET /api/v1/runs/{id}/events` on a connection of its own from when every shard is running to the result event. Lag = arrival of the first `interval` event that holds both shards' snapshots of a second − the end of that second (the run's `start_at` + second + 1 s); seconds that ended before the subscriber connected (replayed) are left out. The lag includes the agent's snapshot, JetStream, ingest into Postgres and the API's live hub.\n\n")
	fmt.Fprintf(b, "- %d lags measured; fewest seconds of one subscriber %d; result event received by %d of %d; reconnects %d\n", len(all), minSeconds, results, len(subs), reconnects)
	if len(all) == 0 {
		b.WriteString("- no lag measured\n\n")
		return
	}
	p50, p99, worst := pct(all, 50), pct(all, 99), all[len(all)-1]
	verdict := "PASS"
	if p99 >= maxLag {
		verdict = "FAIL"
	}
	fmt.Fprintf(b, "\n| p50 ms | p90 ms | p99 ms | p99.9 ms | max ms |\n| ---: | ---: | ---: | ---: | ---: |\n| %.1f | %.1f | %.1f | %.1f | %.1f |\n\n",
		ms(p50), ms(pct(all, 90)), ms(p99), ms(pct(all, 99.9)), ms(worst))
	fmt.Fprintf(b, "**Goal lag < 1 s (p99): %s** (max %.0f ms)\n\n", verdict, ms(worst))
	worstSeconds(b, subs)
}

// worstSeconds lists the seconds of the run with the highest median lag
// over the subscribers: a slow second shows in every stream at once.
func worstSeconds(b *strings.Builder, subs []*subscriber) {
	bySecond := map[int][]time.Duration{}
	for _, sb := range subs {
		for sec, lag := range sb.lagOf {
			bySecond[sec] = append(bySecond[sec], lag)
		}
	}
	type row struct {
		second         int
		low, med, high time.Duration
		n              int
	}
	var rows []row
	var firsts, spreads []time.Duration
	for sec, lags := range bySecond {
		slices.Sort(lags)
		r := row{sec, lags[0], pct(lags, 50), lags[len(lags)-1], len(lags)}
		rows = append(rows, r)
		firsts, spreads = append(firsts, r.low), append(spreads, r.high-r.low)
	}
	if len(rows) == 0 {
		return
	}
	slices.Sort(firsts)
	slices.Sort(spreads)
	fmt.Fprintf(b, "Where the lag goes, per second of the run: the first subscriber to get it (snapshot, JetStream, ingest, hub: "+
		"what one stream would see) p50 %.1f ms, p99 %.1f ms; the spread from the first subscriber to the last "+
		"(fan-out: each stream reads the second from Postgres and writes it) p50 %.1f ms, p99 %.1f ms.\n\n",
		ms(pct(firsts, 50)), ms(pct(firsts, 99)), ms(pct(spreads, 50)), ms(pct(spreads, 99)))
	slices.SortFunc(rows, func(a, b row) int { return int(b.med - a.med) })
	b.WriteString("The seconds with the highest median lag over the subscribers:\n\n" +
		"| second | subscribers | first ms | median ms | last ms |\n| ---: | ---: | ---: | ---: | ---: |\n")
	for _, r := range rows[:min(5, len(rows))] {
		fmt.Fprintf(b, "| %d | %d | %.1f | %.1f | %.1f |\n", r.second, r.n, ms(r.low), ms(r.med), ms(r.high))
	}
	b.WriteString("\n")
}

func (r *soakReport) concurrentSection(b *strings.Builder) {
	c := r.concurrent
	fmt.Fprintf(b, "## %d concurrent runs\n\n", c.runs)
	fmt.Fprintf(b, "Before the long run, on the same stack: %d runs submitted at once, each %d qps for %s on one agent (1 connection). Each must end completed and whole within its deadline + 30 s, each shard's stored count equal to its agent's, its seconds summing to its result.\n\n",
		c.runs, concurrentQPS, concurrentFor)
	fmt.Fprintf(b, "- completed %d of %d, degraded %d; slowest from submission to terminal %.1f s (bound %.0f s after the last submission)\n",
		c.completed, c.runs, c.degraded, c.slowest.Seconds(), c.bound.Seconds())
	fmt.Fprintf(b, "- requests counted %d, answered by the echo %d\n\n", c.counted, c.echoed)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func meanOr0(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	return mean(v)
}

func maxOr0(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	return slices.Max(v)
}

// deref returns *p, or 0 when p is nil (a figure the run has not got).
func deref(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}
