package app

import (
	"math"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/services/api/client"
)

// runShape runs spec on two agents against the real echo server and
// returns the run's merged per-second counts.
func runShape(t *testing.T, shape map[string]any) []int64 {
	t.Helper()
	e := startAPI(t, "BARRAGE_DISPATCH_WAIT=10s")
	echo := startEcho(t)
	startAgents(t, e.NATSURL, 2)
	shape["url"] = echo + "/?delay=1ms"
	shape["connections"] = 8
	created := decode[client.Run](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/runs", e.AdminToken,
		map[string]any{"project": "default", "spec": shape}))
	id := created.Id.String()
	run := e.waitRun(t, id, 60*time.Second)
	if run.Status != "completed" || run.Summary == nil || run.Summary.Errors != 0 {
		t.Fatalf("run ended %s (error %q), summary %+v", run.Status, derefS(run.Error), run.Summary)
	}
	if shards := e.shards(t, id); len(shards) != 2 {
		t.Fatalf("%d shards, want one on each of 2 agents", len(shards))
	}
	page := decode[client.IntervalPage](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/runs/"+id+"/intervals", e.AdminToken, nil))
	var counts []int64
	for i := range page.Items {
		iv := &page.Items[i]
		for len(counts) <= iv.Second {
			counts = append(counts, 0) // a second in which nothing completed has no row
		}
		counts[iv.Second] = iv.Count
	}
	t.Logf("per-second counts across both agents: %v", counts)
	return counts
}

// checkShape compares per-second counts with the expected rate of each
// second, within ±5 %, except the seconds in skip. A request counts in the
// second it completes, and each agent cuts its seconds with its own ticker,
// so a tick or a response a few tens of ms late moves requests into the
// next second; a second off by more than 5 % is accepted when it and a
// neighbour together are within 2.5 % of their expected sum (requests moved
// across that one boundary). The running total through every second must
// be within 5 % too, so no shifting hides a shape that is off, unless that
// second and the next are within 2.5 % of their sum: the total through the
// first second of a ramp (75 requests) moves by 5 % with 4 requests moved
// across its end. A missing second fails.
func checkShape(t *testing.T, counts []int64, want []float64, skip ...int) {
	t.Helper()
	if len(counts) < len(want) {
		t.Fatalf("%d seconds of data, want at least %d", len(counts), len(want))
	}
	got := func(k int) float64 { return float64(counts[k]) }
	pairOK := func(a, b int) bool {
		return a >= 0 && b < len(want) && math.Abs(got(a)+got(b)-want[a]-want[b]) <= 0.025*(want[a]+want[b])
	}
	var gotSum, wantSum float64
	for k, w := range want {
		gotSum, wantSum = gotSum+got(k), wantSum+w
		if math.Abs(gotSum-wantSum) > 0.05*wantSum && !pairOK(k, k+1) {
			t.Errorf("through second %d: %v requests, want %v ± 5 %%", k, gotSum, wantSum)
		}
		if slices.Contains(skip, k) || math.Abs(got(k)-w) <= 0.05*w || pairOK(k-1, k) || pairOK(k, k+1) {
			continue
		}
		t.Errorf("second %d: %v requests, want %v ± 5 %%", k, got(k), w)
	}
}

// TestStepsAcrossTwoAgents runs a stepped shape (100, 300, then 150 qps)
// split over two agents: every second of the merged series follows the
// stage it is in, so both agents changed stage at the same instants (a
// lagging agent would leave a second between the two rates). The seconds
// either side of a stage change (2, 3, 5 and 6) are checked only through
// the running total: a request is counted in the second it completes, so
// an agent's interval tick a few ms late moves a few requests of the
// higher rate into the lower-rate second, more than 5 % of it.
func TestStepsAcrossTwoAgents(t *testing.T) { // serial: see heavyTests
	counts := runShape(t, map[string]any{"stages": []map[string]any{
		{"qps": 100, "duration": "3s"}, {"qps": 300, "duration": "3s"}, {"qps": 150, "duration": "2s"}}})
	checkShape(t, counts, []float64{100, 100, 100, 300, 300, 300, 150, 150}, 2, 3, 5, 6)
	var total int64
	for _, c := range counts {
		total += c
	}
	if total != 1500 {
		t.Errorf("%d requests in total, want the stages' 1500", total)
	}
}

// TestRampAcrossTwoAgents runs a linear ramp from 50 to 350 qps over 6 s
// split over two agents: second k carries the mean rate of that second,
// 50 + 300·(k+0.5)/6.
func TestRampAcrossTwoAgents(t *testing.T) { // serial: see heavyTests
	counts := runShape(t, map[string]any{"ramp": map[string]any{"from": 50, "to": 350, "over": "6s"}, "duration": "7s"})
	want := make([]float64, 0, 7)
	for k := range 6 {
		want = append(want, 50+300*(float64(k)+0.5)/6)
	}
	want = append(want, 350)
	checkShape(t, counts, want)
}
