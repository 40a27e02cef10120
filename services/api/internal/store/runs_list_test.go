package store

import (
	"bytes"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/internal/paging"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// runOrder sorts runs newest first, as lists return them.
func runOrder(a, b runs.Run) int {
	if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
		return c
	}
	return bytes.Compare(b.ID[:], a.ID[:])
}

// runID returns a run's id.
func runID(r runs.Run) uuid.UUID { return r.ID }

// listAll pages through f with limit and returns every run and the pages.
func listAll(tb testing.TB, s *Store, f runs.Filter, limit int, between func(page int)) []runs.Run {
	tb.Helper()
	var out []runs.Run
	f.Page = paging.Request{Limit: limit}
	for page := 1; ; page++ {
		rows, err := s.ListRuns(ctxT(tb), f)
		if err != nil {
			tb.Fatal(err)
		}
		if len(rows) > limit+1 {
			tb.Fatalf("page %d: %d rows, want at most %d", page, len(rows), limit+1)
		}
		items, next := paging.Page(rows, limit, runs.Run.Cursor)
		out = append(out, items...)
		if next == "" {
			return out
		}
		c := items[len(items)-1].Cursor()
		f.Page.After = &c
		if between != nil {
			between(page)
		}
	}
}

func TestListRunsPagination(t *testing.T) {
	t.Parallel()
	f := mustFixture(t)
	base := time.Now().UTC().Truncate(time.Second).Add(-time.Hour)
	var made []runs.Run
	for i := range 250 {
		// Groups of three share created_at, so the id must break ties.
		made = append(made, f.mustRun(t, f.newRun(f.project.ID, base.Add(time.Duration(i/3)*time.Millisecond))))
	}
	slices.SortFunc(made, runOrder)
	filter := runs.Filter{ProjectIDs: []uuid.UUID{f.project.ID}}

	got := listAll(t, f.s, filter, 50, nil)
	seen := map[uuid.UUID]bool{}
	for _, r := range got {
		seen[r.ID] = true
	}
	if len(seen) != 250 {
		t.Errorf("%d distinct runs over all pages, want 250", len(seen))
	}
	if err := sameIDs(ids(got, runID), ids(made, runID)); err != nil {
		t.Errorf("pages in order: %v", err)
	}

	// Runs created while a client pages do not shift the later pages.
	var newer []uuid.UUID
	got = listAll(t, f.s, filter, 50, func(page int) {
		if page == 2 {
			for range 30 {
				newer = append(newer, f.mustRun(t, f.newRun(f.project.ID, time.Now())).ID)
			}
		}
	})
	if err := sameIDs(ids(got, runID), ids(made, runID)); err != nil {
		t.Errorf("pages with inserts between them: %v", err)
	}
	fresh := listAll(t, f.s, filter, 50, nil)
	if len(fresh) != 280 || !slices.Contains(ids(fresh[:30], runID), newer[0]) {
		t.Errorf("a new listing has %d runs and starts with %s, want 280 starting with the new ones", len(fresh), fresh[0].ID)
	}
}

// listFixture is a set of runs over three projects.
type listFixture struct {
	a, b, c uuid.UUID
	test    uuid.UUID
	base    time.Time
	runs    []runs.Run
}

// mustListFixture creates 30 runs: 15 in a, 10 in b, 5 in c, with
// statuses, labels and tests varying by index, one minute apart.
func mustListFixture(t *testing.T, f fixture) listFixture {
	t.Helper()
	ctx := ctxT(t)
	lf := listFixture{a: f.project.ID, b: f.mustProject(t, "b").ID, c: f.mustProject(t, "c").ID}
	test, err := f.s.CreateTest(ctx, f.newTest(lf.a, "listed"), f.actor)
	if err != nil {
		t.Fatal(err)
	}
	lf.test = test.ID
	lf.base = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	statuses := []runs.Status{runs.Queued, runs.Running, runs.Completed, runs.Failed, runs.Completed}
	for i := range 30 {
		project := lf.a
		switch i % 6 {
		case 1, 4:
			project = lf.b
		case 5:
			project = lf.c
		}
		n := f.newRun(project, lf.base.Add(time.Duration(i)*time.Minute))
		n.Run.Labels = map[string]string{"env": []string{"prod", "dev", "prod"}[i%3], "region": []string{"eu", "us"}[i%2]}
		if project == lf.a && i%4 == 0 {
			n.Run.TestID = lf.test
		}
		r := f.mustRun(t, n)
		r.Status = statuses[i%len(statuses)]
		if err := f.s.conn(ctx).Exec("UPDATE runs SET status = ? WHERE id = ?", string(r.Status), r.ID).Error; err != nil {
			t.Fatal(err)
		}
		lf.runs = append(lf.runs, r)
	}
	slices.SortFunc(lf.runs, runOrder)
	return lf
}

func TestListRunsFilters(t *testing.T) {
	t.Parallel()
	f := mustFixture(t)
	lf := mustListFixture(t, f)
	in := func(ids ...uuid.UUID) func(runs.Run) bool {
		return func(r runs.Run) bool { return slices.Contains(ids, r.ProjectID) }
	}
	and := func(ps ...func(runs.Run) bool) func(runs.Run) bool {
		return func(r runs.Run) bool {
			for _, p := range ps {
				if !p(r) {
					return false
				}
			}
			return true
		}
	}
	status := func(ss ...runs.Status) func(runs.Run) bool {
		return func(r runs.Run) bool { return slices.Contains(ss, r.Status) }
	}
	label := func(k, v string) func(runs.Run) bool { return func(r runs.Run) bool { return r.Labels[k] == v } }
	cursor := lf.runs[10].Cursor()
	tests := []struct {
		name   string
		filter runs.Filter
		limit  int
		match  func(runs.Run) bool
		after  *paging.Cursor
		empty  bool
	}{
		{name: "one project", filter: runs.Filter{ProjectIDs: []uuid.UUID{lf.a}}, match: in(lf.a)},
		{name: "one status", filter: runs.Filter{ProjectIDs: []uuid.UUID{lf.a}, Statuses: []runs.Status{runs.Running}}, match: and(in(lf.a), status(runs.Running))},
		{name: "two statuses", filter: runs.Filter{ProjectIDs: []uuid.UUID{lf.a}, Statuses: []runs.Status{runs.Completed, runs.Failed}}, match: and(in(lf.a), status(runs.Completed, runs.Failed))},
		{name: "one label", filter: runs.Filter{ProjectIDs: []uuid.UUID{lf.a}, Labels: map[string]string{"env": "prod"}}, match: and(in(lf.a), label("env", "prod"))},
		{name: "two labels", filter: runs.Filter{ProjectIDs: []uuid.UUID{lf.a}, Labels: map[string]string{"env": "prod", "region": "eu"}}, match: and(in(lf.a), label("env", "prod"), label("region", "eu"))},
		{name: "unknown label", filter: runs.Filter{AllProjects: true, Labels: map[string]string{"env": "staging"}}, match: func(runs.Run) bool { return false }, empty: true},
		{name: "test", filter: runs.Filter{ProjectIDs: []uuid.UUID{lf.a}, TestID: lf.test}, match: func(r runs.Run) bool { return r.TestID == lf.test }},
		{name: "test in every project", filter: runs.Filter{AllProjects: true, TestID: lf.test}, match: func(r runs.Run) bool { return r.TestID == lf.test }},
		{name: "two projects", filter: runs.Filter{ProjectIDs: []uuid.UUID{lf.a, lf.b}}, match: in(lf.a, lf.b)},
		{name: "repeated projects", filter: runs.Filter{ProjectIDs: []uuid.UUID{lf.b, lf.a, lf.b}}, match: in(lf.a, lf.b)},
		{name: "two projects, status, cut", limit: 2, filter: runs.Filter{ProjectIDs: []uuid.UUID{lf.a, lf.b}, Statuses: []runs.Status{runs.Completed}}, match: and(in(lf.a, lf.b), status(runs.Completed))},
		{name: "two projects after a cursor", filter: runs.Filter{ProjectIDs: []uuid.UUID{lf.c, lf.b}}, after: &cursor, match: in(lf.b, lf.c)},
		{name: "every project", filter: runs.Filter{AllProjects: true}, match: func(runs.Run) bool { return true }},
		{name: "every project after a cursor, cut", limit: 3, filter: runs.Filter{AllProjects: true}, after: &cursor, match: func(runs.Run) bool { return true }},
		{name: "every project, labels", filter: runs.Filter{AllProjects: true, Labels: map[string]string{"region": "us"}}, match: label("region", "us")},
		{
			name:   "since and until",
			filter: runs.Filter{AllProjects: true, Since: lf.base.Add(5 * time.Minute), Until: lf.base.Add(12 * time.Minute)},
			match: func(r runs.Run) bool {
				return !r.CreatedAt.Before(lf.base.Add(5*time.Minute)) && r.CreatedAt.Before(lf.base.Add(12*time.Minute))
			},
		},
		{name: "no projects", filter: runs.Filter{Statuses: []runs.Status{runs.Running}}, match: func(runs.Run) bool { return false }, empty: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			limit := tt.limit
			if limit == 0 {
				limit = 50
			}
			var want []uuid.UUID
			for _, r := range lf.runs {
				if tt.after != nil && runOrder(r, runs.Run{CreatedAt: tt.after.CreatedAt, ID: tt.after.ID}) <= 0 {
					continue
				}
				if tt.match(r) && len(want) <= limit {
					want = append(want, r.ID)
				}
			}
			if (len(want) == 0) != tt.empty {
				t.Fatalf("the fixture gives %d matching runs; the case expects empty=%v", len(want), tt.empty)
			}
			fl := tt.filter
			fl.Page = paging.Request{Limit: limit, After: tt.after}
			got, err := f.s.ListRuns(ctxT(t), fl)
			if err != nil {
				t.Fatal(err)
			}
			if err := sameIDs(ids(got, runID), want); err != nil {
				t.Error(err)
			}
			if len(got) > 0 && !maps.Equal(got[0].Labels, byID(lf.runs, got[0].ID).Labels) {
				t.Errorf("labels of %s = %v", got[0].ID, got[0].Labels)
			}
		})
	}
}

// byID returns the run with id from list.
func byID(list []runs.Run, id uuid.UUID) runs.Run {
	for i := range list {
		if list[i].ID == id {
			return list[i]
		}
	}
	return runs.Run{}
}
