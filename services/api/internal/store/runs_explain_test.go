package store

import (
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/internal/paging"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// explain returns the EXPLAIN ANALYZE plan of ListRuns for f.
func explain(tb testing.TB, s *Store, f runs.Filter) string {
	tb.Helper()
	q, args, ok := listRunsQuery(f)
	if !ok {
		tb.Fatal("filter matches nothing")
	}
	rows, err := s.conn(ctxT(tb)).Raw("EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) "+q, args...).Rows()
	if err != nil {
		tb.Fatal(err)
	}
	defer func() { _ = rows.Close() }()
	var lines []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			tb.Fatal(err)
		}
		lines = append(lines, line)
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	return strings.Join(lines, "\n")
}

// TestListRunsPlans checks on 100k runs that list queries read an index in
// list order, first page and deep page alike, instead of sorting every run.
func TestListRunsPlans(t *testing.T) {
	t.Parallel()
	f := mustFixture(t)
	ctx := ctxT(t)
	b, c, small := f.mustProject(t, "b").ID, f.mustProject(t, "c").ID, f.mustProject(t, "small").ID
	test, err := f.s.CreateTest(ctx, f.newTest(f.project.ID, "explained"), f.actor)
	if err != nil {
		t.Fatal(err)
	}
	err = f.s.conn(ctx).Exec(`INSERT INTO runs (id, project_id, test_id, status, source, spec, labels, target, created_at)
		SELECT gen_random_uuid(), CASE WHEN i % 200 = 7 THEN ?::uuid ELSE (ARRAY[?, ?, ?]::uuid[])[1 + i % 3] END,
		       CASE WHEN i % 3 = 0 AND i % 10 = 0 THEN ?::uuid END,
		       (ARRAY['completed', 'failed', 'canceled', 'running'])[1 + i % 4], 'api', '{}',
		       jsonb_build_object('env', CASE WHEN i % 50 = 0 THEN 'prod' ELSE 'dev' END),
		       'http://target.test/', now() - i * interval '1 second'
		FROM generate_series(1, 100000) AS i`, small, f.project.ID, b, c, test.ID).Error
	if err != nil {
		t.Fatal(err)
	}
	if err := f.s.conn(ctx).Exec("ANALYZE runs").Error; err != nil {
		t.Fatal(err)
	}
	deep := func(offset int, where string, args ...any) *paging.Cursor {
		var cur struct {
			CreatedAt time.Time `gorm:"column:created_at"`
			ID        uuid.UUID `gorm:"column:id"`
		}
		q := "SELECT created_at, id FROM runs WHERE " + where + " ORDER BY created_at DESC, id DESC OFFSET ? LIMIT 1"
		if err := f.s.conn(ctx).Raw(q, append(args, offset)...).Scan(&cur).Error; err != nil {
			t.Fatal(err)
		}
		return &paging.Cursor{CreatedAt: cur.CreatedAt, ID: cur.ID}
	}
	deepA, deepAll, deepSmall := deep(30000, "project_id = ?", f.project.ID), deep(30000, "TRUE"), deep(400, "project_id = ?", small)
	one := []uuid.UUID{f.project.ID}
	tests := []struct {
		name   string
		filter runs.Filter
		// sorted is true where a Sort of at most limit×projects rows is expected.
		sorted bool
		// index is the index the plan must use, when only one makes sense.
		index string
	}{
		{name: "small project, first page", filter: runs.Filter{ProjectIDs: []uuid.UUID{small}}, index: "runs_list_idx"},
		{name: "small project, deep page", filter: runs.Filter{ProjectIDs: []uuid.UUID{small}, Page: paging.Request{After: deepSmall}}, index: "runs_list_idx"},
		{name: "one project, first page", filter: runs.Filter{ProjectIDs: one}},
		{name: "one project, deep page", filter: runs.Filter{ProjectIDs: one, Page: paging.Request{After: deepA}}},
		{name: "one project, one status", filter: runs.Filter{ProjectIDs: one, Statuses: []runs.Status{runs.Failed}}},
		{name: "one project, one status, deep page", filter: runs.Filter{ProjectIDs: one, Statuses: []runs.Status{runs.Failed}, Page: paging.Request{After: deepA}}},
		{name: "one project, test", filter: runs.Filter{ProjectIDs: one, TestID: test.ID}},
		{name: "every project, first page", filter: runs.Filter{AllProjects: true}, index: "runs_created_idx"},
		{name: "every project, deep page", filter: runs.Filter{AllProjects: true, Page: paging.Request{After: deepAll}}, index: "runs_created_idx"},
		{name: "every project, test", filter: runs.Filter{AllProjects: true, TestID: test.ID}, index: "runs_test_idx"},
		{name: "small and big project", filter: runs.Filter{ProjectIDs: []uuid.UUID{small, b}}, sorted: true},
		{name: "three projects, first page", filter: runs.Filter{ProjectIDs: []uuid.UUID{f.project.ID, b, c}}, sorted: true},
		{name: "three projects, deep page", filter: runs.Filter{ProjectIDs: []uuid.UUID{f.project.ID, b, c}, Page: paging.Request{After: deepAll}}, sorted: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fl := tt.filter
			fl.Page.Limit = 50
			plan := explain(t, f.s, fl)
			t.Logf("plan:\n%s", plan)
			if strings.Contains(plan, "Seq Scan") || strings.Contains(plan, "Bitmap") {
				t.Error("the plan does not read an index in list order")
			}
			if !strings.Contains(plan, "Index Scan") {
				t.Error("the plan uses no index scan")
			}
			if tt.index != "" && !strings.Contains(plan, "Index Scan using "+tt.index+" ") {
				t.Errorf("the plan does not use %s", tt.index)
			}
			if strings.Contains(plan, "Sort") != tt.sorted {
				t.Errorf("the plan sorts: %v, want %v", strings.Contains(plan, "Sort"), tt.sorted)
			}
		})
	}
	// The label filter is for the planner to choose (GIN or list index); log it.
	t.Logf("labels plan:\n%s", explain(t, f.s, runs.Filter{ProjectIDs: one, Labels: map[string]string{"env": "prod"}, Page: paging.Request{Limit: 50}}))
}
