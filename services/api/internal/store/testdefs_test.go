package store

import (
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/paging"
	"github.com/barrage-dev/barrage/services/api/internal/testdefs"
)

// newTest returns a test definition for project.
func (f fixture) newTest(project uuid.UUID, name string) testdefs.Test {
	now := time.Now().UTC()
	return testdefs.Test{
		ID: uuid.New(), ProjectID: project, Name: name, Description: "checkout flow", Spec: testSpec(),
		Thresholds: []string{"p(99) < 250ms", `error_rate < 1%`}, Labels: map[string]string{"team": "core", "tier": "1"},
		CreatedBy: f.admin, CreatedAt: now, UpdatedAt: now,
	}
}

func TestTests(t *testing.T) {
	t.Parallel()
	f := mustFixture(t)
	ctx := ctxT(t)
	in := f.newTest(f.project.ID, "checkout")
	created, err := f.s.CreateTest(ctx, in, f.actor)
	if err != nil {
		t.Fatal(err)
	}
	want := in
	want.CreatedAt, want.UpdatedAt = in.CreatedAt.Truncate(time.Microsecond), in.UpdatedAt.Truncate(time.Microsecond)
	want.Timezone = "UTC" // a test without a zone is stored with the default
	if !reflect.DeepEqual(created, want) {
		t.Errorf("CreateTest = %+v\nwant %+v", created, want)
	}
	got, err := f.s.GetTest(ctx, in.ID)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("GetTest = %+v, %v\nwant %+v", got, err, want)
	}
	if _, err := f.s.GetTest(ctx, uuid.New()); !apperr.Is(err, apperr.NotFound) {
		t.Errorf("GetTest(missing) err = %v", err)
	}

	t.Run("duplicate name", func(t *testing.T) {
		dup := f.newTest(f.project.ID, "checkout")
		_, err := f.s.CreateTest(ctx, dup, f.actor)
		if d := wantCode(t, err, apperr.Conflict); d != `a test named "checkout" already exists in this project` {
			t.Errorf("detail = %q", d)
		}
		other := f.mustProject(t, "other")
		if _, err := f.s.CreateTest(ctx, f.newTest(other.ID, "checkout"), f.actor); err != nil {
			t.Errorf("the same name in another project: %v", err)
		}
	})

	t.Run("replace", func(t *testing.T) {
		second, err := f.s.CreateTest(ctx, f.newTest(f.project.ID, "search"), f.actor)
		if err != nil {
			t.Fatal(err)
		}
		r := second
		r.Name, r.Description, r.Thresholds, r.Labels = "search v2", "", nil, nil
		r.Spec.QPS, r.UpdatedAt = 75, second.UpdatedAt.Add(time.Minute)
		replaced, err := f.s.ReplaceTest(ctx, r, f.actor)
		if err != nil {
			t.Fatal(err)
		}
		if replaced.Name != "search v2" || replaced.Spec.QPS != 75 || len(replaced.Thresholds) != 0 || replaced.Thresholds == nil ||
			len(replaced.Labels) != 0 || !replaced.UpdatedAt.Equal(r.UpdatedAt) || !replaced.CreatedAt.Equal(second.CreatedAt) {
			t.Errorf("ReplaceTest = %+v", replaced)
		}
		r.Name = "checkout"
		_, err = f.s.ReplaceTest(ctx, r, f.actor)
		wantCode(t, err, apperr.Conflict)
		r.ID = uuid.New()
		_, err = f.s.ReplaceTest(ctx, r, f.actor)
		wantCode(t, err, apperr.NotFound)
		if n := f.count(t, "SELECT count(*) FROM audit_log WHERE action = 'test.replace' AND target_id = ?", second.ID.String()); n != 1 {
			t.Errorf("test.replace audit rows = %d, want 1", n)
		}
	})

	t.Run("delete keeps runs", func(t *testing.T) {
		n := f.newRun(f.project.ID, time.Now())
		n.Run.TestID = in.ID
		run := f.mustRun(t, n)
		if err := f.s.DeleteTest(ctx, in.ID, f.actor); err != nil {
			t.Fatal(err)
		}
		after, err := f.s.GetRun(ctx, run.ID)
		if err != nil || after.TestID != uuid.Nil {
			t.Errorf("run after its test was deleted: TestID = %s, err = %v", after.TestID, err)
		}
		wantCode(t, f.s.DeleteTest(ctx, in.ID, f.actor), apperr.NotFound)
		if n := f.count(t, "SELECT count(*) FROM audit_log WHERE action = 'test.delete' AND target_id = ? AND project_id = ?", in.ID.String(), f.project.ID); n != 1 {
			t.Errorf("test.delete audit rows = %d, want 1", n)
		}
	})
}

// TestThresholdsRoundTrip stores awkward strings in the text[] column.
func TestThresholdsRoundTrip(t *testing.T) {
	t.Parallel()
	f := mustFixture(t)
	tests := []struct {
		name string
		in   []string
		want []string
	}{
		{name: "nil", in: nil, want: []string{}},
		{name: "empty", in: []string{}, want: []string{}},
		{name: "plain", in: []string{"p99 < 100ms"}, want: []string{"p99 < 100ms"}},
		{name: "awkward", in: []string{`a,b`, `{x}`, `"q"`, `back\slash`, "", "NULL", "ünï"}, want: []string{`a,b`, `{x}`, `"q"`, `back\slash`, "", "NULL", "ünï"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := f.newTest(f.project.ID, "thresholds "+tt.name)
			in.Thresholds = tt.in
			if _, err := f.s.CreateTest(ctxT(t), in, f.actor); err != nil {
				t.Fatal(err)
			}
			got, err := f.s.GetTest(ctxT(t), in.ID)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Thresholds, tt.want) {
				t.Errorf("thresholds = %#v, want %#v", got.Thresholds, tt.want)
			}
			if n := f.count(t, "SELECT cardinality(thresholds) FROM tests WHERE id = ?", in.ID); n != int64(len(tt.want)) {
				t.Errorf("cardinality in Postgres = %d, want %d", n, len(tt.want))
			}
		})
	}
}

func TestListTests(t *testing.T) {
	t.Parallel()
	f := mustFixture(t)
	ctx := ctxT(t)
	other := f.mustProject(t, "other")
	var mine, theirs []uuid.UUID // newest first
	for i := range 4 {
		for _, p := range []uuid.UUID{f.project.ID, other.ID} {
			tt, err := f.s.CreateTest(ctx, f.newTest(p, "t"+string(rune('a'+i))), f.actor)
			if err != nil {
				t.Fatal(err)
			}
			if p == f.project.ID {
				mine = append([]uuid.UUID{tt.ID}, mine...)
			} else {
				theirs = append([]uuid.UUID{tt.ID}, theirs...)
			}
		}
	}
	got, err := f.s.ListTests(ctx, []uuid.UUID{f.project.ID}, false, paging.Request{Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	if err := sameIDs(ids(got, func(t testdefs.Test) uuid.UUID { return t.ID }), mine); err != nil {
		t.Errorf("one project, limit 3 (+1): %v", err)
	}
	c := got[1].Cursor()
	got, err = f.s.ListTests(ctx, []uuid.UUID{f.project.ID}, false, paging.Request{Limit: 3, After: &c})
	if err != nil {
		t.Fatal(err)
	}
	if err := sameIDs(ids(got, func(t testdefs.Test) uuid.UUID { return t.ID }), mine[2:]); err != nil {
		t.Errorf("after a cursor: %v", err)
	}
	for _, tc := range []struct {
		name     string
		projects []uuid.UUID
		all      bool
		want     int
	}{
		{name: "both", projects: []uuid.UUID{f.project.ID, other.ID}, want: 8},
		{name: "all", all: true, want: 8},
		{name: "other", projects: []uuid.UUID{other.ID}, want: len(theirs)},
		{name: "none", want: 0},
	} {
		got, err := f.s.ListTests(ctx, tc.projects, tc.all, paging.Request{Limit: 50})
		if err != nil || len(got) != tc.want {
			t.Errorf("%s: %d tests, %v; want %d", tc.name, len(got), err, tc.want)
		}
	}
	got, err = f.s.ListTests(ctx, []uuid.UUID{other.ID}, false, paging.Request{Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	if err := sameIDs(ids(got, func(t testdefs.Test) uuid.UUID { return t.ID }), theirs); err != nil {
		t.Errorf("other project: %v", err)
	}
}
