package worker_test

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/barrage-dev/barrage/pkg/wire"
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

// TestMetricsCountGeneratorLimitedSeconds makes the agent the bottleneck:
// one connection asked for 200 qps (a send every 5 ms) against a target
// that answers in 20 ms falls behind its schedule in every second. The
// slot's generator_limited_seconds_total is the length of the interval
// snapshots that the rule of pkg/wire GeneratorLimited flags (the one the
// API flags the run's seconds by), at least a second of them, and
// cpu_used_ratio is the last interval snapshot's CPU use over its cores.
func TestMetricsCountGeneratorLimitedSeconds(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	tg := newTarget(t)
	reg := prometheus.NewRegistry()
	r := h.startWorker(t, worker.Config{Capacity: 1, Metrics: agentmetrics.New(reg)})
	const run = "run-generator-limited"
	h.putState(t, run, barragev1.RunPhase_RUN_PHASE_RUNNING)
	h.assign(t, r.w.ID(), run, 0, shardSpec{url: tg.url(slowPath), qps: 200, conns: 1,
		duration: 2 * time.Second, startIn: 300 * time.Millisecond})
	snaps, _ := h.snapshots(t, run, 0, 10*time.Second)
	var want, ratio float64
	for _, s := range snaps {
		if s.GetFinal() {
			continue
		}
		if wire.GeneratorLimited(s.GetCpuUsed(), s.GetCpuCores(), s.GetLagP99Us(), s.GetSendIntervalUs()) {
			want += s.GetIntervalEnd().AsTime().Sub(s.GetIntervalStart().AsTime()).Seconds()
		}
		ratio = s.GetCpuUsed() / s.GetCpuCores()
	}
	if want < 1 {
		t.Fatalf("the interval snapshots flag %.3f s generator limited, want the shard's (about 2 s)", want)
	}
	if got := gauge(t, reg, "barrage_agent_generator_limited_seconds_total", "0"); math.Abs(got-want) > 1e-6 {
		t.Errorf("generator_limited_seconds_total{slot=0} = %v, the flagged snapshots last %v s", got, want)
	}
	if got := gauge(t, reg, "barrage_agent_cpu_used_ratio", ""); math.Abs(got-ratio) > 1e-9 || got <= 0 {
		t.Errorf("cpu_used_ratio = %v, the last interval snapshot's CPU use over its cores is %v", got, ratio)
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
