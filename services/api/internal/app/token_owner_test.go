package app

import (
	"net/http"
	"testing"

	"github.com/barrage-dev/barrage/services/api/client"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
)

// memberPassword is the password of the users mustMemberToken creates.
const memberPassword = "a member's password, long enough"

// mustMemberToken creates the user key@barrage.test, makes them a member of
// project with role, and returns a token of that role in project that the
// user minted through their own session (as a project admin, since only
// admins mint tokens, before their role was set).
func (e *apiEnv) mustMemberToken(t *testing.T, key, project string, role auth.Role) client.TokenCreated {
	t.Helper()
	email := key + "@barrage.test"
	e.mustDo(t, http.StatusCreated, http.MethodPost, "/users", e.AdminToken, map[string]any{"email": email, "password": memberPassword})
	member := "/projects/" + project + "/members/" + email
	e.mustDo(t, http.StatusOK, http.MethodPut, member, e.AdminToken, map[string]any{"role": auth.Admin})
	session := e.mustSignIn(t, email, memberPassword)
	body := map[string]any{"project": project, "name": key + "'s token", "role": role}
	tok := decode[client.TokenCreated](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/tokens", "", body, withCookie(session)...))
	if tok.Secret == "" || tok.Role != client.Role(role) {
		t.Fatalf("token of %s = %+v, want a secret and role %s", key, tok, role)
	}
	e.mustDo(t, http.StatusOK, http.MethodPut, member, e.AdminToken, map[string]any{"role": role})
	return tok
}

// TestTokenFollowsOwnerMembership: a project token acts with the lower of
// its own role and its owner's current role in the project, so demoting or
// removing a member takes the same rights from their tokens; a removed
// member's token is refused (401) until they are added back.
func TestTokenFollowsOwnerMembership(t *testing.T) {
	t.Parallel()
	e := startAPI(t)
	ann := e.mustMemberToken(t, "ann", "default", auth.Admin).Secret
	bob := e.mustMemberToken(t, "bob", "default", auth.Runner).Secret
	run := e.mustRun(t, ann, "default", "ann's run", nil)
	e.mustRun(t, bob, "default", "bob's run", nil)
	runPath := "/runs/" + run.Id.String()
	newRun := func(token string, want int) {
		t.Helper()
		e.mustDo(t, want, http.MethodPost, "/runs", token, map[string]any{"project": "default", "name": "later", "spec": testSpec()})
	}

	// Demoted to viewer: ann's admin token still reads, but starts no run
	// and manages no member.
	e.mustDo(t, http.StatusOK, http.MethodPut, "/projects/default/members/ann@barrage.test", e.AdminToken, map[string]any{"role": "viewer"})
	e.mustDo(t, http.StatusOK, http.MethodGet, runPath, ann, nil)
	status, header, raw := e.do(t, http.MethodPost, "/runs", ann, map[string]any{"project": "default", "name": "later", "spec": testSpec()})
	wantProblem(t, status, header, raw, http.StatusForbidden, "forbidden")
	e.mustDo(t, http.StatusForbidden, http.MethodPut, "/projects/default/members/bob@barrage.test", ann, map[string]any{"role": "viewer"})
	me := decode[client.Me](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/me", ann, nil))
	if me.Token == nil || me.Token.Role == nil || *me.Token.Role != client.Viewer {
		t.Errorf("GET /me of the demoted member's token = %+v, want role viewer", me.Token)
	}

	// Removed: bob's runner token is refused as a revoked token is, 401
	// everywhere (his project's runs, the lists, /me), while cid's session
	// (no membership) gets the 404 of a project it cannot see.
	e.mustDo(t, http.StatusNoContent, http.MethodDelete, "/projects/default/members/bob@barrage.test", e.AdminToken, nil)
	e.mustDo(t, http.StatusCreated, http.MethodPost, "/users", e.AdminToken, map[string]any{"email": "cid@barrage.test", "password": memberPassword})
	cid := withCookie(e.mustSignIn(t, "cid@barrage.test", memberPassword))
	for _, path := range []string{runPath, "/runs?project=default", "/projects/default"} {
		status, header, raw = e.do(t, http.MethodGet, path, bob, nil)
		wantProblem(t, status, header, raw, http.StatusUnauthorized, "unauthenticated")
		e.mustDo(t, http.StatusNotFound, http.MethodGet, path, "", nil, cid...)
	}
	newRun(bob, http.StatusUnauthorized)
	e.mustDo(t, http.StatusUnauthorized, http.MethodGet, "/runs", bob, nil)
	e.mustDo(t, http.StatusUnauthorized, http.MethodGet, "/me", bob, nil)

	// Back as a viewer, bob's token follows the new role; promoted back,
	// ann's token gets its own role again, never more.
	e.mustDo(t, http.StatusOK, http.MethodPut, "/projects/default/members/bob@barrage.test", e.AdminToken, map[string]any{"role": "viewer"})
	e.mustDo(t, http.StatusOK, http.MethodGet, runPath, bob, nil)
	newRun(bob, http.StatusForbidden)
	e.mustDo(t, http.StatusOK, http.MethodPut, "/projects/default/members/ann@barrage.test", e.AdminToken, map[string]any{"role": "admin"})
	newRun(ann, http.StatusCreated)
	e.mustDo(t, http.StatusOK, http.MethodPut, "/projects/default/members/bob@barrage.test", e.AdminToken, map[string]any{"role": "admin"})
	newRun(bob, http.StatusCreated)
	e.mustDo(t, http.StatusForbidden, http.MethodPut, "/projects/default/members/ann@barrage.test", bob, map[string]any{"role": "viewer"})
}
