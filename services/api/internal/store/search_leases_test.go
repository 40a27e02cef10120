package store

import (
	"bytes"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/searches"
)

// mustSearch creates a running search of the default project whose real
// spec carries a secret header, driven by driver under lease.
func (f fixture) mustSearch(tb testing.TB, driver uuid.UUID, lease time.Duration) (searches.Search, spec.Spec) {
	tb.Helper()
	return f.s.newSearch(tb, f, driver, lease)
}

// sealedSearch creates a search of f's default project with s, sealed
// under s's key, and returns its id.
func (s *Store) sealedSearch(tb testing.TB, f fixture) uuid.UUID {
	tb.Helper()
	sr, _ := s.newSearch(tb, f, uuid.New(), time.Minute)
	return sr.ID
}

// newSearch creates a search of f's default project with s.
func (s *Store) newSearch(tb testing.TB, f fixture, driver uuid.UUID, lease time.Duration) (searches.Search, spec.Spec) {
	tb.Helper()
	id, _ := uuid.NewV7()
	now := time.Now().UTC()
	full := spec.Spec{URL: "http://target.test/", Connections: 2, Headers: []string{"Authorization: Bearer search-secret-1234"}}
	red := full.Clone()
	red.Headers = []string{"Authorization: REDACTED"}
	sr := searches.Search{
		ID: id, ProjectID: f.project.ID, Spec: red, Objective: "p(99) < 50ms", MinQPS: 10, MaxQPS: 100,
		Step: 2 * time.Second, Warmup: time.Second, Resolution: 0.5, Status: searches.Running,
		CreatedBy: f.admin, CreatedAt: now, UpdatedAt: now,
	}
	if err := s.CreateSearch(ctxT(tb), sr, full, driver, lease); err != nil {
		tb.Fatalf("create search: %v", err)
	}
	return sr, full
}

// TestSearchSealedSpec: the real base spec of a search is stored sealed,
// never in clear, and SearchSpec opens it; a search from before
// migration 00019 has none.
func TestSearchSealedSpec(t *testing.T) {
	f := mustFixture(t)
	ctx := ctxT(t)
	sr, full := f.mustSearch(t, uuid.New(), time.Minute)
	var sealed, visible []byte
	if err := f.s.DB().QueryRowContext(ctx, `SELECT sealed_spec, spec::text FROM searches WHERE id = $1`, sr.ID).Scan(&sealed, &visible); err != nil {
		t.Fatal(err)
	}
	for _, col := range [][]byte{sealed, visible} {
		if bytes.Contains(col, []byte("search-secret-1234")) {
			t.Fatalf("a searches column holds the secret in clear: %q", col)
		}
	}
	got, err := f.s.SearchSpec(ctx, sr.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Headers) != 1 || got.Headers[0] != full.Headers[0] {
		t.Fatalf("SearchSpec: headers %q, want the real ones", got.Headers)
	}
	if _, err := f.s.DB().ExecContext(ctx, `UPDATE searches SET sealed_spec = NULL WHERE id = $1`, sr.ID); err != nil {
		t.Fatal(err)
	}
	_, err = f.s.SearchSpec(ctx, sr.ID)
	wantCode(t, err, apperr.NotFound)
}

// TestSearchLease: a search whose driver renews its lease is claimed by
// no one; once the lease ends (or is released) one claim takes it, the
// old driver can no longer renew, and a search that ended is never
// claimed.
func TestSearchLease(t *testing.T) {
	f := mustFixture(t)
	ctx := ctxT(t)
	a, b := uuid.New(), uuid.New()
	sr, _ := f.mustSearch(t, a, time.Hour)
	if ids, err := f.s.ClaimSearches(ctx, b, time.Minute, 10); err != nil || len(ids) != 0 {
		t.Fatalf("claim of a leased search: %v %v; want none", ids, err)
	}
	if ok, err := f.s.RenewSearch(ctx, sr.ID, a, time.Minute); err != nil || !ok {
		t.Fatalf("renew by its driver: %v %v", ok, err)
	}
	if ok, err := f.s.RenewSearch(ctx, sr.ID, b, time.Minute); err != nil || ok {
		t.Fatalf("renew by another: %v %v; want false", ok, err)
	}
	if err := f.s.ReleaseSearch(ctx, sr.ID, a); err != nil {
		t.Fatal(err)
	}
	ids, err := f.s.ClaimSearches(ctx, b, time.Minute, 10)
	if err != nil || len(ids) != 1 || ids[0] != sr.ID {
		t.Fatalf("claim after release: %v %v; want [%s]", ids, err, sr.ID)
	}
	if ok, _ := f.s.RenewSearch(ctx, sr.ID, a, time.Minute); ok {
		t.Fatal("the old driver renewed a lease another claimed")
	}
	if n := f.count(t, `SELECT count(*) FROM searches WHERE id = ? AND driver = ? AND lease_until > now() + interval '50 seconds'`, sr.ID, b); n != 1 {
		t.Fatalf("the claimed search is not leased to its new driver for a minute")
	}
	// An expired lease is claimed; an ended search is not.
	expired, _ := f.mustSearch(t, a, 0)
	ended, _ := f.mustSearch(t, a, 0)
	ended.Status, ended.FinishedAt = searches.Canceled, time.Now().UTC()
	if ok, err := f.s.EndSearch(ctx, ended); err != nil || !ok {
		t.Fatalf("end: %v %v", ok, err)
	}
	time.Sleep(10 * time.Millisecond)
	ids, err = f.s.ClaimSearches(ctx, b, time.Minute, 10)
	if err != nil || len(ids) != 1 || ids[0] != expired.ID {
		t.Fatalf("claim: %v %v; want only the expired search %s", ids, err, expired.ID)
	}
}

// TestSearchClaimConcurrent: many replicas claiming the same expired
// searches at once each get a disjoint share: every search is driven by
// exactly one.
func TestSearchClaimConcurrent(t *testing.T) {
	f := mustFixture(t)
	ctx := ctxT(t)
	const n, replicas = 20, 8
	for range n {
		f.mustSearch(t, uuid.New(), 0)
	}
	time.Sleep(10 * time.Millisecond)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		owner = map[uuid.UUID]uuid.UUID{}
		start = make(chan struct{})
	)
	for range replicas {
		me := uuid.New()
		wg.Go(func() {
			<-start
			for {
				ids, err := f.s.ClaimSearches(ctx, me, time.Minute, 3)
				if err != nil {
					t.Error(err)
					return
				}
				if len(ids) == 0 {
					return
				}
				mu.Lock()
				for _, id := range ids {
					if prev, ok := owner[id]; ok {
						t.Errorf("search %s claimed by %s and %s", id, prev, me)
					}
					owner[id] = me
				}
				mu.Unlock()
			}
		})
	}
	close(start)
	wg.Wait()
	if len(owner) != n {
		t.Fatalf("%d searches claimed, want %d", len(owner), n)
	}
	for id, me := range owner {
		if got := f.count(t, `SELECT count(*) FROM searches WHERE id = ? AND driver = ?`, id, me); got != 1 {
			t.Errorf("search %s is not driven by its claimer", id)
		}
	}
}

// TestUserPrincipal: a user acting on their own account has their current
// roles; a disabled or unknown user is refused.
func TestUserPrincipal(t *testing.T) {
	f := mustFixture(t)
	ctx := ctxT(t)
	p, err := f.s.UserPrincipal(ctx, f.admin)
	if err != nil {
		t.Fatal(err)
	}
	if p.UserID != f.admin || !p.Can(f.project.ID, auth.Runner) || p.TokenID != uuid.Nil || p.SessionID != uuid.Nil {
		t.Fatalf("principal %+v: want the admin, a runner of default, with no credential", p)
	}
	_, err = f.s.UserPrincipal(ctx, uuid.New())
	wantCode(t, err, apperr.NotFound)
	if _, err := f.s.DB().ExecContext(ctx, `UPDATE users SET disabled_at = now() WHERE id = $1`, f.admin); err != nil {
		t.Fatal(err)
	}
	_, err = f.s.UserPrincipal(ctx, f.admin)
	wantCode(t, err, apperr.Forbidden)
}
