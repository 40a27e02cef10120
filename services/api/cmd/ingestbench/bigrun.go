package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// The big-run scenario seeds one completed run of -agents shards and
// -seconds seconds through the real ingest path, publishing the seconds as
// fast as the API stores them rather than one a second, then holds the API
// up for a browser bench of its result page (web/bench/agents.bench.ts
// with WEB_BENCH_API): it writes the API's address, the run and the
// admin's credentials to -hold as JSON and waits until it is interrupted.
// With -live N it writes -hold while the run is still running, after all
// but its last N seconds, then publishes those one a second, as agents do,
// for a browser bench of the live view (web/bench/live.bench.ts).

// bigRunResult is what the big-run scenario seeded.
type bigRunResult struct {
	runID           string
	shards, seconds int
	published       int
	stored          int
	status          string
	took            time.Duration
	apiCores        float64
	intervalsStored int
	holdFile        string
}

// holdInfo is the -hold file: what the browser bench needs.
type holdInfo struct {
	Base     string `json:"base"`
	Run      string `json:"run"`
	Email    string `json:"email"`
	Password string `json:"password"`
	Seconds  int    `json:"seconds"`
	Shards   int    `json:"shards"`
	// Live is the seconds still to come, one a second, when the file was
	// written (-live); 0 when the run had ended.
	Live int `json:"live"`
}

// bigRun plays the run, waits until it completed with every snapshot
// stored, and holds when cfg.hold is set.
func (e *env) bigRun(ctx context.Context, logw io.Writer) (bigRunResult, error) {
	n, secs := e.cfg.agents[0], e.cfg.seconds
	res := bigRunResult{shards: n, seconds: secs, holdFile: e.cfg.hold}
	tag := "big-" + strconv.FormatInt(time.Now().Unix(), 36)
	fl, err := startFleet(ctx, e.js, n, tag)
	if err != nil {
		return res, err
	}
	defer fl.stop()
	if res.runID, err = e.createRun(ctx, n, tag, secs); err != nil {
		return res, err
	}
	e.events.reset(res.runID)
	startAt, agents, err := takeAssignments(ctx, e.js, res.runID, n)
	if err != nil {
		return res, err
	}
	if err := sleepUntil(ctx, startAt); err != nil {
		return res, err
	}
	progress(logw, "big run %s: publishing %d seconds of %d shards as fast as they are stored", res.runID, secs, n)
	before, err := e.sample(ctx)
	if err != nil {
		return res, err
	}
	pub := &publisher{js: e.js, runID: res.runID, agents: agents, shards: n, values: e.cfg.values, seconds: secs, startAt: startAt, pool: e.pool}
	began := time.Now()
	if err := e.publishRun(ctx, logw, pub, res.runID); err != nil {
		return res, err
	}
	res.published = n*(secs+1) - pub.failed
	// The run's deadline is an hour ahead: wait for its end and its snapshots, up to 10 minutes.
	deadline := time.Now().Add(10 * time.Minute)
	for {
		ended, status := e.events.done()
		if res.stored, err = e.stored(ctx, res.runID); err != nil {
			return res, err
		}
		if !ended.IsZero() && res.stored >= n*(secs+1) {
			res.status = status
			break
		}
		if time.Now().After(deadline) {
			return res, fmt.Errorf("run %s: %d of %d snapshots stored, ended %v, after 10 minutes", res.runID, res.stored, n*(secs+1), !ended.IsZero())
		}
		if err := sleepUntil(ctx, time.Now().Add(200*time.Millisecond)); err != nil {
			return res, err
		}
	}
	res.took = time.Since(began)
	after, err := e.sample(ctx)
	if err != nil {
		return res, err
	}
	res.apiCores = float64(after.apiTicks-before.apiTicks) / clkTck / after.at.Sub(before.at).Seconds()
	if err := e.db.QueryRow(ctx, `SELECT count(*) FROM run_intervals WHERE run_id = $1::uuid`, res.runID).Scan(&res.intervalsStored); err != nil {
		return res, fmt.Errorf("count the run's seconds: %w", err)
	}
	progress(logw, "big run %s %s: %d of %d snapshots and %d seconds stored in %s", res.runID, res.status, res.stored, res.published,
		res.intervalsStored, res.took.Round(time.Second))
	if e.cfg.hold == "" {
		return res, nil
	}
	if e.cfg.live == 0 {
		if err := e.writeHold(res.runID, secs, n, 0); err != nil {
			return res, err
		}
	}
	progress(logw, "holding the API at %s for the browser bench (%s); interrupt to end", e.srv.Base, e.cfg.hold)
	<-ctx.Done()
	return res, nil
}

// publishRun publishes the run's seconds, as fast as they are stored, and
// then its finals. With -live it writes -hold before the last -live seconds
// and publishes those one a second.
func (e *env) publishRun(ctx context.Context, logw io.Writer, pub *publisher, runID string) error {
	secs := pub.seconds
	fast := secs - e.cfg.live
	for k := 1; k <= fast; k++ {
		pub.second(ctx, k)
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	if e.cfg.live > 0 {
		// The hold file promises the seconds so far to whoever reads the run
		// next, so they must be stored first: ingest trails the acks.
		if err := e.waitStored(ctx, runID, pub.shards*fast, 5*time.Minute); err != nil {
			return err
		}
		if err := e.writeHold(runID, secs, pub.shards, e.cfg.live); err != nil {
			return err
		}
		progress(logw, "big run %s is live: publishing its last %d seconds one a second", runID, e.cfg.live)
		liveFrom := time.Now()
		for k := fast + 1; k <= secs; k++ {
			if err := sleepUntil(ctx, liveFrom.Add(time.Duration(k-fast-1)*time.Second)); err != nil {
				return err
			}
			pub.second(ctx, k)
		}
	}
	pub.finals(ctx)
	return nil
}

// waitStored waits until the run has want snapshots stored, up to within.
func (e *env) waitStored(ctx context.Context, runID string, want int, within time.Duration) error {
	deadline := time.Now().Add(within)
	for {
		n, err := e.stored(ctx, runID)
		if err != nil {
			return err
		}
		if n >= want {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("run %s: %d of %d snapshots stored after %s", runID, n, want, within)
		}
		if err := sleepUntil(ctx, time.Now().Add(100*time.Millisecond)); err != nil {
			return err
		}
	}
}

// writeHold writes the -hold file: where the API is, the run, and how to
// sign in. live is the seconds of the run still to come.
func (e *env) writeHold(runID string, secs, shards, live int) error {
	// The API's admin is BARRAGE_ADMIN_EMAIL's default; its password is the token (server.go).
	info, _ := json.Marshal(holdInfo{ //nolint:gosec // the bench's own throwaway admin token, for the browser bench on this machine
		Base: e.srv.Base, Run: runID, Email: "admin@barrage.local", Password: e.token, Seconds: secs, Shards: shards, Live: live})
	if err := os.WriteFile(e.cfg.hold, append(info, '\n'), 0o600); err != nil { // the token: the owner's only
		return fmt.Errorf("write -hold: %w", err)
	}
	return nil
}

// bigRunMarkdown renders the big-run scenario's report.
func (r *report) bigRunMarkdown() string {
	b := &strings.Builder{}
	br := r.big
	fmt.Fprintf(b, "# Big run seeded through ingest — %s\n\n", r.started.Format("2006-01-02"))
	r.header(b)
	fmt.Fprintf(b, "\nRun %s: %d shards × %d seconds, %s; %d of %d snapshots and %d seconds stored in %s (API %.2f cores while it stored them).\n",
		br.runID, br.shards, br.seconds, br.status, br.stored, br.published, br.intervalsStored, br.took.Round(time.Second), br.apiCores)
	return b.String()
}
