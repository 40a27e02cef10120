package store

import (
	"bytes"
	"crypto/sha256"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/members"
	"github.com/barrage-dev/barrage/services/api/internal/paging"
	"github.com/barrage-dev/barrage/services/api/internal/tokens"
)

// newToken returns a project token for project.
func (f fixture) newToken(project uuid.UUID, name string, role auth.Role) tokens.Token {
	h := sha256.Sum256([]byte(name + project.String()))
	return tokens.Token{
		ID: uuid.New(), UserID: f.admin, ProjectID: project, Role: role, Name: name, Hash: h[:], Hint: "brg_" + name[:1],
		CreatedAt: time.Now().UTC().Truncate(time.Microsecond), ExpiresAt: time.Date(2040, 1, 1, 0, 0, 0, 0, time.UTC),
	}
}

func TestTokens(t *testing.T) {
	t.Parallel()
	f := mustFixture(t)
	ctx := ctxT(t)
	in := f.newToken(f.project.ID, "ci", auth.Runner)
	created, err := f.s.CreateToken(ctx, in, f.actor)
	if err != nil {
		t.Fatal(err)
	}
	got, err := f.s.GetToken(ctx, in.ID)
	if err != nil {
		t.Fatal(err)
	}
	for name, tok := range map[string]tokens.Token{"CreateToken": created, "GetToken": got} {
		if tok.ID != in.ID || tok.UserID != f.admin || tok.ProjectID != f.project.ID || tok.Role != auth.Runner || tok.Name != "ci" ||
			!bytes.Equal(tok.Hash, in.Hash) || tok.Hint != in.Hint || !tok.CreatedAt.Equal(in.CreatedAt) ||
			!tok.ExpiresAt.Equal(in.ExpiresAt) || !tok.LastUsedAt.IsZero() || !tok.RevokedAt.IsZero() {
			t.Errorf("%s = %+v, want %+v", name, tok, in)
		}
	}
	id, err := f.s.IdentityByTokenHash(ctx, in.Hash)
	if err != nil || id.TokenID != in.ID || id.TokenProject != f.project.ID || id.TokenRole != auth.Runner {
		t.Errorf("identity of a project token = %+v, %v", id, err)
	}
	if _, err := f.s.CreateToken(ctx, in, f.actor); !apperr.Is(err, apperr.Conflict) {
		t.Errorf("the same token twice: err = %v, want conflict", err)
	}
	if _, err := f.s.GetToken(ctx, uuid.New()); !apperr.Is(err, apperr.NotFound) {
		t.Errorf("GetToken(missing) err = %v", err)
	}

	boot, err := f.s.IdentityByTokenHash(ctx, f.token)
	if err != nil {
		t.Fatal(err)
	}
	byToken := auth.Actor{UserID: f.admin, TokenID: boot.TokenID}
	first := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, at := range []time.Time{first, first.Add(time.Hour)} { // revoked once; the second changes nothing
		if err := f.s.RevokeToken(ctx, in.ID, at, byToken); err != nil {
			t.Fatal(err)
		}
	}
	if got, err = f.s.GetToken(ctx, in.ID); err != nil || !got.RevokedAt.Equal(first) {
		t.Errorf("RevokedAt = %v, %v; want %v", got.RevokedAt, err, first)
	}
	if n := f.count(t, "SELECT count(*) FROM audit_log WHERE action = 'token.revoke' AND target_id = ? AND project_id = ? AND user_id = ? AND token_id = ?",
		in.ID.String(), f.project.ID, f.admin, boot.TokenID); n != 1 {
		t.Errorf("token.revoke audit rows = %d, want 1", n)
	}
	if n := f.count(t, "SELECT count(*) FROM audit_log WHERE action = 'token.create' AND target_id = ?", in.ID.String()); n != 1 {
		t.Errorf("token.create audit rows = %d, want 1", n)
	}
	wantCode(t, f.s.RevokeToken(ctx, uuid.New(), first, f.actor), apperr.NotFound)
}

func TestListTokens(t *testing.T) {
	t.Parallel()
	f := mustFixture(t)
	ctx := ctxT(t)
	other := f.mustProject(t, "other")
	var mine, theirs []uuid.UUID // newest first
	for _, name := range []string{"a", "b", "c"} {
		for _, p := range []uuid.UUID{f.project.ID, other.ID} {
			tok, err := f.s.CreateToken(ctx, f.newToken(p, name, auth.Viewer), f.actor)
			if err != nil {
				t.Fatal(err)
			}
			if p == f.project.ID {
				mine = append([]uuid.UUID{tok.ID}, mine...)
			} else {
				theirs = append([]uuid.UUID{tok.ID}, theirs...)
			}
		}
	}
	tokID := func(t tokens.Token) uuid.UUID { return t.ID }
	tests := []struct {
		name     string
		projects []uuid.UUID
		all      bool
		limit    int
		want     []uuid.UUID
	}{
		{name: "mine", projects: []uuid.UUID{f.project.ID}, limit: 50, want: mine},
		{name: "theirs limited", projects: []uuid.UUID{other.ID}, limit: 1, want: theirs[:2]},
		{name: "both", projects: []uuid.UUID{f.project.ID, other.ID}, limit: 50, want: interleave(mine, theirs)},
		{name: "all skips the unscoped token", all: true, limit: 50, want: interleave(mine, theirs)},
		{name: "none", limit: 50},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := f.s.ListTokens(ctx, tt.projects, tt.all, paging.Request{Limit: tt.limit})
			if err != nil {
				t.Fatal(err)
			}
			if err := sameIDs(ids(got, tokID), tt.want); err != nil {
				t.Error(err)
			}
		})
	}
}

// interleave merges a and b, which were created alternately, b after a,
// into newest-first order.
func interleave(a, b []uuid.UUID) []uuid.UUID {
	out := make([]uuid.UUID, 0, len(a)+len(b))
	for i := range a {
		out = append(out, b[i], a[i])
	}
	return out
}

// TestIdentityOwnerRole: the token lookup reads its owner's current role in
// the token's project, which follows the membership.
func TestIdentityOwnerRole(t *testing.T) {
	t.Parallel()
	f := mustFixture(t)
	ctx := ctxT(t)
	ann, err := f.s.CreateUser(ctx, members.NewUser{ID: uuid.New(), Email: "ann@example.com", Name: "Ann", CreatedAt: time.Now()}, f.actor)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.PutMember(ctx, f.project.ID, ann.ID, auth.Runner, time.Now(), f.actor); err != nil {
		t.Fatal(err)
	}
	tok := f.newToken(f.project.ID, "ann's", auth.Admin)
	tok.UserID = ann.ID
	if _, err := f.s.CreateToken(ctx, tok, f.actor); err != nil {
		t.Fatal(err)
	}
	owner := func(want auth.Role) {
		t.Helper()
		id, err := f.s.IdentityByTokenHash(ctx, tok.Hash)
		if err != nil || id.UserID != ann.ID || id.TokenRole != auth.Admin || id.OwnerRole != want {
			t.Errorf("identity = %+v, %v; want ann's admin token with owner role %q", id, err, want)
		}
	}
	owner(auth.Runner)
	if _, err := f.s.PutMember(ctx, f.project.ID, ann.ID, auth.Viewer, time.Now(), f.actor); err != nil {
		t.Fatal(err)
	}
	owner(auth.Viewer)
	if err := f.s.RemoveMember(ctx, f.project.ID, ann.ID, f.actor); err != nil {
		t.Fatal(err)
	}
	owner("")
	// The unscoped bootstrap token has no project, so no owner role.
	if id, err := f.s.IdentityByTokenHash(ctx, f.token); err != nil || id.OwnerRole != "" || !id.OrgAdmin {
		t.Errorf("bootstrap identity = %+v, %v; want an org admin without owner role", id, err)
	}
}
