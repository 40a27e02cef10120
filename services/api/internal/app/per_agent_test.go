package app

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/services/api/client"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
)

// TestPerAgentSeriesOnTwoAgents runs 200 qps for 4 s on two agents against
// the real echo and reads the per-shard series (migration 00027): each
// second's shard rows add up to the merged second's count, both agents
// report, the live stream's shards events carry the same rows, and another
// project's admin is not told the run exists.
func TestPerAgentSeriesOnTwoAgents(t *testing.T) { // serial: see heavyTests
	e := startAPI(t, "BARRAGE_DISPATCH_WAIT=10s")
	echo := startEcho(t)
	startAgents(t, e.NATSURL, 2)
	created := decode[client.Run](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/runs", e.AdminToken, map[string]any{
		"project": "default",
		"spec":    map[string]any{"url": echo + "/?delay=1ms", "qps": 200, "connections": 4, "duration": "4s"},
	}))
	id := created.Id.String()
	run := e.waitRun(t, id, 40*time.Second)
	if run.Status != "completed" || run.Summary == nil {
		t.Fatalf("run ended %s (error %q)", run.Status, derefS(run.Error))
	}
	merged := e.allIntervals(t, id)
	// A page that holds the last stored second has no next_from, even when
	// it is full; one that stops before it names the next stored second.
	n := len(merged)
	full := decode[client.IntervalPage](t, e.mustDo(t, http.StatusOK, http.MethodGet, fmt.Sprintf("/runs/%s/intervals?limit=%d", id, n), e.AdminToken, nil))
	short := decode[client.IntervalPage](t, e.mustDo(t, http.StatusOK, http.MethodGet, fmt.Sprintf("/runs/%s/intervals?limit=%d", id, n-1), e.AdminToken, nil))
	if len(full.Items) != n || full.NextFrom != nil || len(short.Items) != n-1 || short.NextFrom == nil || *short.NextFrom != merged[n-1].Second {
		t.Errorf("a full last page of %d: %d items, next_from %v; one second short: %d items, next_from %v, want %d", n, len(full.Items),
			full.NextFrom, len(short.Items), short.NextFrom, merged[n-1].Second)
	}
	page := decode[client.ShardIntervalPage](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/runs/"+id+"/shards/intervals", e.AdminToken, nil))
	if page.NextFrom != nil {
		t.Errorf("next_from %d on a %d-second run's only page", *page.NextFrom, len(merged))
	}
	sums := map[int]int64{}
	shards := map[int]string{}
	for _, r := range page.Items {
		sums[r.Second] += r.Count
		shards[r.Shard] = r.AgentName
		if r.Count > 0 && (r.ServiceP50Us < 1000 || r.ServiceP99Us < r.ServiceP50Us || r.ResponseP99Us <= 0) {
			t.Errorf("second %d shard %d: service p50 %.0f p99 %.0f, response p99 %.0f µs (echo delays 1 ms)",
				r.Second, r.Shard, r.ServiceP50Us, r.ServiceP99Us, r.ResponseP99Us)
		}
		if r.CpuCores <= 0 {
			t.Errorf("second %d shard %d: cpu_cores %v", r.Second, r.Shard, r.CpuCores)
		}
	}
	if len(shards) != 2 || shards[0] == "" || shards[1] == "" {
		t.Errorf("shards in the series %v, want 0 and 1 with their agents' names", shards)
	}
	var total int64
	for _, iv := range merged {
		total += iv.Count
		if sums[iv.Second] != iv.Count {
			t.Errorf("second %d: shard rows add to %d, merged count %d", iv.Second, sums[iv.Second], iv.Count)
		}
	}
	if len(sums) != len(merged) || total != run.Summary.Count || total < 700 {
		t.Errorf("%d seconds with shard rows, %d merged; merged total %d, run %d", len(sums), len(merged), total, run.Summary.Count)
	}

	// A page of one second points at the next.
	one := decode[client.ShardIntervalPage](t, e.mustDo(t, http.StatusOK, http.MethodGet,
		"/runs/"+id+"/shards/intervals?from=0&limit=1", e.AdminToken, nil))
	if one.NextFrom == nil || *one.NextFrom != merged[1].Second || len(one.Items) == 0 || one.Items[len(one.Items)-1].Second != merged[0].Second {
		t.Errorf("limit=1 page: %d rows, next_from %v; want second %d's rows and next %d", len(one.Items), one.NextFrom, merged[0].Second, merged[1].Second)
	}

	// Windows of 2 seconds fold each shard's seconds: counts add up, the
	// rate is their mean, the p99 their largest.
	checkShardWindows(t, e, id, page.Items)
	// The merged seconds fold the same way.
	checkIntervalWindows(t, e, id, merged)

	// The live stream replays each second with its shards.
	stream, err := e.readEvents(context.Background(), id, "", 20*time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	live := map[int]int64{}
	for _, ev := range stream.Events {
		if ev.Event == "shards" {
			d := decode[struct {
				Second int                    `json:"second"`
				Items  []client.ShardInterval `json:"items"`
			}](t, []byte(ev.Data))
			var n int64
			for _, r := range d.Items {
				n += r.Count
			}
			live[d.Second] = n
		}
	}
	for s, n := range sums {
		if live[s] != n {
			t.Errorf("second %d: the stream's shards event counts %d, the endpoint %d", s, live[s], n)
		}
	}

	// Another project's admin, and a bad limit.
	e.mustProject(t, "elsewhere")
	other := e.mustToken(t, "elsewhere", auth.Admin)
	if status, _, raw := e.do(t, http.MethodGet, "/runs/"+id+"/shards/intervals", other, nil); status != http.StatusNotFound {
		t.Errorf("another project's admin got %d %s, want 404", status, raw)
	}
	for _, q := range []string{"limit=0", "step=0", "step=3601"} {
		if status, _, raw := e.do(t, http.MethodGet, "/runs/"+id+"/shards/intervals?"+q, e.AdminToken, nil); status != http.StatusUnprocessableEntity {
			t.Errorf("%s got %d %s, want 422", q, status, raw)
		}
	}
}

// checkShardWindows reads the run's shard series in windows of 2 seconds and
// checks each row against the per-second rows secs it folds.
func checkShardWindows(t *testing.T, e *apiEnv, id string, secs []client.ShardInterval) {
	t.Helper()
	type key struct{ window, shard int }
	want := map[key]client.ShardInterval{}
	seconds := map[key]int{}
	for _, r := range secs {
		k := key{r.Second / 2 * 2, r.Shard}
		w := want[k]
		w.Second, w.Shard, w.AgentName = k.window, k.shard, r.AgentName
		w.Count += r.Count
		w.Errors += r.Errors
		w.Qps += r.Qps
		w.ServiceP99Us = max(w.ServiceP99Us, r.ServiceP99Us)
		w.LagP99Us = max(w.LagP99Us, r.LagP99Us)
		w.CpuCores = max(w.CpuCores, r.CpuCores)
		want[k] = w
		seconds[k]++
	}
	got := decode[client.ShardIntervalPage](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/runs/"+id+"/shards/intervals?step=2", e.AdminToken, nil))
	if len(got.Items) != len(want) || got.NextFrom != nil {
		t.Fatalf("step=2: %d rows, next_from %v; want %d (one per shard and window) and none", len(got.Items), got.NextFrom, len(want))
	}
	for _, r := range got.Items {
		k := key{r.Second, r.Shard}
		w, ok := want[k]
		switch {
		case !ok || r.Second%2 != 0:
			t.Errorf("step=2: row of second %d shard %d is no window of the seconds", r.Second, r.Shard)
		case r.Count != w.Count || r.Errors != w.Errors || r.AgentName != w.AgentName:
			t.Errorf("window %d shard %d: count %d errors %d agent %q, want %d, %d, %q", r.Second, r.Shard, r.Count, r.Errors, r.AgentName, w.Count, w.Errors, w.AgentName)
		case math.Abs(r.Qps-w.Qps/float64(seconds[k])) > 1e-6 || r.ServiceP99Us != w.ServiceP99Us || r.LagP99Us != w.LagP99Us || r.CpuCores != w.CpuCores:
			t.Errorf("window %d shard %d: qps %.3f p99 %.0f lag p99 %.0f cores %v; want the mean %.3f and the largest %.0f, %.0f, %v",
				r.Second, r.Shard, r.Qps, r.ServiceP99Us, r.LagP99Us, r.CpuCores, w.Qps/float64(seconds[k]), w.ServiceP99Us, w.LagP99Us, w.CpuCores)
		}
	}
	// A page of one window from an odd second starts at its window and names the next.
	one := decode[client.ShardIntervalPage](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/runs/"+id+"/shards/intervals?step=2&limit=1&from=1", e.AdminToken, nil))
	if one.NextFrom == nil || *one.NextFrom != 2 || len(one.Items) == 0 || one.Items[0].Second != 0 || one.Items[len(one.Items)-1].Second != 0 {
		t.Errorf("step=2 limit=1 from=1: %d rows from second %v, next_from %v; want window 0's rows and next 2", len(one.Items), firstSecond(one.Items), one.NextFrom)
	}
}

// firstSecond is the second of the first row, or -1 without rows.
func firstSecond(rows []client.ShardInterval) int {
	if len(rows) == 0 {
		return -1
	}
	return rows[0].Second
}
