package store

import (
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/paging"
	"github.com/barrage-dev/barrage/services/api/internal/projects"
)

func TestProjects(t *testing.T) {
	t.Parallel()
	f := mustFixture(t)
	ctx := ctxT(t)
	at := time.Date(2031, 5, 6, 7, 8, 9, 123456789, time.UTC)
	in := projects.Project{ID: uuid.New(), OrgID: f.org, Slug: "payments", Name: "Payments", Description: "the payments team", CreatedAt: at, UpdatedAt: at}
	p, err := f.s.CreateProject(ctx, in, f.admin, f.actor)
	if err != nil {
		t.Fatal(err)
	}
	want := in
	want.CreatedAt, want.UpdatedAt = at.Truncate(time.Microsecond), at.Truncate(time.Microsecond)
	want.TargetAllowList = []string{}
	want.TargetAllowGranted = []string{}
	if !reflect.DeepEqual(p, want) {
		t.Errorf("CreateProject = %+v, want %+v", p, want)
	}
	if got := f.count(t, "SELECT count(*) FROM memberships WHERE project_id = ? AND user_id = ? AND role = 'admin'", p.ID, f.admin); got != 1 {
		t.Errorf("admin memberships = %d, want 1", got)
	}
	if got := f.count(t, "SELECT count(*) FROM audit_log WHERE action = 'project.create' AND project_id = ? AND user_id = ? AND target_kind = 'project' AND target_id = ?", p.ID, f.admin, p.ID.String()); got != 1 {
		t.Errorf("project.create audit rows = %d, want 1", got)
	}

	t.Run("get", func(t *testing.T) {
		byID, err := f.s.GetProject(ctx, p.ID)
		if err != nil || !reflect.DeepEqual(byID, want) {
			t.Errorf("GetProject = %+v, %v", byID, err)
		}
		bySlug, err := f.s.GetProjectBySlug(ctx, "payments")
		if err != nil || !reflect.DeepEqual(bySlug, want) {
			t.Errorf("GetProjectBySlug = %+v, %v", bySlug, err)
		}
		if _, err := f.s.GetProject(ctx, uuid.New()); !apperr.Is(err, apperr.NotFound) {
			t.Errorf("GetProject(missing) err = %v", err)
		}
		if _, err := f.s.GetProjectBySlug(ctx, "nope"); !apperr.Is(err, apperr.NotFound) {
			t.Errorf("GetProjectBySlug(missing) err = %v", err)
		}
	})

	t.Run("duplicate slug", func(t *testing.T) {
		dup := in
		dup.ID = uuid.New()
		_, err := f.s.CreateProject(ctx, dup, f.admin, f.actor)
		if d := wantCode(t, err, apperr.Conflict); d != `project slug "payments" is taken` {
			t.Errorf("detail = %q", d)
		}
		if got := f.count(t, "SELECT count(*) FROM projects WHERE id = ?", dup.ID); got != 0 {
			t.Errorf("duplicate left %d rows", got)
		}
		if got := f.count(t, "SELECT count(*) FROM audit_log WHERE target_id = ?", dup.ID.String()); got != 0 {
			t.Errorf("duplicate left %d audit rows", got)
		}
	})

	t.Run("update", func(t *testing.T) {
		later := at.Add(time.Hour)
		up := p
		up.Name, up.Description, up.UpdatedAt, up.Slug = "Payments v2", "", later, "ignored"
		got, err := f.s.UpdateProject(ctx, up, f.actor)
		if err != nil {
			t.Fatal(err)
		}
		if got.Name != "Payments v2" || got.Description != "" || !got.UpdatedAt.Equal(later.Truncate(time.Microsecond)) || got.Slug != "payments" || !got.CreatedAt.Equal(want.CreatedAt) {
			t.Errorf("UpdateProject = %+v", got)
		}
		missing := up
		missing.ID = uuid.New()
		if _, err := f.s.UpdateProject(ctx, missing, f.actor); !apperr.Is(err, apperr.NotFound) {
			t.Errorf("UpdateProject(missing) err = %v", err)
		}
		if n := f.count(t, "SELECT count(*) FROM audit_log WHERE action = 'project.update'"); n != 1 {
			t.Errorf("project.update audit rows = %d, want 1", n)
		}
	})
}

func TestListProjects(t *testing.T) {
	t.Parallel()
	f := mustFixture(t)
	ctx := ctxT(t)
	var made []uuid.UUID // newest first
	for _, slug := range []string{"a", "b", "c", "d", "e"} {
		made = append([]uuid.UUID{f.mustProject(t, slug).ID}, made...)
	}
	all := append(append([]uuid.UUID{}, made...), f.project.ID)

	tests := []struct {
		name  string
		ids   []uuid.UUID
		all   bool
		limit int
		want  []uuid.UUID
	}{
		{name: "all", all: true, limit: 50, want: all},
		{name: "all limited", all: true, limit: 2, want: all[:3]},
		{name: "some", ids: []uuid.UUID{made[4], made[1]}, limit: 50, want: []uuid.UUID{made[1], made[4]}},
		{name: "none", limit: 50, want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := f.s.ListProjects(ctx, tt.ids, tt.all, paging.Request{Limit: tt.limit})
			if err != nil {
				t.Fatal(err)
			}
			if err := sameIDs(ids(got, func(p projects.Project) uuid.UUID { return p.ID }), tt.want); err != nil {
				t.Error(err)
			}
		})
	}
	first, err := f.s.ListProjects(ctx, nil, true, paging.Request{Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	page, next := paging.Page(first, 2, projects.Project.Cursor)
	if len(page) != 2 || next == "" {
		t.Fatalf("first page %d rows, next %q", len(page), next)
	}
	c := page[1].Cursor()
	rest, err := f.s.ListProjects(ctx, nil, true, paging.Request{Limit: 50, After: &c})
	if err != nil {
		t.Fatal(err)
	}
	if err := sameIDs(ids(rest, func(p projects.Project) uuid.UUID { return p.ID }), all[2:]); err != nil {
		t.Errorf("second page: %v", err)
	}
}
