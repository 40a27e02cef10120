//go:build soak

package faultsuite

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/services/api/client"
)

// soakConfig is the soak's environment (make soak, bench/soak).
type soakConfig struct {
	duration   time.Duration // SOAK_DURATION, default 30m
	qps        int           // SOAK_QPS, default 5000
	sse        int           // SOAK_SSE subscribers, default 200
	concurrent int           // SOAK_CONCURRENT runs, default 50
	every      time.Duration // SOAK_SAMPLE_EVERY, default 10s
	out        string        // SOAK_OUT: the Markdown section's file; empty = the test log
}

func readSoakConfig(t *testing.T) soakConfig {
	t.Helper()
	c := soakConfig{duration: 30 * time.Minute, qps: 5000, sse: 200, concurrent: 50, every: 10 * time.Second,
		out: os.Getenv("SOAK_OUT")}
	for name, d := range map[string]*time.Duration{"SOAK_DURATION": &c.duration, "SOAK_SAMPLE_EVERY": &c.every} {
		if v := os.Getenv(name); v != "" {
			var err error
			if *d, err = time.ParseDuration(v); err != nil || *d <= 0 {
				t.Fatalf("%s=%q: want a positive duration", name, v)
			}
		}
	}
	for name, n := range map[string]*int{"SOAK_QPS": &c.qps, "SOAK_SSE": &c.sse, "SOAK_CONCURRENT": &c.concurrent} {
		if v := os.Getenv(name); v != "" {
			var err error
			if *n, err = strconv.Atoi(v); err != nil || *n < 1 {
				t.Fatalf("%s=%q: want a positive integer", name, v)
			}
		}
	}
	return c
}

// Shape of the soak's runs.
const (
	soakConns       = 32 // connections of the long run, over both agents
	concurrentQPS   = 20 // each of the concurrent runs, on one agent
	concurrentFor   = 5 * time.Second
	terminalGrace   = 2*time.Second + 30*time.Second // start delay and the suite's 30 s
	soakCapacity    = 32                             // shards per agent: the concurrent runs all fit
	soakAPIPoolSize = "BARRAGE_DB_MAX_CONNS=20"
)

// TestSoak is make soak's process part: 50 concurrent short runs, then
// one long run at 5k qps on 2 agents with 200 SSE subscribers, the API's
// and agents' RSS and goroutines sampled every 10 s. It fails on what
// must hold whatever the machine (every run terminal in time with its
// ledger right, every subscriber to the end); the goals (flat memory, lag
// under 1 s) are PASS/FAIL lines of the report.
func TestSoak(t *testing.T) {
	cfg := readSoakConfig(t)
	s := startStackWith(t, stackConfig{replicas: 1, agents: 2, capacity: soakCapacity, debug: true,
		// A long run may outlast the API's default longest run (1 h).
		apiEnv: []string{soakAPIPoolSize, "BARRAGE_MAX_DURATION=" + max(time.Hour, cfg.duration).String()}})
	rep := &soakReport{cfg: cfg, startedAt: time.Now().UTC()}
	rep.concurrent = s.concurrentRuns(t, cfg.concurrent)
	rep.long = s.longRun(t, cfg)
	md := rep.markdown()
	if cfg.out == "" {
		t.Log("\n" + md)
		return
	}
	if err := os.WriteFile(cfg.out, []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
}

// concurrentResult is what the concurrent runs phase saw.
type concurrentResult struct {
	runs, completed, degraded int
	counted, echoed           int64
	slowest                   time.Duration // submit to terminal
	bound                     time.Duration
}

// concurrentRuns submits n short runs at once and checks that each ends
// completed, whole, with its ledger right, within its deadline + 30 s.
func (s *stack) concurrentRuns(t *testing.T, n int) concurrentResult {
	t.Helper()
	before, _ := s.echoCount()
	res := concurrentResult{runs: n, bound: concurrentFor + terminalGrace}
	ids := make([]string, n)
	submitted := time.Now()
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			r, err := s.submitSpec(map[string]any{"url": s.echoURL + "/", "qps": concurrentQPS, "connections": 1,
				"duration": concurrentFor.String(), "agents": map[string]any{"count": 1}})
			ids[i], errs[i] = r.Id.String(), err
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatalf("submit a concurrent run: %v", err)
		}
	}
	done := s.waitAllTerminal(t, ids, res.bound+time.Since(submitted))
	for _, id := range ids {
		r := done[id]
		res.slowest = max(res.slowest, r.at.Sub(submitted))
		if r.Status == "completed" {
			res.completed++
		}
		if r.Degraded {
			res.degraded++
		}
		if r.Summary != nil {
			res.counted += r.Summary.Count
		}
		s.checkLedger(t, r.Run)
	}
	after, _ := s.echoCount()
	res.echoed = after - before
	if res.completed != n || res.degraded != 0 {
		t.Errorf("%d of %d concurrent runs completed, %d degraded", res.completed, n, res.degraded)
	}
	if res.echoed < res.counted || res.echoed > res.counted+int64(n) {
		t.Errorf("the echo answered %d requests, the concurrent runs counted %d", res.echoed, res.counted)
	}
	return res
}

// ended is a run seen terminal, and when.
type ended struct {
	client.Run
	at time.Time
}

// waitAllTerminal polls the runs until every one is terminal.
func (s *stack) waitAllTerminal(t *testing.T, ids []string, within time.Duration) map[string]ended {
	t.Helper()
	out := map[string]ended{}
	waitFor(t, within, fmt.Sprintf("%d runs terminal", len(ids)), func() error {
		for _, id := range ids {
			if _, ok := out[id]; ok {
				continue
			}
			var r client.Run
			if err := s.get("/runs/"+id, &r); err != nil {
				return err
			}
			switch r.Status {
			case "completed", "failed", "canceled":
				out[id] = ended{Run: r, at: time.Now()}
			}
		}
		if len(out) < len(ids) {
			return fmt.Errorf("%d of %d terminal", len(out), len(ids))
		}
		return nil
	})
	return out
}

// longResult is what the long run saw.
type longResult struct {
	r           client.Run
	length      time.Duration // from start_at to terminal
	counted     int64
	echoed      int64
	agentCounts map[int]int64
	sampler     *sampler
	subs        []*subscriber
	loadBefore  [3]float64
	loadAfter   [3]float64
}

// longRun runs the soak's long run, sampling memory and goroutines and
// feeding SSE subscribers until it ends, and checks its ledger.
func (s *stack) longRun(t *testing.T, cfg soakConfig) longResult {
	t.Helper()
	res := longResult{sampler: newSampler(s, cfg.every)}
	res.loadBefore, _ = loadAvg()
	before, _ := s.echoCount()
	r, err := s.submitSpec(map[string]any{"url": s.echoURL + "/", "qps": cfg.qps, "connections": soakConns,
		"duration": cfg.duration.String(), "agents": map[string]any{"count": 2}})
	if err != nil {
		t.Fatalf("submit the long run: %v", err)
	}
	s.waitRunning(t, r.Id.String(), 2)
	var got client.Run
	if err := s.get("/runs/"+r.Id.String(), &got); err != nil || got.StartAt == nil || got.StartAt.IsZero() {
		t.Fatalf("start_at of run %s: %v", r.Id, err)
	}
	startAt := *got.StartAt
	sampleCtx, stopSampling := context.WithCancel(context.Background())
	defer stopSampling()
	sampled := make(chan struct{})
	go func() { defer close(sampled); res.sampler.run(sampleCtx) }()
	prof := profiler{s: s, dir: os.Getenv("SOAK_PROFILE_DIR")}
	prof.heaps("start")
	go prof.cpuMidway(sampleCtx, cfg.duration)
	subCtx, stopSubs := context.WithCancel(context.Background())
	defer stopSubs()
	subsDone := make(chan []*subscriber, 1)
	go func() { subsDone <- s.subscribe(subCtx, r.Id.String(), startAt, 2, cfg.sse) }()
	go prof.heapsAlong(sampleCtx, startAt, cfg.duration)
	res.r = s.waitTerminal(t, r.Id.String(), time.Until(startAt.Add(cfg.duration+terminalGrace)))
	res.length = time.Since(startAt)
	stopSampling()
	<-sampled
	select { // the result event follows the end by the stream's grace (3 s)
	case res.subs = <-subsDone:
	case <-time.After(30 * time.Second):
		stopSubs()
		res.subs = <-subsDone
	}
	res.loadAfter, _ = loadAvg()
	s.checkLong(t, &res, before)
	return res
}

// checkLong checks the long run whole and its subscribers served.
func (s *stack) checkLong(t *testing.T, res *longResult, before int64) {
	t.Helper()
	r := res.r
	if r.Status != "completed" || r.Degraded || r.Summary == nil {
		t.Fatalf("long run %s: %s, degraded %v; want completed and whole", r.Id.String(), r.Status, r.Degraded)
	}
	s.checkLedger(t, r)
	res.agentCounts = s.agentCounts(r.Id.String())
	res.counted = r.Summary.Count
	after, _ := s.echoCount()
	res.echoed = after - before
	if res.echoed < res.counted || res.echoed > res.counted+soakConns {
		t.Errorf("the echo answered %d requests, the long run counted %d", res.echoed, res.counted)
	}
	for i, sb := range res.subs {
		if !sb.result || len(sb.lags) == 0 {
			t.Errorf("subscriber %d: result %v, %d live seconds, last error %v", i, sb.result, len(sb.lags), sb.err)
		}
	}
}
