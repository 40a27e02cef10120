package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// Goals of the control-plane scenario (issue 26, "Load on the control
// plane").
const (
	goalListP99   = 50 * time.Millisecond
	goalCPLagP99  = time.Second
	goalCPRuns    = 50
	goalCPAgents  = 20
	goalCPViewers = 200
	goalCPReads   = 20
)

// cpMarkdown renders the control-plane scenario's report.
func (r *report) cpMarkdown() string {
	c := r.cp
	var b strings.Builder
	fmt.Fprintf(&b, "# Control-plane load — %s\n\n", r.started.Format("2006-01-02"))
	r.cpHeader(&b)
	b.WriteString("\n| calls | timed | failed | p50 | p99 | max |\n|---|---:|---:|---:|---:|---:|\n")
	for _, x := range []struct {
		name string
		rd   *reads
	}{{"`GET /api/v1/runs?project=default&limit=50`", &c.list}, {fmt.Sprintf("`GET /api/v1/runs/compare` of the %d seeded runs", len(c.seedIDs)), &c.compare}} {
		fmt.Fprintf(&b, "| %s | %d | %d | %s | %s | %s |\n", x.name, len(x.rd.lat), x.rd.failed,
			ms(percentile(x.rd.lat, 50)), ms(percentile(x.rd.lat, 99)), ms(percentile(x.rd.lat, 100)))
	}
	fmt.Fprintf(&b, "\n| runs × agents | seconds | SSE viewers | SSE lag p50 | SSE lag p99 | SSE lag max | API CPU (cores) | machine busy (cores) "+
		"| Postgres rows/s | commits/s | published | stored | not stored: still queued in JetStream / unaccounted | runs by status | summed count |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n")
	countNote := fmt.Sprintf("%d (want %d)", c.count, c.wantCount)
	if c.count == c.wantCount {
		countNote = fmt.Sprintf("%d ✓", c.count)
	}
	unaccounted := c.published - c.stored - int(c.queued)
	fmt.Fprintf(&b, "| %d × %d | %d | %d | %s | %s | %s | %.2f | %.2f | %.0f | %.0f | %d | %d | %d / %d | %s | %s |\n",
		c.runs, c.agents, c.seconds, c.viewers, ms(c.sseP50), ms(c.sseP99), ms(c.sseMax), c.apiCores, c.machineCores,
		c.rowsPerSec, c.commitsPerSec, c.published, c.stored, c.queued, unaccounted, statusList(c.statuses), countNote)
	b.WriteString("\n")
	r.cpVerdict(&b)
	b.WriteString("\n")
	fmt.Fprintf(&b, "- SSE: %d events (%d interval) over %d viewers, %d reconnects, %d interval snapshots no event accounted for, "+
		"%d viewers without the result event; %d publish failures; load window (first start_at → last run ended) %s.\n",
		c.sse.events, c.sse.intervals, c.viewers, c.sse.reconnects, c.sse.unseen, c.noResult, c.pubFailed, c.window.Round(100*time.Millisecond))
	for _, rd := range []*reads{&c.list, &c.compare} {
		for _, e := range slices.Sorted(maps.Keys(rd.errs)) {
			fmt.Fprintf(&b, "- A call failed %d times: %s\n", rd.errs[e], e)
		}
	}
	for _, s := range c.short {
		fmt.Fprintf(&b, "- Short: %s\n", s)
	}
	for _, s := range c.runErrs {
		fmt.Fprintf(&b, "- Bench error: %s\n", s)
	}
	return b.String()
}

// cpHeader writes the setup and the method.
func (r *report) cpHeader(b *strings.Builder) {
	c := r.cp
	r.machineLine(b)
	fmt.Fprintf(b, "- Load average (1, 5, 15 min) before the load: %s; after: %s\n", c.loadBefore, c.loadAfter)
	fmt.Fprintf(b, "- API: `%s serve` as a subprocess on NATS embedded in ingestbench (its CPU is the API's alone, from /proc/PID/stat); "+
		"the simulated agents, viewers, callers, NATS, Postgres and the API share the machine, nothing pinned\n", r.cfg.apiBin)
	fmt.Fprintf(b, "- Seed: %d runs of %d simulated agents for 3 s, completed before the load, for the compare calls\n", seedRuns, c.agents)
	fmt.Fprintf(b, "- Load: %d runs of %d simulated agents each (the ingest bench's: heartbeats in `barrage_agents`, each run "+
		"created over REST and planned by the real dispatcher on its own fleet, assignments acked, one interval snapshot per agent per "+
		"second for %d s with HDR histograms of %d values, then a final), created one after another and all running at once; "+
		"%d SSE viewers of `GET /api/v1/runs/{id}/events` spread evenly over the runs (opened when the run is created, admin token); "+
		"%d calls a second, alternating a list of the project's runs and a compare of the seeded runs, each in its own goroutine "+
		"(open loop: a slow answer delays no other call), from the first run's creation to the last run's end\n",
		c.runs, c.agents, c.seconds, r.cfg.values, c.viewers, c.reads)
	b.WriteString("- SSE lag: publish → the interval event that shows the snapshot, per viewer, as in the ingest bench " +
		"(bench/README.md); nothing lost: every run's stored snapshots and `runs.count` equal what its agents sent\n")
	b.WriteString("- CPU and rows/s are over the load, from the first run's creation to the last run's end\n")
	if r.cfg.note != "" {
		fmt.Fprintf(b, "- Note: %s\n", r.cfg.note)
	}
}

// cpVerdict writes PASS or FAIL against the goals.
func (r *report) cpVerdict(b *strings.Builder) {
	c := r.cp
	listP99 := percentile(c.list.lat, 99)
	ok := listP99 < goalListP99 && c.sseP99 < goalCPLagP99 && c.stored == c.published && c.count == c.wantCount &&
		c.sse.unseen == 0 && c.list.failed == 0 && c.compare.failed == 0 && len(c.runErrs) == 0
	word := "FAIL"
	if ok {
		word = "PASS"
	}
	shape := ""
	if c.runs != goalCPRuns || c.agents != goalCPAgents || c.viewers != goalCPViewers || c.reads != goalCPReads {
		shape = fmt.Sprintf(" (measured at %d × %d, %d viewers, %d calls/s, not the goal's shape)", c.runs, c.agents, c.viewers, c.reads)
	}
	fmt.Fprintf(b, "**Goal (%d runs × %d agents, %d SSE viewers, %d list and compare calls/s: list p99 < %v, SSE lag p99 < %v, "+
		"nothing lost; API CPU reported): %s**%s — list p99 %s, compare p99 %s, SSE lag p99 %s, API %.2f cores, %d of %d snapshots stored, "+
		"count %d of %d.\n", goalCPRuns, goalCPAgents, goalCPViewers, goalCPReads, goalListP99, goalCPLagP99, word, shape,
		ms(listP99), ms(percentile(c.compare.lat, 99)), ms(c.sseP99), c.apiCores, c.stored, c.published, c.count, c.wantCount)
}

// statusList is "completed 50" and the like.
func statusList(m map[string]int) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}
