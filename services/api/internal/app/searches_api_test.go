package app

import (
	"fmt"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/services/api/client"
)

// searchBody is a small valid search of project.
func searchBody(project, name string) map[string]any {
	sp := testSpec()
	delete(sp, "qps")
	delete(sp, "duration")
	return map[string]any{
		"project": project, "name": name, "spec": sp, "objective": "p(99) < 50ms and error_rate < 1%",
		"min_qps": 10, "max_qps": 100, "step_duration": "2s", "warmup": "1s",
	}
}

// mustSearch starts a search in project as token's holder.
func (e *apiEnv) mustSearch(t testing.TB, token, project, name string) client.Search {
	t.Helper()
	return decode[client.Search](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/searches", token, searchBody(project, name)))
}

// waitSearch polls a search until it is no longer running.
func (e *apiEnv) waitSearch(t *testing.T, id string, within time.Duration) client.Search {
	t.Helper()
	var sr client.Search
	waitFor(t, within, func() error {
		sr = decode[client.Search](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/searches/"+id, e.AdminToken, nil))
		if sr.Status == client.SearchRunning {
			return fmt.Errorf("search %s still running after %d steps", id, len(sr.Steps))
		}
		return nil
	})
	for i := range sr.Steps {
		st := &sr.Steps[i]
		t.Logf("step %d: %v qps → %s: %d requests, %.1f qps achieved, p50 %.1f ms, p99 %.1f ms, errors %d %s",
			st.Step, st.Qps, st.Status, st.Count, st.AchievedQps, st.P50Us/1000, st.P99Us/1000, st.Errors, st.Detail)
	}
	t.Logf("search %s: %s", sr.Status, sr.Message)
	return sr
}

// TestSearchFindsTheKnee searches the capacity of an echo server that
// saturates (delay = 20 ms / (1 − 0.020 s × the arrival rate over the last
// second), the rate form of the saturate model) on two agents, with the
// objective p(50) < 80ms. The model puts the knee at λ* = (1 − 20/80) /
// 0.020 = 37.5 qps; the search must land within 10 %. The rate form rather
// than the in-flight one: time this shared machine adds to a request (the
// agents, API and echo on a loaded host, maybe under the race detector)
// then adds once to its latency, where the in-flight form multiplies it by
// 1/(1 − ρ) and once, in CI, failed 31.25 qps against the objective. At
// 33.75 qps, the band's lower edge, the model answers in 61.5 ms, so the
// search holds with up to 18 ms added to the median. The median rather
// than p(99), because one scheduling stall delays a few percent of a
// step's requests, which a high percentile measures, and the model has no
// stalls.
func TestSearchFindsTheKnee(t *testing.T) { // serial: see heavyTests
	e := startAPI(t, "BARRAGE_DISPATCH_WAIT=10s")
	echo := startEcho(t)
	startAgents(t, e.NATSURL, 2)
	created := decode[client.Search](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/searches", e.AdminToken, map[string]any{
		"project": "default", "name": "knee",
		"spec":      map[string]any{"url": echo + "/?saturate=20ms:20ms:rate", "connections": 64},
		"objective": "p(50) < 80ms and error_rate < 1%", "min_qps": 25, "max_qps": 100, "step_duration": "2s", "warmup": "1s",
		"resolution": 0.04,
	}))
	sr := e.waitSearch(t, created.Id.String(), 85*time.Second)
	if sr.Status != client.SearchCompleted || sr.Outcome == nil || *sr.Outcome != client.OutcomeFound || sr.BestQps == nil || sr.FirstFailQps == nil {
		t.Fatalf("search ended %s (%v): %s", sr.Status, sr.Outcome, sr.Message)
	}
	const knee = 37.5
	if best := *sr.BestQps; math.Abs(best-knee) > 0.1*knee {
		t.Errorf("best qps %v, want the knee %v ± 10 %%", best, knee)
	}
	if *sr.FirstFailQps <= *sr.BestQps || *sr.FirstFailQps-*sr.BestQps > 0.04**sr.BestQps+1e-9 {
		t.Errorf("first failing %v, best %v: want within the 4 %% resolution above it", *sr.FirstFailQps, *sr.BestQps)
	}
	checkSteps(t, e, sr)
}

// checkSteps checks that every step's figures are those of its run: the
// merged rows of the seconds after the warm-up, and a run on both agents.
func checkSteps(t *testing.T, e *apiEnv, sr client.Search) {
	t.Helper()
	if len(sr.Steps) < 3 || sr.Steps[0].Qps != sr.MinQps {
		t.Fatalf("%d steps from %v qps: want a probe from min_qps and a bisection", len(sr.Steps), sr.Steps[0].Qps)
	}
	for i := range sr.Steps {
		st := &sr.Steps[i]
		if st.RunId == nil || st.Status == client.StepError || st.Status == client.StepRunning {
			t.Fatalf("step %d: %+v", st.Step, st)
		}
		id := st.RunId.String()
		sum := e.count(t, `SELECT coalesce(sum(count), 0) FROM run_intervals WHERE run_id = $1::uuid AND second >= 1 AND second < 3`, id)
		if int64(sum) != st.Count {
			t.Errorf("step %d: count %d, the run's seconds 1 and 2 hold %d", st.Step, st.Count, sum)
		}
		if n := e.count(t, `SELECT count(DISTINCT agent_id) FROM run_shards WHERE run_id = $1::uuid`, id); n != 2 {
			t.Errorf("step %d ran on %d agents, want 2", st.Step, n)
		}
		if passed := st.Status == client.StepPassed; passed != (st.P50Us < 80000 && st.Errors*100 < st.Count) {
			t.Errorf("step %d: %s with p50 %v µs and %d errors of %d against the objective", st.Step, st.Status, st.P50Us, st.Errors, st.Count)
		}
	}
}

// TestSearchNeverMet runs `barrage search` (the real CLI binary) with an
// objective even the lowest rate fails: the echo answers in 5 ms at best,
// the objective wants its median under 4 ms. The search ends after one
// step with a clear result, and the CLI exits 99. Bad flags and a refused
// search exit 2.
func TestSearchNeverMet(t *testing.T) { // serial: see heavyTests
	e := startAPI(t, "BARRAGE_DISPATCH_WAIT=10s")
	echo := startEcho(t)
	startAgents(t, e.NATSURL, 2)
	args := []string{"search", "-url", echo + "/?saturate=5ms:5ms", "-c", "8", "-objective", "p(50) < 4ms and error_rate < 1%",
		"-min", "20", "-max", "400", "-step", "2s", "-warmup", "1s", "-name", "never", "-project", "default"}
	r := runCLI(t, e.URL, e.AdminToken, args...)
	if r.code != 99 || !strings.Contains(r.stdout, "step 1  20 qps  FAILED") ||
		!strings.Contains(r.stdout, "not met at min qps 20: p(50) < 4ms: was ") {
		t.Fatalf("exit %d, stdout:\n%s", r.code, r.stdout)
	}
	page := decode[client.SearchPage](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/searches?project=default", e.AdminToken, nil))
	if len(page.Items) != 1 || page.Items[0].Name != "never" {
		t.Fatalf("searches: %+v", page.Items)
	}
	sr := e.waitSearch(t, page.Items[0].Id.String(), 5*time.Second)
	if sr.Status != client.SearchCompleted || sr.Outcome == nil || *sr.Outcome != client.OutcomeNotMet ||
		sr.BestQps != nil || sr.FirstFailQps == nil || *sr.FirstFailQps != 20 || len(sr.Steps) != 1 {
		t.Fatalf("search: %+v", sr)
	}
	st := sr.Steps[0]
	if st.Status != client.StepFailed || st.Count < 30 || st.P50Us < 5000 || len(st.Outcomes) != 2 || st.Outcomes[0].Pass || !st.Outcomes[1].Pass {
		t.Errorf("step: %+v", st)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"search", "-url", echo, "-min", "1", "-max", "2"}, "--objective is required"},
		{[]string{"search", "-url", echo, "-objective", "qps > 1", "-min", "1"}, "--min and --max are required"},
		{[]string{"search", "-project", "default", "-url", echo, "-objective", "qps > 1", "-min", "0", "-max", "5", "-step", "1500ms"}, "min_qps"},
		{[]string{"search", "-project", "default", "-url", echo, "-objective", "p(99) < 5", "-min", "1", "-max", "5"}, "objective: term 1"},
	} {
		if r := runCLI(t, e.URL, e.AdminToken, c.args...); r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, r.code, r.stderr, c.want)
		}
	}
}
