package worker_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	barragev1 "github.com/barrage-dev/barrage/proto/barrage/v1"
	"github.com/barrage-dev/barrage/services/agent/internal/agentmetrics"
	"github.com/barrage-dev/barrage/services/agent/internal/worker"
)

// TestMetricsCountTheRunsRequests runs two shards of one run side by side
// and reads the agent's metrics: the request counters of the two slots
// equal the shards' final counts, the connections open are the shards'
// while they run and none after, and every snapshot's publish is timed.
func TestMetricsCountTheRunsRequests(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	tg := newTarget(t)
	reg := prometheus.NewRegistry()
	r := h.startWorker(t, worker.Config{Capacity: 2, Metrics: agentmetrics.New(reg)})
	const run = "run-metrics"
	h.putState(t, run, barragev1.RunPhase_RUN_PHASE_RUNNING)
	for shard := range uint32(2) {
		h.assign(t, r.w.ID(), run, shard, shardSpec{url: tg.url("/m"), qps: 50, conns: 2,
			duration: 2 * time.Second, startIn: 300 * time.Millisecond})
	}
	waitFor(t, 5*time.Second, func() error {
		running, conns := gauge(t, reg, "barrage_agent_shards_running", ""), gauge(t, reg, "barrage_agent_connections_open", "")
		if running != 2 || conns != 4 {
			return fmt.Errorf("shards_running %v, connections_open %v; want 2 shards with 2 connections each", running, conns)
		}
		return nil
	})
	var want float64
	snaps := 0
	for shard := range uint32(2) {
		s, _ := h.snapshots(t, run, shard, 10*time.Second)
		want += float64(s[len(s)-1].GetCount())
		snaps += len(s)
	}
	waitFor(t, 5*time.Second, func() error {
		if n := gauge(t, reg, "barrage_agent_shards_running", ""); n != 0 {
			return fmt.Errorf("shards_running %v after the run, want 0", n)
		}
		if n := gauge(t, reg, "barrage_agent_connections_open", ""); n != 0 {
			return fmt.Errorf("connections_open %v after the run, want 0", n)
		}
		return nil
	})
	got := gauge(t, reg, "barrage_agent_requests_total", "0") + gauge(t, reg, "barrage_agent_requests_total", "1")
	if got != want || want < 180 {
		t.Fatalf("requests_total of slots 0 and 1 sum to %v, the shards' final counts to %v (want about 200)", got, want)
	}
	if n := gauge(t, reg, "barrage_agent_request_errors_total", "0"); n != 0 {
		t.Fatalf("request_errors_total{slot=0} = %v, want 0", n)
	}
	if n := histCount(t, reg, "barrage_agent_snapshot_publish_duration_seconds"); n != uint64(snaps) {
		t.Fatalf("snapshot_publish_duration_seconds counts %d publishes, the stream holds %d snapshots", n, snaps)
	}
	if n := gauge(t, reg, "barrage_agent_gomaxprocs", ""); n < 1 {
		t.Fatalf("gomaxprocs %v", n)
	}
}

// family finds a metric family in reg.
func family(t *testing.T, reg *prometheus.Registry, name string) *dto.MetricFamily {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name {
			return mf
		}
	}
	return nil
}

// gauge is the value of a gauge or counter, of the series whose slot label
// is slot ("" for none); 0 when absent.
func gauge(t *testing.T, reg *prometheus.Registry, name, slot string) float64 {
	t.Helper()
	mf := family(t, reg, name)
	if mf == nil {
		return 0
	}
	for _, m := range mf.GetMetric() {
		l := ""
		for _, lp := range m.GetLabel() {
			if lp.GetName() == "slot" {
				l = lp.GetValue()
			}
		}
		if l != slot {
			continue
		}
		if m.GetCounter() != nil {
			return m.GetCounter().GetValue()
		}
		return m.GetGauge().GetValue()
	}
	return 0
}

func histCount(t *testing.T, reg *prometheus.Registry, name string) uint64 {
	t.Helper()
	mf := family(t, reg, name)
	if mf == nil || len(mf.GetMetric()) == 0 {
		return 0
	}
	return mf.GetMetric()[0].GetHistogram().GetSampleCount()
}
