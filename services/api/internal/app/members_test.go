package app

import (
	"net/http"
	"slices"
	"testing"

	"github.com/barrage-dev/barrage/services/api/client"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
)

// memberRoles returns email → role of project's members, as caller token
// sees them.
func (e *apiEnv) memberRoles(t *testing.T, project, token string, headers ...string) map[string]client.Role {
	t.Helper()
	list := decode[client.MemberList](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/projects/"+project+"/members", token, nil, headers...))
	out := map[string]client.Role{}
	emails := make([]string, len(list.Items))
	for i, m := range list.Items {
		out[m.User.Email], emails[i] = m.Role, m.User.Email
	}
	if !slices.IsSorted(emails) {
		t.Errorf("members not by email: %v", emails)
	}
	return out
}

func TestCreateUser(t *testing.T) {
	t.Parallel()
	e := startAPI(t)
	created := decode[client.UserCreated](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/users", e.AdminToken,
		map[string]any{"email": "ann@barrage.test", "name": "Ann"}))
	if created.Password == nil || len(*created.Password) < 20 || created.User.Email != "ann@barrage.test" || created.User.IsAdmin {
		t.Fatalf("POST /users = %+v, want ann with a generated password and no org admin", created)
	}
	ann := e.mustSignIn(t, "ann@barrage.test", *created.Password)
	me := decode[client.Me](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/me", "", nil, withCookie(ann)...))
	if len(me.Projects) != 0 {
		t.Errorf("a new user sees projects %+v, want none", me.Projects)
	}
	given := decode[client.UserCreated](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/users", e.AdminToken,
		map[string]any{"email": "bob@barrage.test", "password": "a long enough password"}))
	if given.Password != nil {
		t.Errorf("a chosen password was echoed back")
	}
	e.mustSignIn(t, "bob@barrage.test", "a long enough password")
	if n := e.count(t, "SELECT count(*) FROM users WHERE password_hash LIKE '$argon2id$%'"); n != 3 {
		t.Errorf("%d argon2id password hashes, want 3", n)
	}

	status, header, raw := e.do(t, http.MethodPost, "/users", e.AdminToken, map[string]any{"email": "ANN@barrage.test"})
	wantProblem(t, status, header, raw, http.StatusConflict, "conflict")
	for _, bad := range []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"email": "Ann <x@y.z>"}, "email"},
		{map[string]any{"email": "not an address"}, "email"},
		{map[string]any{"email": "dan@barrage.test", "password": "short"}, "password"},
	} {
		status, header, raw = e.do(t, http.MethodPost, "/users", e.AdminToken, bad.body)
		p := wantProblem(t, status, header, raw, http.StatusUnprocessableEntity, "validation")
		if p.Errors == nil || len(*p.Errors) != 1 || (*p.Errors)[0].Field != bad.field {
			t.Errorf("POST /users %v: errors %+v, want one on %s", bad.body, p.Errors, bad.field)
		}
	}
	// A session of a non-admin may not create users.
	status, header, raw = e.do(t, http.MethodPost, "/users", "", map[string]any{"email": "eve@barrage.test"}, withCookie(ann)...)
	wantProblem(t, status, header, raw, http.StatusForbidden, "forbidden")
	if n := e.count(t, "SELECT count(*) FROM audit_log WHERE action = 'user.create'"); n != 2 {
		t.Errorf("%d user.create entries, want 2", n)
	}
}

func TestMembership(t *testing.T) {
	t.Parallel()
	e := startAPI(t)
	e.mustProject(t, "other")
	ann := e.mustUser(t, "ann")
	e.mustUser(t, "bob")
	annPassword := "ann's password, long enough"
	e.mustDo(t, http.StatusCreated, http.MethodPost, "/users", e.AdminToken, map[string]any{"email": "cid@barrage.test", "password": annPassword})
	cid := e.mustSignIn(t, "cid@barrage.test", annPassword)

	put := func(token, project, user, role string, want int, headers ...string) []byte {
		t.Helper()
		return e.mustDo(t, want, http.MethodPut, "/projects/"+project+"/members/"+user, token, map[string]any{"role": role}, headers...)
	}
	m := decode[client.Member](t, put(e.AdminToken, "default", "ANN@barrage.test", "viewer", http.StatusOK))
	if m.User.Id != ann.Id || m.Role != client.Viewer {
		t.Errorf("PUT member by email = %+v, want ann as viewer", m)
	}
	put(e.AdminToken, "default", "cid@barrage.test", "viewer", http.StatusOK)
	if got := e.memberRoles(t, "default", "", withCookie(cid)...); len(got) != 3 || got[testAdminEmail] != client.Admin || got["cid@barrage.test"] != client.Viewer {
		t.Errorf("members seen by viewer cid = %v", got)
	}
	// A viewer reads but does not manage; another project is not found.
	put("", "default", "bob@barrage.test", "viewer", http.StatusForbidden, withCookie(cid)...)
	e.mustDo(t, http.StatusNotFound, http.MethodGet, "/projects/other/members", "", nil, withCookie(cid)...)

	// Promote cid by email, then cid (a session) manages members.
	put(e.AdminToken, "default", "cid@barrage.test", "admin", http.StatusOK)
	put("", "default", ann.Id.String(), "runner", http.StatusOK, withCookie(cid)...)
	put("", "default", "bob@barrage.test", "viewer", http.StatusOK, withCookie(cid)...)
	// cid is admin of default only: other is not found, and unknown users are 404.
	put("", "other", "bob@barrage.test", "viewer", http.StatusNotFound, withCookie(cid)...)
	put(e.AdminToken, "default", "nobody@barrage.test", "viewer", http.StatusNotFound)
	e.mustDo(t, http.StatusNotFound, http.MethodDelete, "/projects/other/members/bob@barrage.test", e.AdminToken, nil)

	// Last admin: admin@ and cid are admins of default.
	e.mustDo(t, http.StatusNoContent, http.MethodDelete, "/projects/default/members/"+testAdminEmail, "", nil, withCookie(cid)...)
	status, header, raw := e.do(t, http.MethodPut, "/projects/default/members/cid@barrage.test", "", map[string]any{"role": "runner"}, withCookie(cid)...)
	wantProblem(t, status, header, raw, http.StatusConflict, "conflict")
	status, header, raw = e.do(t, http.MethodDelete, "/projects/default/members/cid@barrage.test", e.AdminToken, nil)
	wantProblem(t, status, header, raw, http.StatusConflict, "conflict")
	put(e.AdminToken, "default", "cid@barrage.test", "admin", http.StatusOK) // unchanged: no audit entry
	e.mustDo(t, http.StatusNoContent, http.MethodDelete, "/projects/default/members/bob@barrage.test", e.AdminToken, nil)

	got := e.memberRoles(t, "default", e.AdminToken)
	want := map[string]client.Role{"ann@barrage.test": client.Runner, "cid@barrage.test": client.Admin}
	if len(got) != len(want) || got["ann@barrage.test"] != want["ann@barrage.test"] || got["cid@barrage.test"] != want["cid@barrage.test"] {
		t.Errorf("members = %v, want %v", got, want)
	}
	// A project admin token of other sees nothing of default.
	otherTok := e.mustTokenCreated(t, "other", auth.Admin).Secret
	e.mustDo(t, http.StatusNotFound, http.MethodGet, "/projects/default/members", otherTok, nil)
	e.mustDo(t, http.StatusNotFound, http.MethodDelete, "/projects/default/members/ann@barrage.test", otherTok, nil)

	for action, n := range map[string]int{"member.added": 3, "member.changed": 2, "member.removed": 2} {
		if got := e.count(t, `SELECT count(*) FROM audit_log a JOIN projects p ON p.id = a.project_id
			WHERE p.slug = 'default' AND a.action = $1 AND a.target_kind = 'member'`, action); got != n {
			t.Errorf("%d %s entries in default, want %d", got, action, n)
		}
	}
	if n := e.count(t, `SELECT count(*) FROM audit_log WHERE action = 'member.changed' AND details->>'email' = 'ann@barrage.test'
		AND details->>'previous_role' = 'viewer' AND details->>'role' = 'runner'`); n != 1 {
		t.Errorf("%d member.changed entries for ann viewer → runner, want 1", n)
	}
}
