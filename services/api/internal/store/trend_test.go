package store

import (
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/internal/testdefs"
)

// trendFixture is a test with five runs one minute apart (plus runs of
// another test and of no test interleaved), oldest first in runs.
type trendFixture struct {
	f     fixture
	test  uuid.UUID
	other uuid.UUID
	runs  []uuid.UUID
	base  time.Time
}

// mustTrendFixture creates the runs of trendFixture; run i of the test
// gets figures set by sets[i] ("" leaves it without a summary).
func mustTrendFixture(t *testing.T, sets []string) trendFixture {
	t.Helper()
	f := mustFixture(t)
	ctx := ctxT(t)
	test, err := f.s.CreateTest(ctx, f.newTest(f.project.ID, "trended"), f.actor)
	if err != nil {
		t.Fatal(err)
	}
	other, err := f.s.CreateTest(ctx, f.newTest(f.project.ID, "other"), f.actor)
	if err != nil {
		t.Fatal(err)
	}
	tf := trendFixture{f: f, test: test.ID, other: other.ID, base: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}
	// Created out of order, so the order comes from created_at, not insertion.
	order := []int{3, 0, 4, 1, 2}
	tf.runs = make([]uuid.UUID, len(order))
	for _, i := range order {
		at := tf.base.Add(time.Duration(i) * time.Minute)
		r := f.mustTestRun(t, test.ID, at, nil)
		tf.runs[i] = r.ID
		if sets[i] != "" {
			if err := f.s.conn(ctx).Exec("UPDATE runs SET "+sets[i]+" WHERE id = ?", r.ID).Error; err != nil {
				t.Fatal(err)
			}
		}
		// Newer runs of another test and of none must not show.
		f.mustTestRun(t, other.ID, at.Add(30*time.Second), nil)
		f.mustTestRun(t, uuid.Nil, at.Add(40*time.Second), nil)
	}
	return tf
}

func TestTestTrend(t *testing.T) {
	t.Parallel()
	sets := []string{
		"status = 'completed', verdict = 'pass', count = 1000, errors = 5, qps_actual = 99.5, p50_us = 200, p90_us = 400, p99_us = 900",
		"status = 'completed', verdict = 'fail', count = 400, errors = 0, qps_actual = 40, p50_us = 210, p90_us = 410, p99_us = 910",
		"status = 'failed', verdict = 'error', count = 0, qps_actual = 0",
		"",
		"status = 'running', count = 8, errors = 8, qps_actual = 4, p50_us = 1, p90_us = 2, p99_us = 3",
	}
	tf := mustTrendFixture(t, sets)
	ctx := ctxT(t)
	startAt := tf.base.Add(time.Hour)
	startedAt := tf.base.Add(2 * time.Hour)
	db := tf.f.s.conn(ctx)
	if err := db.Exec("UPDATE runs SET start_at = ?, started_at = ? WHERE id = ?", startAt, startedAt, tf.runs[0]).Error; err != nil {
		t.Fatal(err)
	}
	if err := db.Exec("UPDATE runs SET started_at = ? WHERE id = ?", startedAt, tf.runs[1]).Error; err != nil {
		t.Fatal(err)
	}

	all, err := tf.f.s.TestTrend(ctx, tf.test, 500)
	if err != nil {
		t.Fatal(err)
	}
	if err := sameIDs(ids(all, pointID), tf.runs); err != nil {
		t.Fatalf("trend runs: %v", err)
	}
	want := []testdefs.TrendPoint{
		{Status: "completed", Verdict: "pass", StartedAt: startAt, HasSummary: true, Count: 1000, Errors: 5, QPS: 99.5, P50US: 200, P90US: 400, P99US: 900},
		{Status: "completed", Verdict: "fail", StartedAt: startedAt, HasSummary: true, Count: 400, QPS: 40, P50US: 210, P90US: 410, P99US: 910},
		{Status: "failed", Verdict: "error", HasSummary: true},
		{Status: "queued"},
		{Status: "running", HasSummary: true, Count: 8, Errors: 8, QPS: 4, P50US: 1, P90US: 2, P99US: 3},
	}
	rates := []float64{0.005, 0, 0, 0, 1}
	for i, got := range all {
		w := want[i]
		w.RunID, w.Name, w.CreatedAt = got.RunID, got.Name, tf.base.Add(time.Duration(i)*time.Minute)
		if !got.CreatedAt.Equal(w.CreatedAt) || !got.StartedAt.Equal(w.StartedAt) {
			t.Errorf("point %d times = %v, %v; want %v, %v", i, got.CreatedAt, got.StartedAt, w.CreatedAt, w.StartedAt)
		}
		got.CreatedAt, got.StartedAt = w.CreatedAt, w.StartedAt
		if got != w {
			t.Errorf("point %d = %+v, want %+v", i, got, w)
		}
		if r := got.ErrorRate(); r != rates[i] {
			t.Errorf("point %d error rate = %v, want %v", i, r, rates[i])
		}
	}

	tests := []struct {
		name  string
		test  uuid.UUID
		limit int
		want  []uuid.UUID
	}{
		{name: "limit keeps the newest", test: tf.test, limit: 2, want: tf.runs[3:]},
		{name: "limit one", test: tf.test, limit: 1, want: tf.runs[4:]},
		{name: "limit equal to runs", test: tf.test, limit: 5, want: tf.runs},
		{name: "unknown test", test: uuid.New(), limit: 10, want: []uuid.UUID{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tf.f.s.TestTrend(ctx, tt.test, tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			if err := sameIDs(ids(got, pointID), tt.want); err != nil {
				t.Error(err)
			}
		})
	}
	others, err := tf.f.s.TestTrend(ctx, tf.other, 500)
	if err != nil {
		t.Fatal(err)
	}
	if len(others) != 5 {
		t.Errorf("other test has %d points, want 5", len(others))
	}
}

func pointID(p testdefs.TrendPoint) uuid.UUID { return p.RunID }

// TestTestTrendPlan checks that a trend of a test with few runs among many
// reads runs_test_idx instead of scanning runs.
func TestTestTrendPlan(t *testing.T) {
	t.Parallel()
	f := mustFixture(t)
	ctx := ctxT(t)
	busy, err := f.s.CreateTest(ctx, f.newTest(f.project.ID, "busy"), f.actor)
	if err != nil {
		t.Fatal(err)
	}
	rare, err := f.s.CreateTest(ctx, f.newTest(f.project.ID, "rare"), f.actor)
	if err != nil {
		t.Fatal(err)
	}
	err = f.s.conn(ctx).Exec(`INSERT INTO runs (id, project_id, test_id, status, source, spec, labels, target, created_at)
		SELECT gen_random_uuid(), ?, CASE WHEN i % 500 = 0 THEN ?::uuid ELSE ?::uuid END, 'completed', 'api', '{}', '{}',
		       'http://target.test/', now() - i * interval '1 second'
		FROM generate_series(1, 50000) AS i`, f.project.ID, rare.ID, busy.ID).Error
	if err != nil {
		t.Fatal(err)
	}
	if err := f.s.conn(ctx).Exec("ANALYZE runs").Error; err != nil {
		t.Fatal(err)
	}
	var lines []string
	if err := f.s.conn(ctx).Raw("EXPLAIN (COSTS OFF) "+trendQuery, rare.ID, 100).Scan(&lines).Error; err != nil {
		t.Fatal(err)
	}
	plan := strings.Join(lines, "\n")
	if !strings.Contains(plan, "runs_test_idx") || strings.Contains(plan, "Seq Scan") {
		t.Errorf("trend plan does not read runs_test_idx:\n%s", plan)
	}
}
