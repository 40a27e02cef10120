//go:build faults

package faultsuite

import (
	"context"
	"fmt"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/barrage-dev/barrage/services/api/client"
)

// searchBody is the search of TestAPIKilledMidSearch. Its target has a
// hard capacity: the echo answers each request after 100 ms and the step's
// runs have 2 connections, so at most 20 requests a second are answered.
// Below that a response takes 100 to 130 ms (p90 measured at 16 qps);
// above it the open-loop backlog grows every second of the step and the
// response time with it (p90 550 ms at 24 qps, over 1 s at 32 qps). So
// the steps (8, 16, 32, then 24 qps) pass and fail about a factor of two
// from the objective's 300 ms whatever the load of the machine, and a
// search finds best 16 qps, first fail 24 qps, every time. The base spec
// has a secret header, so the resumed driver starts its steps from the
// sealed real spec.
func (s *stack) searchBody(name string) map[string]any {
	return map[string]any{
		"project": "default", "name": name,
		"spec": map[string]any{"url": s.echoURL + "/?delay=100ms", "connections": 2,
			"headers": []string{"Authorization: Bearer search-fault-secret"}},
		"objective": "p(90) < 300ms and error_rate < 1%",
		"min_qps":   8, "max_qps": 64, "resolution": 0.5, "step_duration": "2s", "warmup": "1s",
	}
}

// startSearch starts a search of body.
func (s *stack) startSearch(t *testing.T, body map[string]any) client.Search {
	t.Helper()
	var sr client.Search
	if err := s.do(http.MethodPost, "/searches", body, &sr); err != nil {
		t.Fatalf("start search: %v", err)
	}
	return sr
}

// waitSearch polls a search until it is no longer running, and logs its
// steps.
func (s *stack) waitSearch(t *testing.T, id string, within time.Duration) client.Search {
	t.Helper()
	var sr client.Search
	waitFor(t, within, "search "+id+" ended", func() error {
		if err := s.get("/searches/"+id, &sr); err != nil {
			return err
		}
		if sr.Status == client.SearchRunning {
			return fmt.Errorf("still running after %d steps", len(sr.Steps))
		}
		return nil
	})
	for i := range sr.Steps {
		st := &sr.Steps[i]
		t.Logf("search %s step %d: %v qps → %s, p90 %.1f ms, %d requests, errors %d %s",
			id, st.Step, st.Qps, st.Status, st.P90Us/1000, st.Count, st.Errors, st.Detail)
	}
	t.Logf("search %s: %s: %s", id, sr.Status, sr.Message)
	return sr
}

// stepRuns counts the runs of each step of a search by their search_step
// label.
func (s *stack) stepRuns(t *testing.T, id string) map[string]int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	db, err := pgx.Connect(ctx, s.pg.url())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(context.Background())
	rows, err := db.Query(ctx, `SELECT labels->>'search_step', count(*) FROM runs WHERE labels->>'search' = $1 GROUP BY 1`, id)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for rows.Next() {
		var step string
		var n int
		if err := rows.Scan(&step, &n); err != nil {
			t.Fatal(err)
		}
		out[step] = n
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestAPIKilledMidSearch: a capacity search, then the same search with a
// kill -9 of its API while its second step runs and a restart 1 s later.
// The restarted API claims the search once its lease (3 s here) ended,
// waits for the step's run, which went on without it, judges it and goes
// on: the search completes with the same steps, outcome, best_qps and
// first_fail_qps as the uninterrupted one, and no step ran twice.
func TestAPIKilledMidSearch(t *testing.T) {
	s := startStackWith(t, stackConfig{replicas: 1, agents: 1, apiEnv: []string{"BARRAGE_SEARCH_LEASE=3s"}})
	const within = 3 * time.Minute
	start := time.Now()
	want := s.waitSearch(t, s.startSearch(t, s.searchBody("uninterrupted")).Id.String(), within)
	t.Logf("the uninterrupted search took %v", time.Since(start).Round(time.Second))
	if want.Status != client.SearchCompleted || want.Outcome == nil || *want.Outcome != client.OutcomeFound {
		t.Fatalf("uninterrupted search: %s %v: %s; want completed and found", want.Status, want.Outcome, want.Message)
	}

	sr := s.startSearch(t, s.searchBody("killed"))
	id := sr.Id.String()
	waitFor(t, time.Minute, "search "+id+" running its second step", func() error {
		if err := s.get("/searches/"+id, &sr); err != nil {
			return err
		}
		if n := len(sr.Steps); n < 2 || sr.Steps[n-1].Status != client.StepRunning || sr.Steps[n-1].RunId == nil {
			return fmt.Errorf("%d steps", n)
		}
		return nil
	})
	s.waitRunning(t, sr.Steps[1].RunId.String(), 1)
	s.apis[0].signal(t, syscall.SIGKILL, 5*time.Second)
	time.Sleep(time.Second)
	s.apis[0].start(t)
	waitFor(t, 30*time.Second, "API ready again", func() error { return s.ready(s.apiURL) })
	got := s.waitSearch(t, id, within)

	if got.Status != want.Status || *got.Outcome != *want.Outcome || *got.BestQps != *want.BestQps || *got.FirstFailQps != *want.FirstFailQps {
		t.Errorf("after the kill: %s %s best %v first fail %v; uninterrupted: %s %s best %v first fail %v",
			got.Status, *got.Outcome, *got.BestQps, *got.FirstFailQps, want.Status, *want.Outcome, *want.BestQps, *want.FirstFailQps)
	}
	if len(got.Steps) != len(want.Steps) {
		t.Fatalf("after the kill %d steps, uninterrupted %d", len(got.Steps), len(want.Steps))
	}
	for i := range got.Steps {
		if g, w := got.Steps[i], want.Steps[i]; g.Qps != w.Qps || g.Status != w.Status {
			t.Errorf("step %d: %v qps %s after the kill, %v qps %s uninterrupted", i, g.Qps, g.Status, w.Qps, w.Status)
		}
	}
	if *got.Steps[1].RunId != *sr.Steps[1].RunId {
		t.Errorf("step 1 ran as run %s before the kill and %s after", sr.Steps[1].RunId, got.Steps[1].RunId)
	}
	runsOf := s.stepRuns(t, id)
	if len(runsOf) != len(got.Steps) {
		t.Errorf("runs of the search by step: %v; want one for each of its %d steps", runsOf, len(got.Steps))
	}
	for step, n := range runsOf {
		if n != 1 {
			t.Errorf("step %s ran %d times", step, n)
		}
	}
	resumed := 0
	for _, rec := range s.apis[0].jsonLines("resume search") {
		if rec["search"] == id {
			resumed++
		}
	}
	if resumed != 1 {
		t.Errorf("the restarted API logged %d resumes of search %s; want 1", resumed, id)
	}
}
