//go:build faults

package faultsuite

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/jackc/pgx/v5"
	"github.com/nats-io/nats.go"
	"github.com/rs/zerolog"

	"github.com/barrage-dev/barrage/services/api/client"
)

// slowLink is a Toxiproxy proxy in the test process: it listens on listen
// (host:port, port 0 for any), forwards every connection to upstream, and
// delays what passes by latency each way. It returns the address it
// listens on and stops at cleanup. The kernel of CI has no netem, so a
// proxy between the processes is how the suite adds latency
// (docs/reliability.md).
func slowLink(t *testing.T, listen, upstream string, latency time.Duration) string {
	t.Helper()
	srv := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(nil), zerolog.Nop())
	p := toxiproxy.NewProxy(srv, "slow-link", listen, upstream)
	if err := p.Start(); err != nil {
		t.Fatalf("toxiproxy on %s: %v", listen, err)
	}
	t.Cleanup(p.Stop)
	for _, dir := range []string{"upstream", "downstream"} {
		toxic := fmt.Sprintf(`{"name": "latency_%s", "type": "latency", "stream": %q, "attributes": {"latency": %d}}`,
			dir, dir, latency.Milliseconds())
		if _, err := p.Toxics.AddToxicJson(strings.NewReader(toxic)); err != nil {
			t.Fatalf("toxiproxy latency %s: %v", dir, err)
		}
	}
	return p.Listen
}

// natsRTT is a round trip to the NATS server at url as a client sees it.
func natsRTT(t *testing.T, url string) time.Duration {
	t.Helper()
	nc, err := nats.Connect(url, nats.Timeout(10*time.Second))
	if err != nil {
		t.Fatalf("connect to %s: %v", url, err)
	}
	defer nc.Close()
	rtt, err := nc.RTT()
	if err != nil {
		t.Fatalf("round trip to %s: %v", url, err)
	}
	return rtt
}

// checkSnapshotsOnce checks in Postgres that each shard of run r stored
// one row per snapshot its agent sent (the agent numbers them 1, 2, ... and
// logs the last with "shard finished"): none missing, and the dedupe key
// (run, shard, seq) makes a second copy impossible to store.
func (s *stack) checkSnapshotsOnce(t *testing.T, r client.Run) {
	t.Helper()
	sent := map[int]int64{}
	for _, a := range s.agents {
		for _, rec := range a.jsonLines("shard finished") {
			if rec["run"] == r.Id.String() {
				sent[int(rec["shard"].(float64))] = int64(rec["snapshots"].(float64))
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	db, err := pgx.Connect(ctx, s.pg.url())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(ctx)
	rows, err := db.Query(ctx, `SELECT shard, count(*), count(DISTINCT seq), max(seq) FROM run_snapshots WHERE run_id = $1 GROUP BY shard`, r.Id.String())
	if err != nil {
		t.Fatal(err)
	}
	stored := map[int][3]int64{}
	for rows.Next() {
		var shard int
		var n, distinct, last int64
		if err := rows.Scan(&shard, &n, &distinct, &last); err != nil {
			t.Fatal(err)
		}
		stored[shard] = [3]int64{n, distinct, last}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(sent) != r.ShardCount {
		t.Errorf("%d agents logged their shard finished, the run has %d shards", len(sent), r.ShardCount)
	}
	for shard, n := range sent {
		if got := stored[shard]; got != [3]int64{n, n, n} {
			t.Errorf("shard %d: stored %d snapshots (%d distinct, last %d), its agent sent %d", shard, got[0], got[1], got[2], n)
		}
	}
}

// TestAgentsSlowLossyLinkToNATS: both agents and the echo on test hosts
// of their own; the agents reach nats-server through a Toxiproxy proxy
// that delays everything by 200 ms each way, and 2 % of the packets
// between each agent and the proxy are dropped at random (iptables'
// statistic match), for a whole run of 16 s. The run completes whole: not
// degraded, each shard's stored snapshots exactly those its agent sent,
// its stored count its agent's, the seconds summing to the result, the
// echo's count matching it. Ten SSE subscribers measure the live lag (the
// soak's measure, soak_sse_test.go), which the test logs: a figure to
// record (docs/reliability.md), not a bar, on a shared machine.
func TestAgentsSlowLossyLinkToNATS(t *testing.T) {
	const (
		long    = 16 * time.Second
		latency = 200 * time.Millisecond
		viewers = 10
	)
	hosts, echo := agentHosts(t, 2)
	s := startStackWith(t, stackConfig{replicas: 1, agents: 0, listenHost: hosts[0].rootIP, echoOn: echo})
	s.allowTargets(t, echo.ip)
	proxyAddr := slowLink(t, hosts[0].rootIP+":0", strings.TrimPrefix(s.natsURL, "nats://"), latency)
	if rtt := natsRTT(t, "nats://"+proxyAddr); rtt < 2*latency {
		t.Fatalf("a round trip through the proxy took %s, want at least %s", rtt, 2*latency)
	} else {
		t.Logf("NATS round trip through the proxy: %s", rtt.Round(time.Millisecond))
	}
	for i, h := range hosts {
		s.agentOn(t, h, fmt.Sprintf("agent-%d", i), "nats://"+proxyAddr)
	}
	s.waitAgents(t, 2)
	for _, h := range hosts {
		h.drop(t, proxyAddr, "-m", "statistic", "--mode", "random", "--probability", "0.02")
	}
	before, _ := s.echoCount()
	submitted := time.Now()
	r := s.submit(t, qps, 2, long)
	id := r.Id.String()
	waitFor(t, 30*time.Second, "run "+id+" has its start time", func() error {
		if err := s.get("/runs/"+id, &r); err != nil {
			return err
		}
		if r.StartAt == nil || r.StartAt.IsZero() {
			return fmt.Errorf("status %s, no start_at", r.Status)
		}
		return nil
	})
	ctx, cancel := context.WithTimeout(context.Background(), long+time.Minute)
	defer cancel()
	subsDone := make(chan []*subscriber, 1)
	go func() { subsDone <- s.subscribe(ctx, id, *r.StartAt, 2, viewers) }()
	r = s.waitTerminal(t, id, time.Until(submitted.Add(long+2*time.Second+30*time.Second)))
	t.Logf("run terminal %s after submission", time.Since(submitted).Round(100*time.Millisecond))
	checkDropped(t, hosts)
	// The agents log their shards finished once the final's ack is back,
	// 200 ms after the API stored it, and maybe after the run ended.
	waitFor(t, 30*time.Second, "both agents log their shard finished", func() error {
		if n := len(s.agentCounts(id)); n != 2 {
			return fmt.Errorf("%d shards finished", n)
		}
		return nil
	})
	s.checkWhole(t, r, before)
	s.checkSnapshotsOnce(t, r)
	// An agent holds an interval snapshot back when its publish is not
	// acked within a second; with an ack 400 ms away most go at once.
	var held, sent int
	for _, a := range s.agents {
		held += len(a.jsonLines("interval snapshot held for a later publish"))
		for _, rec := range a.jsonLines("shard finished") {
			sent += int(rec["snapshots"].(float64))
		}
	}
	t.Logf("%d of %d snapshots held back for a later publish", held, sent)
	if held*4 > sent {
		t.Errorf("%d of %d snapshots held back for a later publish: their seconds reach the live view late", held, sent)
	}

	subs := <-subsDone
	var lags []time.Duration
	for i, sb := range subs {
		if !sb.result || len(sb.lags) < int(long/time.Second)/2 {
			t.Errorf("subscriber %d: result %v, %d live seconds, last error %v", i, sb.result, len(sb.lags), sb.err)
		}
		lags = append(lags, sb.lags...)
	}
	if len(lags) == 0 {
		t.Fatal("no live lag measured")
	}
	slices.Sort(lags)
	t.Logf("live lag over %d seconds of %d subscribers: p50 %s, p90 %s, p99 %s, max %s", len(lags), len(subs),
		pct(lags, 50).Round(time.Millisecond), pct(lags, 90).Round(time.Millisecond),
		pct(lags, 99).Round(time.Millisecond), lags[len(lags)-1].Round(time.Millisecond))
}
