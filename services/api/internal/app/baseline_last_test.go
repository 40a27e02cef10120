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

// TestBaselineLastAPI checks baseline_last on POST /runs against real
// Postgres: it is kept on the run, and bad requests are 422s naming the
// field (out of 1..20, with baseline_run, without a test); a named
// baseline run that is not completed, or is degraded, is a 422 naming
// baseline_run.
func TestBaselineLastAPI(t *testing.T) {
	t.Parallel()
	e := startAPI(t)
	test := e.mustTest(t, e.AdminToken, "default", "pooled")
	run := decode[client.Run](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/runs", e.AdminToken,
		map[string]any{"test": test.Id.String(), "baseline_last": 5, "thresholds": []string{"p(99) < baseline * 1.10 @ 95%"}}))
	if run.BaselineLast == nil || *run.BaselineLast != 5 || run.BaselinePool != nil {
		t.Errorf("created run: baseline_last %v pool %v, want 5 and no pool yet", run.BaselineLast, run.BaselinePool)
	}
	if n := e.count(t, "SELECT count(*) FROM runs WHERE id = $1::uuid AND baseline_last = 5", run.Id.String()); n != 1 {
		t.Errorf("runs.baseline_last not stored")
	}

	other := e.mustRun(t, e.AdminToken, "default", "other", nil)
	degraded := e.mustRun(t, e.AdminToken, "default", "degraded", nil)
	e.exec(t, "UPDATE runs SET status = 'completed', degraded = true, verdict = 'error' WHERE id = $1", degraded.Id)
	tests := []struct {
		name  string
		body  map[string]any
		field string
		says  string
	}{
		{"0 runs", map[string]any{"test": test.Id.String(), "baseline_last": 0}, "baseline_last", ""},
		{"21 runs", map[string]any{"test": test.Id.String(), "baseline_last": 21}, "baseline_last", ""},
		{"with baseline_run", map[string]any{"test": test.Id.String(), "baseline_last": 3, "baseline_run": other.Id},
			"baseline_last", "not both"},
		{"without a test", map[string]any{"project": "default", "spec": testSpec(), "baseline_last": 3}, "baseline_last", "stored test"},
		{"a queued baseline", map[string]any{"project": "default", "spec": testSpec(), "baseline_run": other.Id}, "baseline_run", "queued"},
		{"a degraded baseline", map[string]any{"project": "default", "spec": testSpec(), "baseline_run": degraded.Id}, "baseline_run", "degraded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, header, raw := e.do(t, http.MethodPost, "/runs", e.AdminToken, tt.body)
			p := wantProblem(t, status, header, raw, http.StatusUnprocessableEntity, "validation")
			msg, ok := fieldMessage(p, tt.field)
			if !ok || !strings.Contains(msg, tt.says) {
				t.Errorf("fields %v (%q), want %s saying %q", problemFields(p), msg, tt.field, tt.says)
			}
		})
	}
}

// TestTrendChangePointsAPI checks the change points of GET
// /tests/{test}/trend against real Postgres: runs with known p99 and p50
// figures, p99 18 % higher from the 13th run, give one change of p99 at
// that run with its levels, and none of p50; a failed run and a run
// judged error are left out; a flat test has none.
func TestTrendChangePointsAPI(t *testing.T) {
	t.Parallel()
	e := startAPI(t)
	test := e.mustTest(t, e.AdminToken, "default", "stepped")
	flat := e.mustTest(t, e.AdminToken, "default", "flat")
	base := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	// A p99 series with about 3 % noise, +18 % from run 12 (0-based).
	noise := []float64{1.00, 1.03, 0.98, 1.01, 0.97, 1.02, 0.99, 1.04, 0.98, 1.00, 1.02, 0.97,
		1.01, 0.98, 1.03, 0.99, 1.00, 1.02, 0.97, 1.01}
	var stepped []uuid.UUID
	add := func(testID uuid.UUID, i int, status, verdict string, p50, p99 float64) uuid.UUID {
		t.Helper()
		r := decode[client.Run](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/runs", e.AdminToken,
			map[string]any{"test": testID.String()}))
		e.exec(t, `UPDATE runs SET created_at = $1, status = $2, verdict = NULLIF($3, ''), count = 1000, errors = 0,
			qps_actual = 100, p50_us = $4::float8, p90_us = $4::float8 * 1.5, p99_us = $5::float8 WHERE id = $6`,
			base.Add(time.Duration(i)*time.Minute), status, verdict, p50, p99, r.Id)
		return r.Id
	}
	for i, n := range noise {
		p99 := 20_000 * n
		if i >= 12 {
			p99 *= 1.18
		}
		stepped = append(stepped, add(test.Id, i, "completed", "pass", 5_000*noise[len(noise)-1-i], p99))
		add(flat.Id, i, "completed", "pass", 5_000*noise[i], 20_000*noise[len(noise)-1-i])
	}
	// A failed run and a degraded one (verdict error) far off: left out.
	add(test.Id, 30, "failed", "error", 50_000, 900_000)
	add(test.Id, 31, "completed", "error", 50_000, 900_000)

	viewer := e.mustToken(t, "default", auth.Viewer)
	trend := decode[client.TestTrend](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/tests/"+test.Id.String()+"/trend", viewer, nil))
	if len(trend.Items) != 22 || len(trend.ChangePoints) != 1 {
		t.Fatalf("%d runs, change points %+v; want 22 runs and one change", len(trend.Items), trend.ChangePoints)
	}
	c := trend.ChangePoints[0]
	if c.RunId != stepped[12] || c.Metric != client.ChangePointMetricP99 || c.BeforeUs < 19_600 || c.BeforeUs > 20_400 ||
		c.AfterUs < 23_200 || c.AfterUs > 24_000 || c.Change < 0.15 || c.Change > 0.21 {
		t.Errorf("change point %+v; want p99 about +18 %% (20 ms to 23.6 ms) from run %s", c, stepped[12])
	}
	flatTrend := decode[client.TestTrend](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/tests/"+flat.Id.String()+"/trend", viewer, nil))
	if len(flatTrend.Items) != 20 || len(flatTrend.ChangePoints) != 0 {
		t.Errorf("flat test: %d runs, change points %+v; want 20 and none", len(flatTrend.Items), flatTrend.ChangePoints)
	}
}
