package store

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/pgtest"
	"github.com/barrage-dev/barrage/services/api/internal/projects"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// ctxT returns a context that ends with the test or after a minute.
func ctxT(tb testing.TB) context.Context {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	tb.Cleanup(cancel)
	return ctx
}

// mustOpen opens a store on a fresh database, without migrating it.
func mustOpen(tb testing.TB) *Store {
	tb.Helper()
	s, err := Open(ctxT(tb), pgtest.NewDatabase(tb), Options{MaxOpenConns: 10}, nil)
	if err != nil {
		tb.Fatalf("open: %v", err)
	}
	tb.Cleanup(func() { _ = s.Close() })
	return s
}

// mustStore opens a store on a fresh, migrated database.
func mustStore(tb testing.TB) *Store {
	tb.Helper()
	s := mustOpen(tb)
	if err := Migrate(ctxT(tb), s.DB(), MigrateCmdUp, io.Discard); err != nil {
		tb.Fatalf("migrate up: %v", err)
	}
	return s
}

// fixture is a migrated, bootstrapped store.
type fixture struct {
	s       *Store
	org     uuid.UUID
	admin   uuid.UUID
	project projects.Project
	// token is the bootstrap token's secret hash.
	token []byte
	actor auth.Actor
}

// mustFixture returns a bootstrapped store: org, project "default",
// admin user and their unscoped token.
func mustFixture(tb testing.TB) fixture {
	tb.Helper()
	s := mustStore(tb)
	ctx := ctxT(tb)
	hash := sha256.Sum256([]byte("bootstrap-secret"))
	created, err := s.Bootstrap(ctx, Bootstrap{AdminEmail: "Admin@Example.com", AdminPasswordHash: "$argon2id$x", TokenHash: hash[:], TokenHint: "brg_abc"})
	if err != nil || !created {
		tb.Fatalf("bootstrap: created=%v err=%v", created, err)
	}
	f := fixture{s: s, token: hash[:]}
	if f.org, err = s.DefaultOrg(ctx); err != nil {
		tb.Fatal(err)
	}
	if f.admin, err = s.SystemUser(ctx); err != nil {
		tb.Fatal(err)
	}
	if f.project, err = s.GetProjectBySlug(ctx, "default"); err != nil {
		tb.Fatal(err)
	}
	f.actor = auth.Actor{UserID: f.admin}
	return f
}

// mustProject creates a project with slug, administered by the admin.
func (f fixture) mustProject(tb testing.TB, slug string) projects.Project {
	tb.Helper()
	now := time.Now().UTC()
	p, err := f.s.CreateProject(ctxT(tb), projects.Project{ID: uuid.New(), OrgID: f.org, Slug: slug, Name: slug, CreatedAt: now, UpdatedAt: now}, f.admin, f.actor)
	if err != nil {
		tb.Fatalf("create project %s: %v", slug, err)
	}
	return p
}

// count returns the single integer query returns.
func (f fixture) count(tb testing.TB, query string, args ...any) int64 {
	tb.Helper()
	var n int64
	if err := f.s.conn(ctxT(tb)).Raw(query, args...).Scan(&n).Error; err != nil {
		tb.Fatalf("%s: %v", query, err)
	}
	return n
}

// testSpec returns a small valid spec.
func testSpec() spec.Spec {
	return spec.Spec{URL: "http://target.test/path", QPS: 50, Connections: 4, Duration: spec.Duration(10 * time.Second), Labels: map[string]string{"team": "core"}}
}

// newRun returns a queued run in project, ready for CreateRun.
func (f fixture) newRun(project uuid.UUID, at time.Time) runs.NewRun {
	id, _ := uuid.NewV7()
	sp := testSpec()
	r := runs.Run{
		ID: id, ProjectID: project, Name: "run " + id.String()[:8], Status: runs.Queued, Source: runs.SourceAPI,
		Spec: sp, Thresholds: []string{"p(99) < 100ms"}, Labels: map[string]string{"team": "core"},
		Target: sp.URL, QPSRequested: sp.QPS, CreatedBy: f.admin, CreatedAt: at, UpdatedAt: at,
	}
	payload, _ := json.Marshal(map[string]any{"run_id": id, "project_id": project, "spec": sp})
	return runs.NewRun{Run: r, Dispatch: payload, Actor: f.actor}
}

// mustRun creates n's run.
func (f fixture) mustRun(tb testing.TB, n runs.NewRun) runs.Run {
	tb.Helper()
	r, created, err := f.s.CreateRun(ctxT(tb), n)
	if err != nil || !created {
		tb.Fatalf("create run: created=%v err=%v", created, err)
	}
	return r
}

// wantCode fails tb unless err carries code; it returns the detail.
func wantCode(tb testing.TB, err error, code apperr.Code) string {
	tb.Helper()
	if got := apperr.CodeOf(err); got != code {
		tb.Fatalf("error = %v (code %q), want code %q", err, got, code)
	}
	var e *apperr.Error
	errors.As(err, &e)
	return e.Detail
}

// ids returns the ids of rows.
func ids[T any](rows []T, id func(T) uuid.UUID) []uuid.UUID {
	out := make([]uuid.UUID, len(rows))
	for i, r := range rows {
		out[i] = id(r)
	}
	return out
}

// sameIDs reports whether a and b hold the same ids in the same order.
func sameIDs(a, b []uuid.UUID) error {
	if len(a) != len(b) {
		return fmt.Errorf("got %d ids, want %d", len(a), len(b))
	}
	for i := range a {
		if a[i] != b[i] {
			return fmt.Errorf("id %d = %s, want %s", i, a[i], b[i])
		}
	}
	return nil
}
