package main

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

// Goals of the ingest bench (issue 6) at the largest agent count.
const (
	goalAgents   = 500
	goalLagP99   = time.Second
	goalAPICores = 1.0
)

// report is the whole bench's outcome.
type report struct {
	cfg       config
	started   time.Time
	pgVersion string
	phases    []phaseResult
	cp        *cpResult     // the control-plane scenario's, instead of phases
	big       *bigRunResult // the big-run scenario's
}

// markdown renders the report.
func (r *report) markdown() string {
	if r.cp != nil {
		return r.cpMarkdown()
	}
	if r.big != nil {
		return r.bigRunMarkdown()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Ingest load — %s\n\n", r.started.Format("2006-01-02"))
	r.header(&b)
	b.WriteString("\n| agents (shards) | seconds | SSE lag p50 | SSE lag p99 | SSE lag max | notify lag p50 | notify lag p99 | notify lag max " +
		"| API CPU (cores) | machine busy (cores) | Postgres rows/s | commits/s | snapshots/s stored | published | stored | lost | run | summary count |\n")
	b.WriteString("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n")
	for i := range r.phases {
		p := &r.phases[i]
		lost := p.published - p.stored
		countNote := fmt.Sprintf("%d (want %d)", p.count, p.wantCount)
		if p.count == p.wantCount {
			countNote = fmt.Sprintf("%d ✓", p.count)
		}
		fmt.Fprintf(&b, "| %d | %d | %s | %s | %s | %s | %s | %s | %.2f | %.2f | %.0f | %.0f | %.1f | %d | %d | %d | %s (lost shards %d) | %s |\n",
			p.agents, p.seconds, ms(p.sseP50), ms(p.sseP99), ms(p.sseMax), ms(p.lagP50), ms(p.lagP99), ms(p.lagMax), p.apiCores, p.machineCores,
			p.rowsPerSec, p.commitsPerSec, p.snapsPerSec, p.published, p.stored, lost, p.status, p.lostShards, countNote)
	}
	b.WriteString("\n")
	r.verdict(&b)
	b.WriteString("\n")
	for i := range r.phases {
		p := &r.phases[i]
		fmt.Fprintf(&b, "- N=%d: run `%s`; SSE: %d events (%d interval), %d reconnects, %d interval snapshots no event accounted for, %s; "+
			"%d commit notifications for %d interval snapshots; %d publish failures; "+
			"last final published → run ended %s; API warnings logged %d.\n",
			p.agents, p.runID, p.sse.events, p.sse.intervals, p.sse.reconnects, p.sse.unseen, sseEnd(&p.sse),
			p.events, p.agents*p.seconds, p.pubFailed, ms(p.drained), p.warnings)
	}
	return b.String()
}

// header writes the setup and the method.
func (r *report) header(b *strings.Builder) {
	r.machineLine(b)
	fmt.Fprintf(b, "- API: `%s serve` as a subprocess on NATS embedded in ingestbench (its CPU is the API's alone, from /proc/PID/stat); "+
		"publishers, NATS, Postgres and the API share the machine, nothing pinned\n", r.cfg.apiBin)
	fmt.Fprintf(b, "- Per phase: N simulated agents heartbeat in `barrage_agents`; a run of N shards is created over REST and planned by the "+
		"real dispatcher; the bench acks the assignments, then every agent publishes one interval snapshot per second for %d s "+
		"(seq 1..%d, Nats-Msg-Id per wire.SnapMsgID; response/service/lag HDR histograms of %d values each), all N at each second "+
		"boundary as agents aligned on start_at do, then a final\n", r.cfg.seconds, r.cfg.seconds, r.cfg.values)
	b.WriteString("- SSE lag (the goal's lag): publish → the interval event on `GET /api/v1/runs/{id}/events`, read by an SSE client " +
		"in ingestbench (admin bearer token, opened after the run is created and before any snapshot is published; on a drop it " +
		"reconnects with Last-Event-ID, counted below). Per second s, the arrival time and `snapshots` of every interval event " +
		"of s is recorded; the k-th snapshot published for s (in publish order) has lag = arrival of the first event of s with " +
		"snapshots ≥ k − its publish time\n")
	b.WriteString("- Notify lag (kept for comparison): publish → the ingester's commit notification on core NATS `barrage.v1.notify`. " +
		"Notifications do not name the shard, so within each second the i-th publish is paired with the i-th " +
		"notification (order statistics; exact if the ingester kept order)\n")
	b.WriteString("- CPU and rows/s are over the phase, from start_at to the run's end; rows/s is pg_stat_database " +
		"tup_inserted+tup_updated+tup_deleted of the bench database; \"machine busy\" is every process, from /proc/stat\n")
	if r.cfg.note != "" {
		fmt.Fprintf(b, "- Note: %s\n", r.cfg.note)
	}
}

// machineLine writes the date, the machine and the versions.
func (r *report) machineLine(b *strings.Builder) {
	commit := "no commit"
	if out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output(); err == nil {
		commit = strings.TrimSpace(string(out))
	}
	model := "unknown CPU"
	if raw, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(raw), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	fmt.Fprintf(b, "- Date: %s\n- Machine: %d CPUs, %s; Go %s; Postgres %s; Barrage commit %s\n",
		r.started.Format("2006-01-02 15:04:05 UTC"), runtime.NumCPU(), model, runtime.Version(), r.pgVersion, commit)
}

// verdict writes PASS or FAIL against the goal at N = goalAgents.
func (r *report) verdict(b *strings.Builder) {
	for i := range r.phases {
		p := &r.phases[i]
		if p.agents != goalAgents {
			continue
		}
		ok := p.sseP99 < goalLagP99 && p.apiCores < goalAPICores && p.stored == p.published && p.sse.unseen == 0
		word := "FAIL"
		if ok {
			word = "PASS"
		}
		fmt.Fprintf(b, "**Goal (N = %d: SSE lag p99 < %v, API < %.0f core, nothing lost, every snapshot seen on SSE): %s** — "+
			"SSE lag p99 %s (notify lag p99 %s), API %.2f cores, %d of %d stored, %d unseen on SSE, %d SSE reconnects.\n",
			goalAgents, goalLagP99, goalAPICores, word, ms(p.sseP99), ms(p.lagP99), p.apiCores, p.stored, p.published,
			p.sse.unseen, p.sse.reconnects)
		return
	}
	fmt.Fprintf(b, "Goal (N = %d) not measured: no phase with %d agents.\n", goalAgents, goalAgents)
}

// sseEnd says how the phase's events stream ended.
func sseEnd(s *sseStats) string {
	switch {
	case s.result:
		return "ended with the result event"
	case s.err != nil:
		return "no result event: " + s.err.Error()
	default:
		return "no result event within " + sseEndWait.String() + " of the run's end"
	}
}

// ms formats d in milliseconds.
func ms(d time.Duration) string {
	return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
}
