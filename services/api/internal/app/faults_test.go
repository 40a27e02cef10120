package app

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"google.golang.org/protobuf/proto"

	"github.com/barrage-dev/barrage/pkg/gobuild"
	"github.com/barrage-dev/barrage/pkg/natsembed"
	"github.com/barrage-dev/barrage/pkg/wire"
	"github.com/barrage-dev/barrage/services/api/client"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/pgtest"
)

// The fault tests of issue 6: an agent killed, a snapshot delivered twice,
// the API restarted and NATS stopped, each in the middle of a run on real
// agents against the real echo server.

// agentBin builds barrage-agent once for the whole test binary.
var agentBin = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "barrage-faults")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "barrage-agent")
	if err := gobuild.Build(bin, "github.com/barrage-dev/barrage/services/agent/cmd/barrage-agent"); err != nil {
		return "", err
	}
	return bin, nil
})

// agentProcs are `barrage-agent serve` subprocesses by name.
type agentProcs map[string]*exec.Cmd

// startAgentProcs runs n `barrage-agent serve` processes named a-0 ...
// a-(n-1), capacity 2, against natsURL until the test ends, and waits
// until all n heartbeat.
func startAgentProcs(t *testing.T, natsURL string, n int) agentProcs {
	t.Helper()
	bin, err := agentBin()
	if err != nil {
		t.Fatal(err)
	}
	procs := agentProcs{}
	for i := range n {
		name := fmt.Sprintf("a-%d", i)
		cmd := exec.Command(bin, "serve", "-nats-url", natsURL, "-name", name, "-capacity", "2")
		cmd.Stdout, cmd.Stderr = testLogWriter(t), testLogWriter(t)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		procs[name] = cmd
		t.Cleanup(func() {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			done := make(chan struct{})
			go func() { _ = cmd.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(15 * time.Second):
				_ = cmd.Process.Kill()
				<-done
			}
		})
	}
	waitHeartbeats(t, natsURL, n)
	return procs
}

// waitHeartbeats waits until exactly n agents have a heartbeat in the
// agents bucket.
func waitHeartbeats(t *testing.T, natsURL string, n int) {
	t.Helper()
	nc, err := nats.Connect(natsURL)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	kv, err := js.KeyValue(ctx, wire.AgentsBucket)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, 20*time.Second, func() error {
		keys, err := kv.ListKeys(ctx)
		if err != nil {
			return err
		}
		got := 0
		for range keys.Keys() {
			got++
		}
		if got != n {
			return fmt.Errorf("%d of %d agents heartbeating", got, n)
		}
		return nil
	})
}

// startRestartableAPI boots barrage-api in this process like startAPI, on
// the database and with the admin token of extraEnv when it names them,
// and returns a stop function: a graceful shutdown (cancel, then wait for
// Run) that the test may call mid-run. The server stops when t ends if the
// test did not stop it.
func startRestartableAPI(t *testing.T, token string, extraEnv ...string) (*apiEnv, func()) {
	t.Helper()
	e := &apiEnv{AdminToken: token}
	environ := append(append(baseEnv(token), "BARRAGE_DISPATCH_WAIT=10s"), extraEnv...)
	return e, serveAPI(t, e, environ)
}

// startEchoRun starts a run of spec against the project default and
// returns its id.
func (e *apiEnv) startEchoRun(t *testing.T, spec map[string]any) string {
	t.Helper()
	created := decode[client.Run](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/runs", e.AdminToken,
		map[string]any{"project": "default", "spec": spec}))
	return created.Id.String()
}

// waitIntervals waits until a run has at least n seconds in run_intervals.
func (e *apiEnv) waitIntervals(t *testing.T, id string, n int) {
	t.Helper()
	waitFor(t, 30*time.Second, func() error {
		if got := e.count(t, `SELECT count(*) FROM run_intervals WHERE run_id = $1::uuid`, id); got < n {
			return fmt.Errorf("run %s has %d of %d intervals", id, got, n)
		}
		return nil
	})
}

// runTotals are a run's stored counts, for comparing before and after.
type runTotals struct {
	snapshots, intervalSum, intervalRows, resultCount, summaryCount int
}

// totals reads the stored counts of a finished run.
func (e *apiEnv) totals(t *testing.T, id string) runTotals {
	t.Helper()
	return runTotals{
		snapshots:    e.count(t, `SELECT count(*) FROM run_snapshots WHERE run_id = $1::uuid`, id),
		intervalSum:  e.count(t, `SELECT coalesce(sum(count), 0) FROM run_intervals WHERE run_id = $1::uuid`, id),
		intervalRows: e.count(t, `SELECT count(*) FROM run_intervals WHERE run_id = $1::uuid`, id),
		resultCount:  e.count(t, `SELECT count FROM run_results WHERE run_id = $1::uuid`, id),
		summaryCount: e.count(t, `SELECT coalesce(count, -1) FROM runs WHERE id = $1::uuid`, id),
	}
}

// TestFaultAgentKilledMidRun SIGKILLs one of three agent processes two
// seconds into a 6 s run at 150 qps: its shard is lost once its heartbeat
// expires, and the run completes degraded with the two other shards.
func TestFaultAgentKilledMidRun(t *testing.T) { // serial: see heavyTests
	e := startAPI(t, "BARRAGE_DISPATCH_WAIT=10s")
	echo := startEcho(t)
	procs := startAgentProcs(t, e.NATSURL, 3)
	id := e.startEchoRun(t, map[string]any{"url": echo + "/", "qps": 150, "connections": 6, "duration": "6s"})
	e.waitIntervals(t, id, 2)
	if n := e.count(t, `SELECT count(DISTINCT agent_name) FROM run_shards WHERE run_id = $1::uuid`, id); n != 3 {
		t.Fatalf("shards on %d agents, want one on each of the 3", n)
	}
	var victim string
	if err := e.db.QueryRow(`SELECT agent_name FROM run_shards WHERE run_id = $1::uuid AND shard = 1`, id).Scan(&victim); err != nil {
		t.Fatal(err)
	}
	cmd, ok := procs[victim]
	if !ok {
		t.Fatalf("shard 1 runs on %q, not one of this test's agents", victim)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()

	// Deadline (at most 4 s away) + grace (10 s) + generous slack.
	run := e.waitRun(t, id, 4*time.Second+wire.FinalGrace+30*time.Second)
	t.Logf("run ended %s %v after the kill", run.Status, time.Since(killed).Round(time.Millisecond))
	if run.Status != "completed" || run.Summary == nil {
		t.Fatalf("run ended %s (error %q), summary %v", run.Status, derefS(run.Error), run.Summary)
	}
	if d := e.count(t, `SELECT CASE WHEN degraded THEN 1 ELSE 0 END FROM runs WHERE id = $1::uuid`, id); d != 1 {
		t.Error("run not marked degraded")
	}
	if n := e.count(t, `SELECT count(*) FROM run_shards WHERE run_id = $1::uuid AND status = 'lost'`, id); n != 1 {
		t.Errorf("%d shards lost, want 1", n)
	}
	if n := e.count(t, `SELECT count(*) FROM run_shards WHERE run_id = $1::uuid AND status = 'lost' AND shard = 1`, id); n != 1 {
		t.Error("shard 1, whose agent was killed, is not the lost one")
	}
	if n := e.count(t, `SELECT count(*) FROM run_shards WHERE run_id = $1::uuid AND status = 'done'`, id); n != 2 {
		t.Errorf("%d shards done, want 2", n)
	}
	if n := e.count(t, `SELECT lost_shards FROM run_results WHERE run_id = $1::uuid`, id); n != 1 {
		t.Errorf("run_results.lost_shards = %d, want 1", n)
	}
	// The API shows the killed agent's shard lost, without a final.
	shards := e.shards(t, id)
	if len(shards) != 3 {
		t.Errorf("GET shards lists %d shards, want 3", len(shards))
	}
	for _, sh := range shards {
		want := client.ShardDone
		if sh.Shard == 1 {
			want = client.ShardLost
		}
		if sh.Status != want || sh.FinalReceived != (want == client.ShardDone) || (sh.Shard == 1) != (sh.AgentName == victim) {
			t.Errorf("GET shards: shard %d is %s (final %v) on %s, want %s; %s was killed", sh.Shard, sh.Status, sh.FinalReceived,
				sh.AgentName, want, victim)
		}
	}
	finals := e.shardFinals(t, id)
	if len(finals) != 2 {
		t.Fatalf("%d shard finals, want 2", len(finals))
	}
	var sum int64
	for _, f := range finals {
		sum += int64(f.GetCount())
		// 50 qps for 6 s.
		if c := f.GetCount(); c < 285 || c > 301 {
			t.Errorf("shard %d counted %d, want about 300", f.GetShard(), c)
		}
	}
	// The result counts the lost shard's stored seconds too
	// (docs/reliability.md §5).
	lostSent := int64(e.count(t, `SELECT count FROM run_shards WHERE run_id = $1::uuid AND shard = 1`, id))
	if lostSent == 0 {
		t.Error("the killed shard had stored no request: the test killed it too early to tell")
	}
	if sum+lostSent != run.Summary.Count {
		t.Errorf("summary count %d, the two done shards' finals add to %d and the lost shard sent %d", run.Summary.Count, sum, lostSent)
	}
}

// TestFaultRedeliveredSnapshotIsNotCountedTwice publishes a stored final
// snapshot of a finished run again, under a new message id (so JetStream
// does not drop it), while a second run is being ingested: the first
// run's rows and totals do not change.
func TestFaultRedeliveredSnapshotIsNotCountedTwice(t *testing.T) { // serial: see heavyTests
	e := startAPI(t, "BARRAGE_DISPATCH_WAIT=10s")
	echo := startEcho(t)
	startAgents(t, e.NATSURL, 2)
	first := e.startEchoRun(t, map[string]any{"url": echo + "/", "qps": 100, "connections": 2, "duration": "2s"})
	if r := e.waitRun(t, first, 30*time.Second); r.Status != "completed" {
		t.Fatalf("first run ended %s (error %q)", r.Status, derefS(r.Error))
	}
	before := e.totals(t, first)
	finals := e.shardFinals(t, first)
	if len(finals) == 0 {
		t.Fatal("the first run stored no final snapshot")
	}

	second := e.startEchoRun(t, map[string]any{"url": echo + "/", "qps": 100, "connections": 2, "duration": "3s"})
	e.waitIntervals(t, second, 1)
	nc, err := nats.Connect(e.NATSURL)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	for _, f := range finals {
		data, err := proto.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		msgID := wire.SnapMsgID(f.GetRunId(), f.GetShard(), f.GetSeq()) + "/again"
		if _, err := js.Publish(ctx, wire.SnapSubject(f.GetAgentId(), f.GetRunId(), f.GetShard()), data, jetstream.WithMsgID(msgID)); err != nil {
			t.Fatal(err)
		}
	}
	if r := e.waitRun(t, second, 30*time.Second); r.Status != "completed" {
		t.Fatalf("second run ended %s (error %q)", r.Status, derefS(r.Error))
	}
	// Every snapshot published, the repeats included, has been handled.
	cons, err := js.Consumer(ctx, wire.SnapStream, wire.IngestConsumer)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, 20*time.Second, func() error {
		info, err := cons.Info(ctx)
		if err != nil {
			return err
		}
		if info.NumPending != 0 || info.NumAckPending != 0 {
			return fmt.Errorf("consumer has %d pending and %d unacked", info.NumPending, info.NumAckPending)
		}
		return nil
	})
	if after := e.totals(t, first); after != before {
		t.Errorf("first run's totals changed: before %+v, after %+v", before, after)
	}
	if before.summaryCount != before.intervalSum || before.summaryCount != before.resultCount {
		t.Errorf("first run's totals disagree: %+v", before)
	}
}

// TestFaultAPIRestartMidRun stops the API gracefully two seconds into a
// 6 s run and starts a new one on the same database and NATS (which
// outlives both): the run completes with every interval counted once.
func TestFaultAPIRestartMidRun(t *testing.T) { // serial: see heavyTests
	ns := natsembed.StartT(t)
	dbURL := pgtest.NewDatabase(t)
	token := auth.NewToken().Text
	env := []string{"DATABASE_URL=" + dbURL, "NATS_URL=" + ns.URL()}
	e1, stop1 := startRestartableAPI(t, token, env...)
	echo := startEcho(t)
	startAgents(t, ns.URL(), 3)
	before := echoRequests(t, echo)
	const connections = 6
	id := e1.startEchoRun(t, map[string]any{"url": echo + "/", "qps": 150, "connections": connections, "duration": "6s"})
	e1.waitIntervals(t, id, 2)
	stop1()
	t.Log("first API stopped")
	e2, _ := startRestartableAPI(t, token, env...)

	run := e2.waitRun(t, id, 4*time.Second+wire.FinalGrace+30*time.Second)
	if run.Status != "completed" || run.Summary == nil {
		t.Fatalf("run ended %s (error %q), summary %v", run.Status, derefS(run.Error), run.Summary)
	}
	count := run.Summary.Count
	t.Logf("count %d", count)
	if math.Abs(float64(count)-900) > 45 {
		t.Errorf("count %d, want 900 ± 5%% (6 s at 150 qps)", count)
	}
	if d := e2.count(t, `SELECT CASE WHEN degraded THEN 1 ELSE 0 END FROM runs WHERE id = $1::uuid`, id); d != 0 {
		t.Error("run marked degraded")
	}
	if n := e2.count(t, `SELECT count(*) FROM run_shards WHERE run_id = $1::uuid AND status = 'done'`, id); n != 3 {
		t.Errorf("%d shards done, want 3", n)
	}
	var finalSum int64
	for _, f := range e2.shardFinals(t, id) {
		finalSum += int64(f.GetCount())
	}
	if finalSum != count {
		t.Errorf("shard finals add to %d, summary count %d", finalSum, count)
	}
	if got := e2.count(t, `SELECT coalesce(sum(count), 0) FROM run_intervals WHERE run_id = $1::uuid`, id); int64(got) != count {
		t.Errorf("intervals add to %d, summary count %d", got, count)
	}
	// Each shard's snapshots 1 .. last were stored, each once.
	if n := e2.count(t, `SELECT count(*) FROM run_shards s WHERE s.run_id = $1::uuid AND s.last_seq <> (
		SELECT count(DISTINCT seq) FROM run_snapshots p WHERE p.run_id = s.run_id AND p.shard = s.shard)`, id); n != 0 {
		t.Errorf("%d shards whose stored snapshots are not exactly seq 1 to their last", n)
	}
	if n := e2.count(t, `SELECT count(*) - count(DISTINCT (shard, seq)) FROM run_snapshots WHERE run_id = $1::uuid`, id); n != 0 {
		t.Errorf("%d (shard, seq) pairs stored twice", n)
	}
	if got := echoRequests(t, echo) - before; got < count || got > count+connections {
		t.Errorf("echo answered %d requests, the run counted %d (%d connections)", got, count, connections)
	}
}

// TestFaultAgentStopsWhenNATSIsGone stops the NATS server under agents
// running an open-ended run: their fail-safe stops the load within
// wire.FailSafeAfter (+ 2 s), so the echo's request count stops growing.
func TestFaultAgentStopsWhenNATSIsGone(t *testing.T) { // serial: see heavyTests
	ns, err := natsembed.Start(natsembed.Options{DataDir: t.TempDir(), Port: -1})
	if err != nil {
		t.Fatal(err)
	}
	stopNATS := sync.OnceFunc(ns.Shutdown)
	t.Cleanup(stopNATS)
	e, _ := startRestartableAPI(t, auth.NewToken().Text, "DATABASE_URL="+pgtest.NewDatabase(t), "NATS_URL="+ns.URL())
	echo := startEcho(t)
	startAgentProcs(t, ns.URL(), 2)
	id := e.startEchoRun(t, map[string]any{"url": echo + "/", "qps": 100, "connections": 2, "until_stopped": true})
	e.waitIntervals(t, id, 2)
	stopNATS()
	stopped := time.Now()
	t.Log("NATS stopped")

	// Sample the echo's count until it has not grown for 2 s.
	last, lastChange := echoRequests(t, echo), time.Now()
	for time.Since(lastChange) < 2*time.Second {
		if time.Since(stopped) > wire.FailSafeAfter+10*time.Second {
			t.Fatalf("the echo still received requests %v after NATS stopped", time.Since(stopped).Round(time.Millisecond))
		}
		time.Sleep(100 * time.Millisecond)
		if n := echoRequests(t, echo); n != last {
			last, lastChange = n, time.Now()
		}
	}
	quiet := lastChange.Sub(stopped)
	t.Logf("the last request reached the echo %v after NATS stopped", quiet.Round(time.Millisecond))
	if quiet > wire.FailSafeAfter+2*time.Second {
		t.Errorf("load went on for %v after NATS stopped, want at most %v", quiet.Round(time.Millisecond), wire.FailSafeAfter+2*time.Second)
	}
	if quiet < time.Second {
		t.Errorf("load stopped %v after NATS stopped: the run should have gone on until the fail-safe", quiet)
	}
}
