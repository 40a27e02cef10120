package app

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"google.golang.org/protobuf/proto"

	"github.com/barrage-dev/barrage/pkg/hist"
	"github.com/barrage-dev/barrage/pkg/wire"
	barragev1 "github.com/barrage-dev/barrage/proto/barrage/v1"
	"github.com/barrage-dev/barrage/services/agent/agent"
	"github.com/barrage-dev/barrage/services/api/client"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
	echoserver "github.com/barrage-dev/barrage/services/echo/echo"
)

// heavyTests: the tests that run real distributed load (agents, echo,
// API, Postgres on this machine's few cores) are not parallel, so one
// test's load does not distort another's counts and latencies; the light
// API tests still run in parallel around them.

// startEcho runs the real barrage-echo HTTP server in this process on a
// free loopback port until the test ends and returns its base URL.
func startEcho(t *testing.T) string {
	t.Helper()
	return startEchoWith(t, func(*echoserver.Options) {})
}

// startEchoWith is startEcho with the configuration changed by edit.
func startEchoWith(t *testing.T, edit func(*echoserver.Options)) string {
	t.Helper()
	return "http://" + startEchoApp(t, edit).HTTPAddr()
}

// startEchoApp is startEchoWith returning the running echo, for the
// addresses of its other listeners.
func startEchoApp(t *testing.T, edit func(*echoserver.Options)) *echoserver.Server {
	t.Helper()
	opts := echoserver.Options{HTTPAddr: "127.0.0.1:0", MaxDelay: 1500 * time.Millisecond, MaxPayload: 256 << 10, ShutdownTimeout: 5 * time.Second,
		Logger: slog.New(slog.DiscardHandler)}
	edit(&opts)
	a, err := echoserver.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	runUntilCleanup(t, "echo", a.Run)
	return a
}

// runUntilCleanup runs run in the background until the test ends; its
// error, named what, fails the test.
func runUntilCleanup(t *testing.T, what string, run func(context.Context) error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("%s: %v", what, err)
		}
	})
}

// echoRequests reads the echo server's count of HTTP requests answered,
// from its Prometheus metrics (the scrape itself is not counted).
func echoRequests(t *testing.T, base string) int64 {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var n float64
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "barrage_echo_http_requests_total") {
			continue
		}
		v, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
		if err != nil {
			t.Fatalf("metric line %q: %v", line, err)
		}
		n += v
	}
	return int64(n)
}

// startAgents runs n agents (the worker of `barrage-agent serve`) against
// natsURL until the test ends, and waits until all n heartbeat.
func startAgents(t *testing.T, natsURL string, n int) {
	t.Helper()
	startAgentsLogged(t, natsURL, n, testLogWriter(t), slog.LevelInfo)
}

// startAgentsLogged is startAgents with the agents logging to logTo from
// level on.
func startAgentsLogged(t *testing.T, natsURL string, n int, logTo io.Writer, level slog.Level) {
	t.Helper()
	startAgentPool(t, natsURL, n, 2, logTo, level)
}

// startAgentPool is startAgentsLogged with capacity shards on each agent.
func startAgentPool(t *testing.T, natsURL string, n, capacity int, logTo io.Writer, level slog.Level) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, n)
	for i := range n {
		w, err := agent.New(agent.Options{NATSURL: natsURL, Name: fmt.Sprintf("agent-%d", i), Capacity: capacity,
			Logger: slog.New(slog.NewTextHandler(logTo, &slog.HandlerOptions{Level: level}))})
		if err != nil {
			t.Fatal(err)
		}
		go func() { done <- w.Run(ctx) }()
	}
	t.Cleanup(func() {
		cancel()
		for range n {
			if err := <-done; err != nil {
				t.Errorf("agent: %v", err)
			}
		}
	})
	nc, err := nats.Connect(natsURL)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	kv, err := js.KeyValue(ctx, wire.AgentsBucket)
	if err != nil {
		t.Fatal(err)
	}
	end := time.Now().Add(20 * time.Second)
	for {
		keys, err := kv.ListKeys(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got := 0
		for range keys.Keys() {
			got++
		}
		if got == n {
			return
		}
		if time.Now().After(end) {
			t.Fatalf("%d of %d agents heartbeating after 20s", got, n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitRun polls a run until its status is terminal.
func (e *apiEnv) waitRun(t *testing.T, id string, within time.Duration) client.Run {
	t.Helper()
	end := time.Now().Add(within)
	for {
		r := decode[client.Run](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/runs/"+id, e.AdminToken, nil))
		switch r.Status {
		case "completed", "failed", "canceled":
			return r
		}
		if time.Now().After(end) {
			t.Fatalf("run %s is %s after %s", id, r.Status, within)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// shardFinals decodes the final snapshots stored for a run's shards.
func (e *apiEnv) shardFinals(t *testing.T, id string) []*barragev1.Snapshot {
	t.Helper()
	rows, err := e.db.Query(`SELECT final_snapshot FROM run_shards WHERE run_id = $1::uuid AND final_snapshot IS NOT NULL ORDER BY shard`, id)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []*barragev1.Snapshot
	for rows.Next() {
		var b []byte
		if err := rows.Scan(&b); err != nil {
			t.Fatal(err)
		}
		s := &barragev1.Snapshot{}
		if err := proto.Unmarshal(b, s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

// shards reads a run's shards through GET /runs/{run}/shards.
func (e *apiEnv) shards(t *testing.T, id string) []client.RunShard {
	t.Helper()
	return decode[client.ShardList](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/runs/"+id+"/shards", e.AdminToken, nil)).Items
}

// mergedResponse merges the response histograms of snapshots.
func mergedResponse(t *testing.T, snaps []*barragev1.Snapshot) *hist.Histogram {
	t.Helper()
	return mergedHist(t, snaps, (*barragev1.Snapshot).GetResponseHdr)
}

// mergedHist merges one histogram of each of snapshots, hdr picking it.
func mergedHist(t *testing.T, snaps []*barragev1.Snapshot, hdr func(*barragev1.Snapshot) []byte) *hist.Histogram {
	t.Helper()
	m := hist.New()
	for _, s := range snaps {
		h, err := hist.Decode(hdr(s))
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Merge(h); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

// TestDistributedRunOnThreeAgents starts one run over REST on three agents
// against the real echo server: 300 qps for 5 s.
func TestDistributedRunOnThreeAgents(t *testing.T) { // serial: see heavyTests
	e := startAPI(t, "BARRAGE_DISPATCH_WAIT=10s")
	echo := startEcho(t)
	startAgents(t, e.NATSURL, 3)
	before := echoRequests(t, echo)

	created := decode[client.Run](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/runs", e.AdminToken, map[string]any{
		"project": "default",
		"spec":    map[string]any{"url": echo + "/?delay=2ms", "qps": 300, "connections": 6, "duration": "5s"},
	}))
	id := created.Id.String()
	checkAgentsHoldShards(t, e, created)
	run := e.waitRun(t, id, 40*time.Second)
	if run.Status != "completed" || run.Summary == nil {
		t.Fatalf("run ended %s (error %q), summary %v", run.Status, derefS(run.Error), run.Summary)
	}
	count := run.Summary.Count
	t.Logf("merged: count %d, qps %.1f, p50 %.0f µs, p99 %.0f µs, max %.0f µs", count, deref(run.Summary.Qps),
		deref(run.Summary.P50Us), deref(run.Summary.P99Us), deref(run.Summary.MaxUs))
	checkPacedCount(t, count, 1500, 300, e.shardFinals(t, id))
	if got := echoRequests(t, echo) - before; got != count {
		t.Errorf("echo answered %d requests, the run counted %d", got, count)
	}
	if run.Summary.Errors != 0 {
		t.Errorf("%d errors", run.Summary.Errors)
	}

	// Every shard reported a final, and the merge is the sum of the shards.
	finals := e.shardFinals(t, id)
	if len(finals) != 3 {
		t.Fatalf("%d shard finals, want 3", len(finals))
	}
	var shardSum int64
	for _, f := range finals {
		shardSum += int64(f.GetCount())
		if f.GetCount() < 400 {
			t.Errorf("shard %d counted %d, want about 500", f.GetShard(), f.GetCount())
		}
	}
	if shardSum != count {
		t.Errorf("shard finals add to %d, merged count %d", shardSum, count)
	}
	// The stored percentiles are exactly those of the HDR merge of the finals.
	merged := mergedResponse(t, finals)
	for _, c := range []struct {
		name string
		got  float64
		p    float64
	}{{"p50", deref(run.Summary.P50Us), 50}, {"p90", deref(run.Summary.P90Us), 90}, {"p99", deref(run.Summary.P99Us), 99}} {
		want := float64(merged.Percentile(c.p).Microseconds())
		if c.got != want {
			t.Errorf("%s %v µs, the merge of the shard finals gives %v µs", c.name, c.got, want)
		}
	}
	if want := float64(merged.Max().Microseconds()); deref(run.Summary.MaxUs) != want {
		t.Errorf("max %v µs, merge gives %v µs", deref(run.Summary.MaxUs), want)
	}
	if deref(run.Summary.P50Us) < 2000 {
		t.Errorf("p50 %v µs is below the echo's 2 ms delay", deref(run.Summary.P50Us))
	}
	// The per-second intervals add up to the total.
	if got := e.count(t, `SELECT coalesce(sum(count), 0) FROM run_intervals WHERE run_id = $1::uuid`, id); int64(got) != count {
		t.Errorf("intervals add to %d, total %d", got, count)
	}
	if n := e.count(t, `SELECT count(*) FROM run_intervals WHERE run_id = $1::uuid`, id); n < 5 || n > 7 {
		t.Errorf("%d interval rows for a 5 s run", n)
	}
	if n := e.count(t, `SELECT count(*) FROM run_shards WHERE run_id = $1::uuid AND status = 'done'`, id); n != 3 {
		t.Errorf("%d shards done, want 3", n)
	}
	checkShardsEndpoint(t, e, id, count)
}

// checkPacedCount checks a paced run's count against want (qps × duration)
// within 2 %. A generator that falls behind leaves the requests still due at
// the end unsent, so a shortfall is allowed only as far as the lag the
// shards measured explains it: at most qps × their largest lag, in seconds.
// In one CI run beside the fault suite the agents lagged by over 0.5 s and
// counted 1461 of 1500.
func checkPacedCount(t *testing.T, count, want int64, qps float64, finals []*barragev1.Snapshot) {
	t.Helper()
	slack := float64(want) * 0.02
	if float64(count) > float64(want)+slack {
		t.Errorf("count %d, want %d ± 2%%: more than the pacing allows", count, want)
		return
	}
	if float64(count) >= float64(want)-slack {
		return
	}
	lag := mergedHist(t, finals, (*barragev1.Snapshot).GetLagHdr)
	explained := qps * lag.Max().Seconds()
	t.Logf("count %d of %d; the largest lag, %v, explains %.0f requests left unsent", count, want, lag.Max(), explained)
	if float64(want-count) > slack+explained {
		t.Errorf("count %d, want %d ± 2%% (or short by at most qps × the largest lag, %.0f)", count, want, explained)
	}
}

// checkAgentsHoldShards checks GET /agents while the 300 qps run on three
// agents goes: each agent lists the one shard of it that it holds, and a
// caller of another project sees the agents' shard counts but no shards.
func checkAgentsHoldShards(t *testing.T, e *apiEnv, run client.Run) {
	t.Helper()
	var held map[int]client.AgentShard
	waitFor(t, 20*time.Second, func() error {
		list := decode[client.AgentList](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/agents", e.AdminToken, nil))
		held = map[int]client.AgentShard{}
		for i := range list.Items {
			for _, sh := range shardsOf(&list.Items[i]) {
				if sh.RunId == run.Id && sh.Status == client.AgentShardRunning {
					held[sh.Shard] = sh
				}
			}
		}
		if len(held) < 3 {
			return fmt.Errorf("agents list %d running shards of the run: %+v", len(held), held)
		}
		return nil
	})
	var qps float64
	for i := range 3 {
		if sh, ok := held[i]; !ok || sh.RunName != run.Name {
			t.Errorf("shard %d: %+v, want it held with the run's name %q", i, sh, run.Name)
		}
		qps += held[i].Qps
	}
	if math.Abs(qps-300) > 1e-9 {
		t.Errorf("the held shards add to %v qps, want 300", qps)
	}
	e.mustProject(t, "elsewhere")
	other := e.mustToken(t, "elsewhere", auth.Admin)
	list := decode[client.AgentList](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/agents", other, nil))
	for i := range list.Items {
		if a := &list.Items[i]; len(shardsOf(a)) != 0 {
			t.Errorf("another project's admin sees agent %s hold %+v", a.Name, shardsOf(a))
		}
	}
}

// shardsOf returns the shards an agent of GET /agents holds.
func shardsOf(a *client.Agent) []client.AgentShard {
	if a.Shards == nil {
		return nil
	}
	return *a.Shards
}

// checkShardsEndpoint checks GET /runs/{run}/shards of the finished
// 300 qps, 6-connection run on three agents that counted count requests.
func checkShardsEndpoint(t *testing.T, e *apiEnv, id string, count int64) {
	t.Helper()
	shards := e.shards(t, id)
	if len(shards) != 3 {
		t.Fatalf("GET shards lists %d shards, want 3: %+v", len(shards), shards)
	}
	var sum int64
	var qps float64
	conns := 0
	names := map[string]bool{}
	for i, sh := range shards {
		if sh.Shard != i || sh.Status != client.ShardDone || !sh.FinalReceived || sh.AgentId == nil || sh.AgentName == "" {
			t.Errorf("shard %d: %+v, want shard %d done with its final and its agent", i, sh, i)
		}
		// Snapshots is the latest seq: each of 1 .. it was stored once.
		stored := e.count(t, `SELECT count(*) FROM run_snapshots WHERE run_id = $1::uuid AND shard = $2`, id, sh.Shard)
		if sh.Snapshots != int64(stored) || sh.Snapshots < 6 {
			t.Errorf("shard %d: snapshots %d, %d stored; want equal and ≥ 6 (5 intervals and the final)", i, sh.Snapshots, stored)
		}
		names[sh.AgentName] = true
		sum += sh.Count
		qps += sh.Qps
		conns += sh.Connections
		if sh.Errors != 0 {
			t.Errorf("shard %d: %d errors", i, sh.Errors)
		}
	}
	if len(names) != 3 {
		t.Errorf("shards on agents %v, want three distinct", names)
	}
	if sum != count {
		t.Errorf("shard counts add to %d, summary count %d", sum, count)
	}
	if math.Abs(qps-300) > 1e-9 || conns != 6 {
		t.Errorf("shards add to %v qps on %d connections, want the requested 300 on 6", qps, conns)
	}
}

// TestDistributedStopKeepsThePartialResult stops an open-ended run after a
// couple of seconds: it completes with what ran.
func TestDistributedStopKeepsThePartialResult(t *testing.T) { // serial: see heavyTests
	e := startAPI(t, "BARRAGE_DISPATCH_WAIT=10s")
	echo := startEcho(t)
	startAgents(t, e.NATSURL, 2)
	before := echoRequests(t, echo)
	created := decode[client.Run](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/runs", e.AdminToken, map[string]any{
		"project": "default",
		"spec":    map[string]any{"url": echo + "/", "qps": 100, "connections": 2, "until_stopped": true},
	}))
	id := created.Id.String()
	end := time.Now().Add(30 * time.Second)
	for e.count(t, `SELECT count(*) FROM run_intervals WHERE run_id = $1::uuid`, id) < 2 {
		if time.Now().After(end) {
			t.Fatal("no two intervals within 30s")
		}
		time.Sleep(100 * time.Millisecond)
	}
	stopped := decode[client.Run](t, e.mustDo(t, http.StatusOK, http.MethodPost, "/runs/"+id+"/stop", e.AdminToken, nil))
	if stopped.Status != "stopping" {
		t.Errorf("stop answered status %s, want stopping", stopped.Status)
	}
	run := e.waitRun(t, id, 20*time.Second)
	if run.Status != "completed" || run.Summary == nil {
		t.Fatalf("stopped run ended %s (error %q)", run.Status, derefS(run.Error))
	}
	if run.Summary.Count < 150 {
		t.Errorf("partial result counts %d, want at least 2 s at 100 qps", run.Summary.Count)
	}
	// A request in flight when the stop lands is answered by the echo but
	// abandoned by the agent: at most one per connection.
	if got := echoRequests(t, echo) - before; got < run.Summary.Count || got > run.Summary.Count+2 {
		t.Errorf("echo answered %d requests, the run counted %d (2 connections)", got, run.Summary.Count)
	}
	if got := e.count(t, `SELECT coalesce(sum(count), 0) FROM run_intervals WHERE run_id = $1::uuid`, id); int64(got) != run.Summary.Count {
		t.Errorf("intervals add to %d, total %d", got, run.Summary.Count)
	}
}

func deref(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

func derefS(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// TestAllInOneRunsARun starts barrage-api -all-in-one (API, embedded NATS,
// one agent and the echo server in one process) and runs a test against
// its own echo server.
func TestAllInOneRunsARun(t *testing.T) { // serial: see heavyTests
	e := startAPI(t, "BARRAGE_ALL_IN_ONE=true", "BARRAGE_ECHO_HTTP_ADDR=127.0.0.1:0", "BARRAGE_ECHO_GRPC_ADDR=127.0.0.1:0",
		"BARRAGE_ECHO_TCP_ADDR=127.0.0.1:0", "BARRAGE_ECHO_UDP_ADDR=127.0.0.1:0", "BARRAGE_DISPATCH_WAIT=20s")
	m := regexp.MustCompile(`echo target: (http://127\.0\.0\.1:\d+/)`).FindStringSubmatch(e.Out)
	if m == nil {
		t.Fatalf("start-up notice %q does not name the echo target", e.Out)
	}
	if !strings.Contains(e.Out, "API:         http://127.0.0.1:") || !strings.Contains(e.Out, "dashboard:   http://127.0.0.1:") {
		t.Errorf("start-up notice %q does not give the API and dashboard URLs", e.Out)
	}
	created := decode[client.Run](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/runs", e.AdminToken, map[string]any{
		"project": "default",
		"spec":    map[string]any{"url": m[1] + "?status=503:10", "qps": 200, "connections": 2, "duration": "2s"},
	}))
	run := e.waitRun(t, created.Id.String(), 30*time.Second)
	if run.Status != "completed" || run.Summary == nil {
		t.Fatalf("run ended %s (error %q)", run.Status, derefS(run.Error))
	}
	if c := run.Summary.Count; c < 390 || c > 400 {
		t.Errorf("count %d, want 400 (2 s at 200 qps)", c)
	}
	// The agent list shows the in-process agent as it last reported.
	agents := decode[client.AgentList](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/agents", e.AdminToken, nil))
	if len(agents.Items) != 1 || agents.Items[0].Labels["mode"] != "all-in-one" || agents.Items[0].Capacity != 4 ||
		agents.Items[0].RssBytes < 1<<20 || time.Since(agents.Items[0].LastSeenAt) > time.Minute {
		t.Errorf("agents = %+v, want the all-in-one agent (capacity 4, RSS ≥ 1 MiB, seen in the last minute)", agents.Items)
	}
	// status=503:10 makes about 10 % errors.
	if share := float64(run.Summary.Errors) / float64(run.Summary.Count); share < 0.04 || share > 0.18 {
		t.Errorf("%d errors of %d (%.1f %%), want about 10 %%", run.Summary.Errors, run.Summary.Count, 100*share)
	}
}
