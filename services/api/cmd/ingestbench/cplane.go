package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/barrage-dev/barrage/pkg/wire"
	"github.com/barrage-dev/barrage/services/api/internal/benchproc"
)

// cpRun is one run of the control-plane scenario as the bench played it.
type cpRun struct {
	id      string
	fleet   *fleet // heartbeating until the run ended, as live agents do
	pub     *publisher
	viewers []*sseWatch
	err     error
}

// cpResult is what the control-plane scenario measured.
type cpResult struct {
	runs, agents, seconds, viewers, reads int
	seedIDs                               []string
	statuses                              map[string]int
	published, stored, pubFailed          int
	wantCount, count                      int64
	short                                 []string // runs whose stored snapshots or count fell short
	runErrs                               []string
	queued                                uint64   // snapshots still in the JetStream stream at the end
	sse                                   sseStats // every viewer's, summed
	noResult                              int      // viewers that saw no result event
	sseP50, sseP99, sseMax                time.Duration
	list, compare                         reads
	window                                time.Duration
	apiCores, machineCores                float64
	rowsPerSec, commitsPerSec             float64
	loadBefore, loadAfter                 string
}

// reads are the timed list or compare calls.
type reads struct {
	lat    []time.Duration
	failed int
	errs   map[string]int
}

// controlPlane plays cfg.runs runs of cfg.agents simulated agents each at
// once, cfg.viewers SSE viewers spread over them and cfg.reads list and
// compare calls a second, after cfg.seedRuns short runs the compare calls
// compare.
func (e *env) controlPlane(ctx context.Context, logw io.Writer) (cpResult, error) {
	res := cpResult{runs: e.cfg.runs, agents: e.cfg.agents[0], seconds: e.cfg.seconds, viewers: e.cfg.viewers,
		reads: e.cfg.reads, statuses: map[string]int{}}
	n := res.agents
	tk, err := startTaker(ctx, e.js)
	if err != nil {
		return res, err
	}
	defer tk.stop()
	progress(logw, "seeding %d completed runs of %d agents (3 s) for the compare calls", seedRuns, n)
	seed, seedPlayed, err := e.wave(ctx, tk, seedRuns, n, 3, 0, "seed")
	if err != nil {
		return res, err
	}
	seedPlayed()
	for _, r := range seed {
		res.seedIDs = append(res.seedIDs, r.id)
	}
	_, err = e.waitRuns(ctx, seed, 3)
	stopFleets(seed)
	if err != nil {
		return res, err
	}
	rctx, stopReads := context.WithCancel(ctx)
	var readers sync.WaitGroup
	readers.Go(func() { e.readLoop(rctx, &res) })
	res.loadBefore = benchproc.LoadAvg()
	before, err := e.sample(ctx)
	if err != nil {
		stopReads()
		return res, err
	}
	progress(logw, "%d runs of %d agents for %d s, %d SSE viewers, %d list and compare calls/s", res.runs, n, res.seconds, res.viewers, res.reads)
	runs, played, err := e.wave(ctx, tk, res.runs, n, res.seconds, res.viewers, "cp")
	if err != nil {
		stopReads()
		readers.Wait()
		return res, err
	}
	played()
	ended, err := e.waitRuns(ctx, runs, res.seconds)
	stopFleets(runs)
	if err != nil {
		progress(logw, "%v", err)
	}
	after, serr := e.sample(ctx)
	res.loadAfter = benchproc.LoadAvg()
	stopReads()
	readers.Wait()
	if serr != nil {
		return res, serr
	}
	var wg sync.WaitGroup
	for _, r := range runs {
		for _, v := range r.viewers {
			wg.Go(v.stop)
		}
	}
	wg.Wait()
	first := time.Now()
	for _, r := range runs {
		if r.pub != nil && r.pub.startAt.Before(first) {
			first = r.pub.startAt
		}
	}
	res.window = ended.Sub(first)
	secs := after.at.Sub(before.at).Seconds()
	res.apiCores = float64(after.apiTicks-before.apiTicks) / clkTck / secs
	res.machineCores = float64(after.busyTicks-before.busyTicks) / clkTck / secs
	res.rowsPerSec = float64(after.rows-before.rows) / secs
	res.commitsPerSec = float64(after.commits-before.commits) / secs
	err = e.tally(ctx, &res, runs)
	return res, err
}

// stopFleets stops the heartbeats of every run's agents.
func stopFleets(runs []*cpRun) {
	for _, r := range runs {
		if r != nil {
			r.fleet.stop()
		}
	}
}

// seedRuns is how many completed runs the compare calls draw from.
const seedRuns = 5

// wave creates count runs of n simulated agents each, seconds long, with
// viewers SSE viewers spread over them, and plays every run's snapshots
// in its own goroutine; it returns once every run is created, with a
// function that waits for every run's publisher. The runs' agents
// heartbeat until stopFleets.
func (e *env) wave(ctx context.Context, tk *taker, count, n, seconds, viewers int, prefix string) ([]*cpRun, func(), error) {
	runs := make([]*cpRun, count)
	stamp := strconv.FormatInt(time.Now().Unix(), 36)
	var wg sync.WaitGroup
	for i := range count {
		tag := prefix + strconv.Itoa(i) + "-" + stamp
		fl, err := startFleet(ctx, e.js, n, tag)
		if err != nil {
			wg.Wait()
			stopFleets(runs)
			return nil, nil, err
		}
		id, err := e.createRun(ctx, n, tag, seconds)
		if err != nil {
			fl.stop()
			wg.Wait()
			stopFleets(runs)
			return nil, nil, err
		}
		r := &cpRun{id: id, fleet: fl}
		for v := i; v < viewers; v += count {
			r.viewers = append(r.viewers, startSSE(ctx, e.stream, e.srv.Base, e.token, id))
		}
		runs[i] = r
		wg.Go(func() { r.err = e.play(ctx, tk, r, n, seconds) })
	}
	return runs, wg.Wait, nil
}

// play waits for run r's assignments and publishes its snapshots.
func (e *env) play(ctx context.Context, tk *taker, r *cpRun, n, seconds int) error {
	startAt, agents, err := tk.wait(ctx, r.id, n)
	if err != nil {
		return err
	}
	pub := &publisher{js: e.js, runID: r.id, agents: agents, shards: n, values: e.cfg.values, seconds: seconds, startAt: startAt, pool: e.pool}
	r.pub = pub
	for _, v := range r.viewers {
		if err := v.waitConnected(ctx); err != nil {
			return err
		}
	}
	for k := 1; k <= seconds; k++ {
		if err := sleepUntil(ctx, startAt.Add(time.Duration(k)*time.Second)); err != nil {
			return err
		}
		pub.second(ctx, k)
	}
	pub.finals(ctx)
	return nil
}

// waitRuns waits until every run is terminal with every snapshot stored,
// or its deadline and a minute and a half more passed; while the stored
// snapshots still grow (a backlog draining) it waits on, up to ten
// minutes more. It returns when the last one ended.
func (e *env) waitRuns(ctx context.Context, runs []*cpRun, seconds int) (time.Time, error) {
	ids := make([]string, len(runs))
	for i, r := range runs {
		ids[i] = r.id
	}
	end := time.Now().Add(time.Duration(seconds)*time.Second + 90*time.Second)
	hard := end.Add(10 * time.Minute)
	var last int
	grew := time.Now()
	for {
		var pending, stored int
		err := e.db.QueryRow(ctx, `SELECT
			(SELECT count(*) FROM runs r WHERE r.id = ANY($1::uuid[])
			 AND (r.status NOT IN ('completed', 'failed', 'canceled') OR (SELECT count(*) FROM run_snapshots s WHERE s.run_id = r.id) < r.shard_count * ($2::int + 1))),
			(SELECT count(*) FROM run_snapshots WHERE run_id = ANY($1::uuid[]))`,
			ids, seconds).Scan(&pending, &stored)
		if err != nil {
			return time.Now(), fmt.Errorf("read the runs: %w", err)
		}
		if pending == 0 {
			return time.Now(), nil
		}
		if stored > last {
			last, grew = stored, time.Now()
		}
		if now := time.Now(); now.After(hard) || (now.After(end) && now.Sub(grew) > 30*time.Second) {
			return now, fmt.Errorf("%d of %d runs not ended with every snapshot stored at the time limit", pending, len(runs))
		}
		if err := sleepUntil(ctx, time.Now().Add(200*time.Millisecond)); err != nil {
			return time.Now(), err
		}
	}
}

// tally compares what every run stored with what its agents sent, and
// sums the viewers' lags.
func (e *env) tally(ctx context.Context, res *cpResult, runs []*cpRun) error {
	for _, r := range runs {
		if r.err != nil {
			res.runErrs = append(res.runErrs, r.id+": "+r.err.Error())
		}
		published := res.agents * (res.seconds + 1)
		want := int64(res.agents * e.cfg.values * res.seconds)
		stored, err := e.stored(ctx, r.id)
		if err != nil {
			return err
		}
		var status, why string
		var count *int64
		if err := e.db.QueryRow(ctx, `SELECT status, count, coalesce(error, '') FROM runs WHERE id = $1::uuid`, r.id).Scan(&status, &count, &why); err != nil {
			return fmt.Errorf("read run %s: %w", r.id, err)
		}
		res.statuses[status]++
		res.published += published
		res.stored += stored
		res.wantCount += want
		if count != nil {
			res.count += *count
		}
		if stored != published || count == nil || *count != want {
			line := fmt.Sprintf("%s (%s, %d of %d snapshots, count %v of %d)", r.id, status, stored, published, deref(count), want)
			if why != "" {
				line += ": " + why
			}
			res.short = append(res.short, line)
		}
		if r.pub == nil {
			continue
		}
		res.pubFailed += r.pub.failed
		for _, v := range r.viewers {
			st := v.stats(r.pub.sent)
			res.sse.lags = append(res.sse.lags, st.lags...)
			res.sse.events += st.events
			res.sse.intervals += st.intervals
			res.sse.reconnects += st.reconnects
			res.sse.unseen += st.unseen
			if !st.result {
				res.noResult++
			}
		}
	}
	res.sseP50, res.sseP99, res.sseMax = percentile(res.sse.lags, 50), percentile(res.sse.lags, 99), percentile(res.sse.lags, 100)
	st, err := e.js.Stream(ctx, wire.SnapStream)
	if err != nil {
		return fmt.Errorf("snapshot stream: %w", err)
	}
	info, err := st.Info(ctx)
	if err != nil {
		return fmt.Errorf("snapshot stream: %w", err)
	}
	res.queued = info.State.Msgs
	return nil
}

func deref(p *int64) any {
	if p == nil {
		return "none"
	}
	return *p
}

// readLoop makes cfg.reads calls a second until ctx ends, alternating a
// list of the project's runs and a compare of the seeded runs, each call
// in its own goroutine so that a slow answer delays no other call.
func (e *env) readLoop(ctx context.Context, res *cpResult) {
	listURL := e.srv.Base + "/api/v1/runs?project=default&limit=50"
	compareURL := e.srv.Base + "/api/v1/runs/compare?ids=" + url.QueryEscape(strings.Join(res.seedIDs, ","))
	var mu sync.Mutex
	var wg sync.WaitGroup
	defer wg.Wait()
	t := time.NewTicker(time.Second / time.Duration(e.cfg.reads))
	defer t.Stop()
	for i := 0; ; i++ {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		u, into := listURL, &res.list
		if i%2 == 1 {
			u, into = compareURL, &res.compare
		}
		wg.Go(func() {
			d, err := e.timedGet(ctx, u)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if ctx.Err() == nil {
					into.failed++
					if into.errs == nil {
						into.errs = map[string]int{}
					}
					into.errs[err.Error()]++
				}
				return
			}
			into.lat = append(into.lat, d)
		})
	}
}

// timedGet GETs u with the admin token, reads the whole answer and
// returns how long that took; anything but 200 is an error.
func (e *env) timedGet(ctx context.Context, u string) (time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, http.NoBody)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+e.token)
	start := time.Now()
	resp, err := e.client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return 0, err
	}
	d := time.Since(start)
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("status %d", resp.StatusCode)
	}
	return d, nil
}
