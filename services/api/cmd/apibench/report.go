package main

import (
	"debug/buildinfo"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/barrage-dev/barrage/services/api/internal/store"
)

// goalP99 is the goal for every list case: p99 below it.
const goalP99 = 30 * time.Millisecond

// report is everything the bench found.
type report struct {
	cfg        config
	started    time.Time
	machine    machine
	server     string
	loadBefore string
	loadAfter  string

	pgVersion        string
	pgSharedBuffers  string
	pgWorkMem        string
	pgRandomPageCost string

	seed      seedInfo
	lists     lists
	posts     posts
	compare   compares
	plans     []plan
	listDials int64
	dials     int64
}

// machine describes where the bench ran.
type machine struct {
	cpus     int
	model    string
	kernel   string
	goBench  string
	goServer string
	commit   string
}

// machineInfo reads the machine, the toolchains and the commit.
func machineInfo(apiBin string) machine {
	m := machine{cpus: runtime.NumCPU(), model: "unknown CPU", kernel: "unknown kernel",
		goBench: runtime.Version(), goServer: runtime.Version() + " (in-process)", commit: "no commit"}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			k, v, ok := strings.Cut(line, ":")
			if k = strings.TrimSpace(k); ok && (k == "model name" || k == "Model" || k == "Hardware") {
				m.model = strings.TrimSpace(v)
				break
			}
		}
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.kernel = "Linux " + strings.TrimSpace(string(b))
	}
	if apiBin != "" {
		m.goServer = "unknown"
		if bi, err := buildinfo.ReadFile(apiBin); err == nil {
			m.goServer = bi.GoVersion
		}
	}
	if out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output(); err == nil {
		m.commit = strings.TrimSpace(string(out))
		if st, err := exec.Command("git", "status", "--porcelain").Output(); err == nil && len(st) > 0 {
			m.commit += " (working tree has uncommitted changes)"
		}
	}
	return m
}

// markdown renders the report.
func (r *report) markdown() string {
	var b strings.Builder
	r.header(&b)
	r.listSection(&b)
	r.walkSection(&b)
	r.compareSection(&b)
	r.postSection(&b)
	r.cpuSection(&b)
	r.planSection(&b)
	return b.String()
}

// header writes the title and the setting.
func (r *report) header(b *strings.Builder) {
	s := r.seed
	fmt.Fprintf(b, "# API latency: barrage-api lists and run creation, %s\n\n", r.started.Format(time.DateOnly))
	fmt.Fprintf(b, "- Date: %s UTC\n", r.started.Format(time.DateTime))
	fmt.Fprintf(b, "- Machine: %d CPUs (nproc), %s, %s\n", r.machine.cpus, r.machine.model, r.machine.kernel)
	fmt.Fprintf(b, "- Go: apibench built with %s; barrage-api built with %s\n", r.machine.goBench, r.machine.goServer)
	fmt.Fprintf(b, "- Postgres: %s (SHOW server_version); shared_buffers %s, work_mem %s, random_page_cost %s\n",
		r.pgVersion, r.pgSharedBuffers, r.pgWorkMem, r.pgRandomPageCost)
	fmt.Fprintf(b, "- Barrage commit: %s\n", r.machine.commit)
	fmt.Fprintf(b, "- API: %s; BARRAGE_RATE_LIMIT=0 (no per-caller limit), listening on 127.0.0.1:0, "+
		"other settings default (Postgres pool of 20 connections)\n", r.server)
	fmt.Fprintf(b, "- Database: %s, dropped and recreated at start, left in place afterwards\n", store.RedactURL(r.cfg.databaseURL))
	fmt.Fprintf(b, "- Data: %d runs: %d in project `default`, %d in project `%s`; created evenly over the last 30 days; "+
		"one run created through the API, the rest copied from it by one `INSERT ... SELECT FROM generate_series` "+
		"(random v4 ids), then `VACUUM (ANALYZE) runs`; %s\n", s.total, s.inDefault, s.inOther, otherProject, s.took.Round(time.Millisecond))
	st := make([]string, len(s.statuses))
	for i, c := range s.statuses {
		st[i] = fmt.Sprintf("%s %d", c.status, c.n)
	}
	if c := r.compare.seed; r.cfg.compareSamples > 0 {
		fmt.Fprintf(b, "- Results: every completed run has a `run_results` row (%d rows; response and service HDR histograms of %d values each, "+
			"%d bytes per row, %d distinct pairs; return codes and totals from the run), one `INSERT ... SELECT`, then `VACUUM (ANALYZE)`; %s\n",
			c.rows, resultValues, c.rowBytes, resultVariants, c.took.Round(time.Millisecond))
	}
	fmt.Fprintf(b, "- Project `default` by status: %s; with label bench=api: %d\n", strings.Join(st, ", "), s.labelledAPI)
	fmt.Fprintf(b, "- Client: Go net/http, one `http.Transport` (keep-alive, no proxy) for every request; list requests one at a time; "+
		"TCP connections it opened: %d for the lists, %d in all\n", r.listDials, r.dials)
	fmt.Fprintf(b, "- Load average (1, 5, 15 min) before: %s; after: %s\n", r.loadBefore, r.loadAfter)
	if r.cfg.note != "" {
		fmt.Fprintf(b, "- Note: %s\n", r.cfg.note)
	}
	b.WriteString("\n")
}

// listSection writes the timed list cases and the goal check.
func (r *report) listSection(b *strings.Builder) {
	fmt.Fprintf(b, "## List latency: `GET /api/v1/runs?project=default&limit=%d`\n\n", r.cfg.limit)
	fmt.Fprintf(b, "Cases: the first, the middle and the last full page of each list (pages found by the walk "+
		"below). Each case: %d untimed then %d timed requests, the cases taking turns (round-robin, so noise "+
		"from elsewhere spreads over all of them); latency from sending the request to the last byte of the "+
		"response, over one keep-alive connection.\n\n", r.cfg.warmup, r.cfg.samples)
	b.WriteString("| list | page | runs before it | items | p50 ms | p90 ms | p99 ms | max ms |\n")
	b.WriteString("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	var worst *listCase
	var worstP99 time.Duration
	for _, c := range r.lists.cases {
		st := summarize(c.lat)
		if worst == nil || st.p99 > worstP99 {
			worst, worstP99 = c, st.p99
		}
		fmt.Fprintf(b, "| %s | %s (%d of %d) | %d | %d | %s | %s | %s | %s |\n", c.walk.filter.name, c.which,
			c.pageNo, len(c.walk.pages), c.rowsBefore, c.page.items, ms(st.p50), ms(st.p90), ms(st.p99), ms(st.max))
	}
	b.WriteString("\n")
	if worst == nil {
		return
	}
	verdict := "PASS"
	if worstP99 >= goalP99 {
		verdict = "MISS"
	}
	fmt.Fprintf(b, "**Goal list p99 < %d ms: %s (worst p99 %s ms: %s, %s page)**\n\n",
		goalP99.Milliseconds(), verdict, ms(worstP99), worst.walk.filter.name, worst.which)
}

// walkSection writes the cursor walks.
func (r *report) walkSection(b *strings.Builder) {
	b.WriteString("### Cursor walks\n\n")
	b.WriteString("Before the timed cases, every list is walked from its first page to its last by `next_cursor`, " +
		"each page fetched once (cold for the API's code paths, not for Postgres's cache). The check: the pages " +
		"together hold every matching run (SQL `count(*)`) exactly once.\n\n")
	b.WriteString("| list | runs (SQL) | pages | runs seen | distinct | p50 ms | p90 ms | p99 ms | max ms | check |\n")
	b.WriteString("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n")
	for _, w := range r.lists.walks {
		st := summarize(w.lat)
		check := "OK"
		if int64(w.total) != w.rows || int64(w.seen) != w.rows {
			check = "MISMATCH"
		}
		fmt.Fprintf(b, "| %s | %d | %d | %d | %d | %s | %s | %s | %s | %s |\n", w.filter.name, w.rows, len(w.pages),
			w.total, w.seen, ms(st.p50), ms(st.p90), ms(st.p99), ms(st.max), check)
	}
	b.WriteString("\n")
}

// compareSection writes the compare latencies.
func (r *report) compareSection(b *strings.Builder) {
	if r.cfg.compareSamples <= 0 {
		return
	}
	c := r.compare
	b.WriteString("## Compare latency: `GET /api/v1/runs/compare?ids=...`\n\n")
	fmt.Fprintf(b, "Each request compares 2, 5 or 10 completed runs of project `default` drawn at random from %d of them "+
		"(`ORDER BY random()`), the cases taking turns: %d untimed then %d timed requests each, over one keep-alive connection. "+
		"The API reads each run and its `run_results` row and decodes its histograms. Every answer is checked: "+
		"the runs asked, in order, each with a count and a p99.\n\n", c.pool, r.cfg.warmup, r.cfg.compareSamples)
	b.WriteString("| runs compared | requests | p50 ms | p90 ms | p99 ms | max ms |\n| ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for _, cc := range c.cases {
		st := summarize(cc.lat)
		fmt.Fprintf(b, "| %d | %d | %s | %s | %s | %s |\n", cc.runs, st.n, ms(st.p50), ms(st.p90), ms(st.p99), ms(st.max))
	}
	b.WriteString("\n")
}

// postSection writes the run-creation throughput.
func (r *report) postSection(b *strings.Builder) {
	p := r.posts
	b.WriteString("## Run creation: `POST /api/v1/runs`\n\n")
	if r.cfg.postFor <= 0 {
		b.WriteString("Skipped (-post-seconds 0).\n\n")
		return
	}
	fmt.Fprintf(b, "%d workers send back to back for %v over the one client connection pool; body `%s`. "+
		"Each 201 is a transaction: the run, its dispatch outbox row and an audit entry. "+
		"Latencies are of the 201s.\n\n", p.workers, r.cfg.postFor, runBody)
	b.WriteString("| workers | seconds | 201 | other answers | runs/s | p50 ms | p90 ms | p99 ms | max ms | rows added (SQL) | check |\n")
	b.WriteString("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n")
	st := summarize(p.lat)
	failed := 0
	for _, n := range p.failures {
		failed += n
	}
	added := p.rowsAfter - p.rowsBefore
	check := "OK"
	if added != int64(p.created) {
		check = "MISMATCH"
	}
	fmt.Fprintf(b, "| %d | %.1f | %d | %d | %.0f | %s | %s | %s | %s | %d | %s |\n", p.workers, p.elapsed.Seconds(),
		p.created, failed, float64(p.created)/p.elapsed.Seconds(), ms(st.p50), ms(st.p90), ms(st.p99), ms(st.max), added, check)
	b.WriteString("\n")
	keys := make([]string, 0, len(p.failures))
	for k := range p.failures {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Fprintf(b, "- %d × %s\n", p.failures[k], k)
	}
	if len(keys) > 0 {
		b.WriteString("\n")
	}
}

// cpuSection writes the CPU each phase used.
func (r *report) cpuSection(b *strings.Builder) {
	b.WriteString("## CPU by phase\n\n")
	b.WriteString("API: utime+stime of the barrage-api process (/proc/PID/stat; n/a in-process). apibench: this " +
		"process (getrusage; includes the API in-process). Rest: machine-wide busy time (/proc/stat) less both: " +
		"Postgres and whatever else ran. Busy and steal: % of all CPUs.\n\n")
	b.WriteString("| phase | wall s | requests | API CPU s | API µs/request | apibench CPU s | rest CPU s | machine busy % | steal % |\n")
	b.WriteString("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	phases := []phaseUsage{r.lists.walkUsage, r.lists.sampleUsage}
	if r.cfg.compareSamples > 0 {
		phases = append(phases, r.compare.usage)
	}
	if r.cfg.postFor > 0 {
		phases = append(phases, r.posts.usage)
	}
	for _, u := range phases {
		api, perReq := "n/a", "n/a"
		if u.server >= 0 {
			api = fmt.Sprintf("%.2f", u.server.Seconds())
			if u.requests > 0 {
				perReq = fmt.Sprintf("%.0f", float64(u.server.Microseconds())/float64(u.requests))
			}
		}
		fmt.Fprintf(b, "| %s | %.1f | %d | %s | %s | %.2f | %.2f | %.0f | %.0f |\n", u.name, u.wall.Seconds(), u.requests,
			api, perReq, u.self.Seconds(), u.rest.Seconds(), u.busyPct, u.stealPct)
	}
	b.WriteString("\n")
}

// planSection writes the query plans.
func (r *report) planSection(b *strings.Builder) {
	b.WriteString("## Query plans\n\n")
	b.WriteString("The statement the store builds for each page above (reproduced by apibench from " +
		"`services/api/internal/store/runs_list.go`), prepared and run under `EXPLAIN (ANALYZE, BUFFERS)`, " +
		"planned for its values (custom) and generically (what a prepared statement may switch to: the API's " +
		"driver prepares and caches its statements per connection).\n\n")
	b.WriteString("| list | page | plan | nodes | execution ms |\n| --- | --- | --- | --- | ---: |\n")
	for _, p := range r.plans {
		fmt.Fprintf(b, "| %s | %s (%d) | %s | %s | %s |\n", p.c.walk.filter.name, p.c.which, p.c.pageNo, p.mode, p.summary, p.exec)
	}
	b.WriteString("\n<details><summary>Plans of the middle and last pages</summary>\n\n")
	for _, p := range r.plans {
		if p.c.which == "first" {
			continue
		}
		fmt.Fprintf(b, "%s, %s page (%d), %s plan:\n\n```text\n%s\n```\n\n",
			p.c.walk.filter.name, p.c.which, p.c.pageNo, p.mode, p.text)
	}
	b.WriteString("</details>\n")
}
