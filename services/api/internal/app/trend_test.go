package app

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/client"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
)

// TestTestTrendAPI checks GET /tests/{test}/trend end to end: the newest
// runs of the test only, oldest first, figures and error rate on the wire,
// limit bounds, and a 404 naming the test for a caller outside its project.
func TestTestTrendAPI(t *testing.T) {
	t.Parallel()
	e := startAPI(t)
	test := e.mustTest(t, e.AdminToken, "default", "trended")
	base := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	var runs []uuid.UUID
	for i := range 3 {
		run := decode[client.Run](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/runs", e.AdminToken,
			map[string]any{"test": test.Id.String()}))
		e.exec(t, "UPDATE runs SET created_at = $1 WHERE id = $2", base.Add(time.Duration(i)*time.Minute), run.Id)
		runs = append(runs, run.Id)
	}
	e.mustRun(t, e.AdminToken, "default", "not of the test", nil)
	e.exec(t, `UPDATE runs SET count = 200, errors = 3, qps_actual = 20, p50_us = 100, p90_us = 200, p99_us = 300,
		verdict = 'fail' WHERE id = $1`, runs[2])

	viewer := e.mustToken(t, "default", auth.Viewer)
	path := "/tests/" + test.Id.String() + "/trend"
	trend := decode[client.TestTrend](t, e.mustDo(t, http.StatusOK, http.MethodGet, path+"?limit=2", viewer, nil))
	wantIDs(t, "trend", ids(trend.Items, func(p client.TrendPoint) uuid.UUID { return p.RunId }), runs[1:])
	if p := trend.Items[0]; p.Count != nil || p.P99Us != nil || p.ErrorRate != 0 || p.Verdict != nil {
		t.Errorf("run without figures: %+v", p)
	}
	p := trend.Items[1]
	if p.Count == nil || *p.Count != 200 || p.Errors != 3 || p.ErrorRate != 0.015 || p.P99Us == nil || *p.P99Us != 300 ||
		p.Qps == nil || *p.Qps != 20 || p.Verdict == nil || *p.Verdict != "fail" || !p.CreatedAt.Equal(base.Add(2*time.Minute)) {
		t.Errorf("run with figures: %+v", p)
	}
	all := decode[client.TestTrend](t, e.mustDo(t, http.StatusOK, http.MethodGet, path, viewer, nil))
	wantIDs(t, "default trend", ids(all.Items, func(p client.TrendPoint) uuid.UUID { return p.RunId }), runs)

	for _, limit := range []string{"0", "501"} {
		status, header, raw := e.do(t, http.MethodGet, path+"?limit="+limit, viewer, nil)
		wantProblem(t, status, header, raw, http.StatusUnprocessableEntity, "validation")
	}
	e.mustProject(t, "other")
	outsider := e.mustToken(t, "other", auth.Admin)
	status, header, raw := e.do(t, http.MethodGet, path, outsider, nil)
	if pr := wantProblem(t, status, header, raw, http.StatusNotFound, "not-found"); pr.Detail == nil || !strings.Contains(*pr.Detail, test.Id.String()) {
		t.Errorf("detail %v does not name the test", pr.Detail)
	}
}

// TestTestTrendDegradedAndLimits checks that a run that lost a shard is
// degraded on its trend point and a whole one is not, and that the trend
// carries the fixed limits of the test's thresholds on the metrics it
// charts: for this paced test, the primary (response) latency's p50/p90/p99
// and qps, not service time, baselines, confidence forms or other metrics.
func TestTestTrendDegradedAndLimits(t *testing.T) {
	t.Parallel()
	e := startAPI(t)
	test := decode[client.Test](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/tests", e.AdminToken, map[string]any{
		"project": "default", "name": "limited", "spec": testSpec(),
		"thresholds": []string{
			"p(99) < 50ms", "service.p(99) < 10ms", "response.p(50) <= 1.5s", "p(99) < baseline * 1.10",
			"p(99) < baseline * 1.10 @ 95%", "qps >= 45", "error_rate < 1%", "max < 2s", "lag.p(99) < 1ms", "p(90) < 800us",
		},
	}))
	var runs []uuid.UUID
	for range 2 {
		run := decode[client.Run](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/runs", e.AdminToken,
			map[string]any{"test": test.Id.String()}))
		runs = append(runs, run.Id)
	}
	e.exec(t, `UPDATE runs SET status = 'completed', count = 100, qps_actual = 50, p50_us = 100, p90_us = 200, p99_us = 300,
		verdict = 'pass' WHERE id = $1`, runs[0])
	e.exec(t, `UPDATE runs SET status = 'completed', count = 60, qps_actual = 30, p50_us = 100, p90_us = 200, p99_us = 300,
		verdict = 'error', degraded = true WHERE id = $1`, runs[1])

	trend := decode[client.TestTrend](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/tests/"+test.Id.String()+"/trend", e.AdminToken, nil))
	wantIDs(t, "trend", ids(trend.Items, func(p client.TrendPoint) uuid.UUID { return p.RunId }), runs)
	if trend.Items[0].Degraded {
		t.Errorf("whole run %s is degraded on the trend", runs[0])
	}
	if p := trend.Items[1]; !p.Degraded || p.Verdict == nil || *p.Verdict != "error" {
		t.Errorf("run that lost a shard: degraded %v, verdict %v; want true, error", p.Degraded, p.Verdict)
	}
	want := []client.TrendLimit{
		{Threshold: "p(99) < 50ms", Metric: "p99", Op: "<", Value: 50_000},
		{Threshold: "response.p(50) <= 1.5s", Metric: "p50", Op: "<=", Value: 1_500_000},
		{Threshold: "qps >= 45", Metric: "qps", Op: ">=", Value: 45},
		{Threshold: "p(90) < 800us", Metric: "p90", Op: "<", Value: 800},
	}
	if len(trend.Limits) != len(want) {
		t.Fatalf("limits %+v, want %+v", trend.Limits, want)
	}
	for i := range want {
		if trend.Limits[i] != want[i] {
			t.Errorf("limit %d: %+v, want %+v", i, trend.Limits[i], want[i])
		}
	}
}
