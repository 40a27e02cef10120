package store

import (
	"crypto/sha256"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
)

func TestBootstrap(t *testing.T) {
	t.Parallel()
	s := mustStore(t)
	ctx := ctxT(t)
	f := fixture{s: s}
	if _, err := s.DefaultOrg(ctx); !apperr.Is(err, apperr.NotFound) {
		t.Errorf("DefaultOrg before bootstrap: err = %v, want not_found", err)
	}
	if _, err := s.SystemUser(ctx); !apperr.Is(err, apperr.NotFound) {
		t.Errorf("SystemUser before bootstrap: err = %v, want not_found", err)
	}
	if _, err := s.Bootstrap(ctx, Bootstrap{TokenHash: []byte{1}}); err == nil {
		t.Error("Bootstrap without an email succeeded")
	}

	// Replicas starting together: exactly one bootstraps.
	var wg sync.WaitGroup
	created := make([]bool, 4)
	errs := make([]error, 4)
	for i := range created {
		wg.Go(func() {
			h := sha256.Sum256([]byte{byte(i)})
			created[i], errs[i] = s.Bootstrap(ctxT(t), Bootstrap{AdminEmail: "admin@example.com", TokenHash: h[:], TokenHint: "brg_x"})
		})
	}
	wg.Wait()
	n := 0
	for i := range created {
		if errs[i] != nil {
			t.Fatalf("bootstrap %d: %v", i, errs[i])
		}
		if created[i] {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d bootstraps created, want 1", n)
	}

	counts := map[string]int64{
		"SELECT count(*) FROM orgs WHERE slug = 'default'":                                                          1,
		"SELECT count(*) FROM projects WHERE slug = 'default' AND name = 'Default'":                                 1,
		"SELECT count(*) FROM users WHERE is_admin AND name = 'Admin'":                                              1,
		"SELECT count(*) FROM memberships WHERE role = 'admin'":                                                     1,
		"SELECT count(*) FROM api_tokens WHERE project_id IS NULL AND role IS NULL":                                 1,
		"SELECT count(*) FROM api_tokens":                                                                           1,
		"SELECT count(*) FROM audit_log WHERE action = 'system.bootstrap' AND user_id IS NULL":                      1,
		"SELECT count(*) FROM users u JOIN memberships m ON m.user_id = u.id JOIN api_tokens t ON t.user_id = u.id": 1,
	}
	for q, want := range counts {
		if got := f.count(t, q); got != want {
			t.Errorf("%s = %d, want %d", q, got, want)
		}
	}
	user, err := s.SystemUser(ctx)
	if err != nil {
		t.Fatal(err)
	}
	roles, err := s.Memberships(ctx, user)
	if err != nil {
		t.Fatal(err)
	}
	proj, err := s.GetProjectBySlug(ctx, "default")
	if err != nil {
		t.Fatal(err)
	}
	if len(roles) != 1 || roles[proj.ID] != auth.Admin {
		t.Errorf("Memberships = %v, want admin of %s", roles, proj.ID)
	}
	org, err := s.DefaultOrg(ctx)
	if err != nil || org != proj.OrgID {
		t.Errorf("DefaultOrg = %s, %v; want %s", org, err, proj.OrgID)
	}
}

func TestIdentityByTokenHash(t *testing.T) {
	t.Parallel()
	f := mustFixture(t)
	ctx := ctxT(t)
	id, err := f.s.IdentityByTokenHash(ctx, f.token)
	if err != nil {
		t.Fatal(err)
	}
	if id.UserID != f.admin || !id.OrgAdmin || id.Email != "Admin@Example.com" || id.Name != "Admin" || id.UserDisabled {
		t.Errorf("identity user = %+v", id)
	}
	if id.TokenID == uuid.Nil || id.SessionID != uuid.Nil || id.TokenProject != uuid.Nil || id.TokenRole != "" {
		t.Errorf("identity credential = %+v, want an unscoped token", id)
	}
	if !id.ExpiresAt.IsZero() || !id.RevokedAt.IsZero() || !id.LastUsedAt.IsZero() {
		t.Errorf("identity times = %+v, want zero", id)
	}
	at := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := f.s.TouchToken(ctx, id.TokenID, at); err != nil {
		t.Fatal(err)
	}
	if id, err = f.s.IdentityByTokenHash(ctx, f.token); err != nil || !id.LastUsedAt.Equal(at) {
		t.Errorf("after TouchToken LastUsedAt = %v, %v; want %v", id.LastUsedAt, err, at)
	}
	if _, err := f.s.IdentityByTokenHash(ctx, []byte("unknown")); !apperr.Is(err, apperr.NotFound) {
		t.Errorf("unknown token: err = %v, want not_found", err)
	}
	if _, err := f.s.IdentityBySessionHash(ctx, f.token); !apperr.Is(err, apperr.NotFound) {
		t.Errorf("token hash as a session: err = %v, want not_found", err)
	}
}

func TestLoginByEmail(t *testing.T) {
	t.Parallel()
	f := mustFixture(t)
	tests := []struct {
		email string
		code  apperr.Code
	}{
		{email: "admin@example.com"},
		{email: "ADMIN@EXAMPLE.COM"},
		{email: "Admin@Example.com"},
		{email: "nobody@example.com", code: apperr.NotFound},
		{email: "", code: apperr.NotFound},
	}
	for _, tt := range tests {
		t.Run(tt.email, func(t *testing.T) {
			t.Parallel()
			l, err := f.s.LoginByEmail(ctxT(t), tt.email)
			if apperr.CodeOf(err) != tt.code || (tt.code == "" && err != nil) {
				t.Fatalf("err = %v, want code %q", err, tt.code)
			}
			if tt.code == "" && (l.UserID != f.admin || l.PasswordHash != "$argon2id$x" || l.Disabled) {
				t.Errorf("login = %+v", l)
			}
		})
	}
}

func TestSessions(t *testing.T) {
	t.Parallel()
	f := mustFixture(t)
	ctx := ctxT(t)
	hash := sha256.Sum256([]byte("cookie"))
	exp := time.Now().Add(time.Hour).UTC().Truncate(time.Microsecond)
	sess := auth.Session{ID: uuid.New(), UserID: f.admin, Hash: hash[:], ExpiresAt: exp}
	if err := f.s.CreateSession(ctx, sess); err != nil {
		t.Fatal(err)
	}
	id, err := f.s.IdentityBySessionHash(ctx, hash[:])
	if err != nil {
		t.Fatal(err)
	}
	if id.SessionID != sess.ID || id.TokenID != uuid.Nil || id.UserID != f.admin || !id.OrgAdmin || !id.ExpiresAt.Equal(exp) || !id.RevokedAt.IsZero() {
		t.Errorf("session identity = %+v", id)
	}
	if _, err := f.s.IdentityByTokenHash(ctx, hash[:]); !apperr.Is(err, apperr.NotFound) {
		t.Errorf("session hash as a token: err = %v, want not_found", err)
	}
	if err := f.s.CreateSession(ctx, sess); err == nil {
		t.Error("a second session with the same id and hash was stored")
	}

	for range 2 { // the second revoke changes nothing
		if err := f.s.RevokeSession(ctx, sess.ID); err != nil {
			t.Fatal(err)
		}
	}
	if id, err = f.s.IdentityBySessionHash(ctx, hash[:]); err != nil || id.RevokedAt.IsZero() {
		t.Errorf("after revoke: RevokedAt = %v, err = %v", id.RevokedAt, err)
	}
	if err := f.s.RevokeSession(ctx, uuid.New()); !apperr.Is(err, apperr.NotFound) {
		t.Errorf("revoke a missing session: err = %v, want not_found", err)
	}
	for action, want := range map[string]int64{"session.create": 1, "session.revoke": 1} {
		got := f.count(t, "SELECT count(*) FROM audit_log WHERE action = ? AND target_id = ? AND user_id = ?", action, sess.ID.String(), f.admin)
		if got != want {
			t.Errorf("%s audit rows = %d, want %d", action, got, want)
		}
	}
}

func TestMemberships(t *testing.T) {
	t.Parallel()
	f := mustFixture(t)
	ctx := ctxT(t)
	other := f.mustProject(t, "other")
	got, err := f.s.Memberships(ctx, f.admin)
	if err != nil {
		t.Fatal(err)
	}
	want := map[uuid.UUID]auth.Role{f.project.ID: auth.Admin, other.ID: auth.Admin}
	if len(got) != len(want) || got[f.project.ID] != auth.Admin || got[other.ID] != auth.Admin {
		t.Errorf("Memberships = %v, want %v", got, want)
	}
	none, err := f.s.Memberships(ctx, uuid.New())
	if err != nil || len(none) != 0 {
		t.Errorf("Memberships of a stranger = %v, %v; want empty", none, err)
	}
}
