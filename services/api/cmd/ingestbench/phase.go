package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/barrage-dev/barrage/services/api/client"
	"github.com/barrage-dev/barrage/services/api/internal/benchproc"
	"github.com/barrage-dev/barrage/services/api/internal/live"
)

// phaseResult is what one agent count measured.
type phaseResult struct {
	agents, seconds              int
	runID, status                string
	published, stored, pubFailed int
	events                       int
	wantCount, count             int64
	lagP50, lagP99, lagMax       time.Duration // publish → commit notification
	sse                          sseStats
	sseP50, sseP99, sseMax       time.Duration // publish → SSE interval event
	window                       time.Duration
	apiCores, machineCores       float64
	rowsPerSec, commitsPerSec    float64
	snapsPerSec                  float64
	lostShards, warnings         int
	drained                      time.Duration // last final published → run ended
}

// eventLog collects the ingester's commit notifications of one run.
type eventLog struct {
	mu     sync.Mutex
	run    string
	second map[int][]time.Time
	ended  time.Time
	status string
}

// listen records, for the current run, the arrival time of each event.
func (l *eventLog) listen(m *nats.Msg) {
	at := time.Now()
	var e live.Event
	if json.Unmarshal(m.Data, &e) != nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if e.RunID.String() != l.run {
		return
	}
	switch {
	case e.Final && e.Status != "": // the run ended
		l.ended, l.status = at, string(e.Status)
	case !e.Final && e.Status == "": // an interval, not a status change
		l.second[e.Second] = append(l.second[e.Second], at)
	}
}

// reset points l at run id.
func (l *eventLog) reset(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.run, l.second, l.ended, l.status = id, map[int][]time.Time{}, time.Time{}, ""
}

// done returns the run's end time and status, zero until it ended.
func (l *eventLog) done() (time.Time, string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ended, l.status
}

// lags pairs, second by second, the i-th snapshot published with the
// i-th commit notification received (events do not name their shard),
// and returns the lags and the number of events.
func (l *eventLog) lags(sent [][]time.Time) ([]time.Duration, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []time.Duration
	events := 0
	for k, pub := range sent {
		got := slices.Clone(l.second[k])
		events += len(got)
		slices.SortFunc(got, func(a, b time.Time) int { return a.Compare(b) })
		pub = slices.Clone(pub)
		slices.SortFunc(pub, func(a, b time.Time) int { return a.Compare(b) })
		for i := range min(len(pub), len(got)) {
			out = append(out, got[i].Sub(pub[i]))
		}
	}
	return out, events
}

// env is what every phase shares.
type env struct {
	cfg    config
	js     jetstream.JetStream
	db     *pgx.Conn
	srv    *benchproc.Process
	token  string
	pool   *pool
	events *eventLog
	client *http.Client
	stream *http.Client // for the events streams: no timeout
}

// createRun posts a run of n shards, seconds long, that only the fleet
// tagged tag matches.
func (e *env) createRun(ctx context.Context, n int, tag string, seconds int) (string, error) {
	body, _ := json.Marshal(map[string]any{
		"project": "default", "name": "ingest bench " + tag,
		"spec": map[string]any{
			"url": "http://127.0.0.1:9/", "qps": 10 * n, "connections": n,
			"duration": strconv.Itoa(seconds) + "s",
			"agents":   map[string]any{"count": n, "selector": map[string]string{"bench-phase": tag}},
		},
	})
	api, err := client.New(e.srv.Base, e.token, client.WithHTTPClient(e.client))
	if err != nil {
		return "", err
	}
	resp, err := api.CreateRunWithBody(ctx, &client.CreateRunParams{}, "application/json", bytes.NewReader(body))
	if err != nil {
		return "", fmt.Errorf("POST /runs: %w", err)
	}
	defer resp.Body.Close()
	var run client.Run
	raw, err := client.Decode(resp, &run)
	if err != nil {
		return "", fmt.Errorf("POST /runs: %w", err)
	}
	if resp.StatusCode != http.StatusCreated {
		return "", fmt.Errorf("POST /runs = %d: %s", resp.StatusCode, raw)
	}
	return run.Id.String(), nil
}

// phase plays n agents through one run and measures it.
func (e *env) phase(ctx context.Context, n int, logw io.Writer) (phaseResult, error) {
	res := phaseResult{agents: n, seconds: e.cfg.seconds, wantCount: int64(n * e.cfg.values * e.cfg.seconds)}
	tag := "n" + strconv.Itoa(n) + "-" + strconv.FormatInt(time.Now().Unix(), 36)
	fl, err := startFleet(ctx, e.js, n, tag)
	if err != nil {
		return res, err
	}
	defer fl.stop()
	if res.runID, err = e.createRun(ctx, n, tag, e.cfg.seconds); err != nil {
		return res, err
	}
	e.events.reset(res.runID)
	sse := startSSE(ctx, e.stream, e.srv.Base, e.token, res.runID)
	defer sse.close()
	if err := sse.waitConnected(ctx); err != nil {
		return res, err
	}
	startAt, agents, err := takeAssignments(ctx, e.js, res.runID, n)
	if err != nil {
		return res, err
	}
	progress(logw, "N=%d: run %s planned, starting at %s", n, res.runID, startAt.Format(time.TimeOnly))
	pub := &publisher{js: e.js, runID: res.runID, agents: agents, shards: n, values: e.cfg.values, seconds: e.cfg.seconds, startAt: startAt, pool: e.pool}
	if err := sleepUntil(ctx, startAt); err != nil {
		return res, err
	}
	warned := e.srv.Warnings()
	before, err := e.sample(ctx)
	if err != nil {
		return res, err
	}
	for k := 1; k <= e.cfg.seconds; k++ {
		if err := sleepUntil(ctx, startAt.Add(time.Duration(k)*time.Second)); err != nil {
			return res, err
		}
		pub.second(ctx, k)
	}
	pub.finals(ctx)
	finalsSent := time.Now()
	progress(logw, "N=%d: %d snapshots published; waiting for the run to end", n, n*(e.cfg.seconds+1))
	if err := e.waitEnd(ctx, res.runID, n*(e.cfg.seconds+1), startAt); err != nil {
		progress(logw, "N=%d: %v", n, err)
	}
	sse.stop()
	ended, status := e.events.done()
	if ended.IsZero() {
		ended = time.Now()
	}
	res.status, res.drained = status, ended.Sub(finalsSent)
	after, err := e.sample(ctx)
	if err != nil {
		return res, err
	}
	res.warnings = e.srv.Warnings() - warned
	res.sse = sse.stats(pub.sent)
	res.sseP50, res.sseP99, res.sseMax = percentile(res.sse.lags, 50), percentile(res.sse.lags, 99), percentile(res.sse.lags, 100)
	err = e.fill(ctx, &res, pub, before, after, startAt, ended)
	return res, err
}

// waitEnd waits until the run ended and every snapshot is stored, or
// the deadline, the final grace and a minute more passed.
func (e *env) waitEnd(ctx context.Context, id string, want int, startAt time.Time) error {
	end := startAt.Add(time.Duration(e.cfg.seconds)*time.Second + 2*time.Second + 10*time.Second + time.Minute)
	for {
		ended, _ := e.events.done()
		stored, err := e.stored(ctx, id)
		if err != nil {
			return err
		}
		if !ended.IsZero() && stored >= want {
			return nil
		}
		if time.Now().After(end) {
			return fmt.Errorf("run %s: %d of %d snapshots stored, ended %v, at the time limit", id, stored, want, !ended.IsZero())
		}
		if err := sleepUntil(ctx, time.Now().Add(200*time.Millisecond)); err != nil {
			return err
		}
	}
}

// stored counts the snapshots of run id in Postgres.
func (e *env) stored(ctx context.Context, id string) (int, error) {
	var n int
	err := e.db.QueryRow(ctx, `SELECT count(*) FROM run_snapshots WHERE run_id = $1::uuid`, id).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count stored snapshots: %w", err)
	}
	return n, nil
}

// fill computes res's figures from the samples around the phase.
func (e *env) fill(ctx context.Context, res *phaseResult, pub *publisher, before, after sample, startAt, ended time.Time) error {
	lags, events := e.events.lags(pub.sent)
	res.events = events
	res.lagP50, res.lagP99, res.lagMax = percentile(lags, 50), percentile(lags, 99), percentile(lags, 100)
	res.published = res.agents * (res.seconds + 1)
	res.pubFailed = pub.failed
	var err error
	if res.stored, err = e.stored(ctx, res.runID); err != nil {
		return err
	}
	var count *int64
	err = e.db.QueryRow(ctx, `SELECT r.count, coalesce(x.lost_shards, -1) FROM runs r
		LEFT JOIN run_results x ON x.run_id = r.id WHERE r.id = $1::uuid`, res.runID).Scan(&count, &res.lostShards)
	if err != nil {
		return fmt.Errorf("read the run: %w", err)
	}
	if count != nil {
		res.count = *count
	}
	res.window = ended.Sub(startAt)
	secs := after.at.Sub(before.at).Seconds()
	res.apiCores = float64(after.apiTicks-before.apiTicks) / clkTck / secs
	res.machineCores = float64(after.busyTicks-before.busyTicks) / clkTck / secs
	res.rowsPerSec = float64(after.rows-before.rows) / secs
	res.commitsPerSec = float64(after.commits-before.commits) / secs
	res.snapsPerSec = float64(res.stored) / res.window.Seconds()
	return nil
}

// sleepUntil sleeps until t or ctx ends.
func sleepUntil(ctx context.Context, t time.Time) error {
	timer := time.NewTimer(time.Until(t))
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}

// percentile returns the p-th percentile of ds (nearest rank); 0 when empty.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(float64(len(s))*p/100+0.5) - 1
	return s[max(0, min(i, len(s)-1))]
}
