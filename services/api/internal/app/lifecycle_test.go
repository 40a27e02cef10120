package app

import (
	"net/http"
	"testing"

	"github.com/barrage-dev/barrage/services/api/client"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
)

// browser returns the headers the dashboard sends with session: the
// cookie, and Sec-Fetch-Site for writes.
func browser(session *http.Cookie) []string {
	return withCookie(session, "Sec-Fetch-Site", "same-origin")
}

// TestDisableUser: an org admin disables a user; at once their session and
// token answer 401 and they cannot sign in; enabled again, the token works
// and the ended session stays ended.
func TestDisableUser(t *testing.T) {
	t.Parallel()
	e := startAPI(t)
	token := e.mustMemberToken(t, "dan", "default", auth.Runner).Secret
	session := e.mustSignIn(t, "dan@barrage.test", memberPassword)
	e.mustDo(t, http.StatusOK, http.MethodGet, "/me", "", nil, withCookie(session)...)

	u := decode[client.User](t, e.mustDo(t, http.StatusOK, http.MethodPatch, "/users/dan@barrage.test", e.AdminToken, map[string]any{"disabled": true}))
	if u.Disabled == nil || !*u.Disabled || u.Email != "dan@barrage.test" {
		t.Errorf("PATCH /users answered %+v, want dan disabled", u)
	}
	for name, call := range map[string]func() (int, http.Header, []byte){
		"token": func() (int, http.Header, []byte) { return e.do(t, http.MethodGet, "/runs?project=default", token, nil) },
		"session": func() (int, http.Header, []byte) {
			return e.do(t, http.MethodGet, "/me", "", nil, withCookie(session)...)
		},
		"sign-in": func() (int, http.Header, []byte) { return e.tryLogin(t, "dan@barrage.test", memberPassword) },
	} {
		t.Run("disabled "+name, func(t *testing.T) {
			status, header, raw := call()
			wantProblem(t, status, header, raw, http.StatusUnauthorized, "unauthenticated")
		})
	}
	if n := e.count(t, "SELECT count(*) FROM sessions s JOIN users u ON u.id = s.user_id WHERE u.email = 'dan@barrage.test' AND s.revoked_at IS NULL"); n != 0 {
		t.Errorf("%d live sessions of the disabled user, want 0", n)
	}
	if n := e.count(t, "SELECT count(*) FROM audit_log WHERE action = 'user.update' AND details->>'disabled' = 'true'"); n != 1 {
		t.Errorf("%d user.update entries disabling, want 1", n)
	}

	e.mustDo(t, http.StatusOK, http.MethodPatch, "/users/dan@barrage.test", e.AdminToken, map[string]any{"disabled": false})
	e.mustDo(t, http.StatusOK, http.MethodGet, "/runs?project=default", token, nil)
	e.mustDo(t, http.StatusUnauthorized, http.MethodGet, "/me", "", nil, withCookie(session)...)
	e.mustSignIn(t, "dan@barrage.test", memberPassword)

	status, header, raw := e.do(t, http.MethodPatch, "/users/nobody@barrage.test", e.AdminToken, map[string]any{"disabled": true})
	wantProblem(t, status, header, raw, http.StatusNotFound, "not-found")
}

// TestOrgAdminDemotion: an org admin grants and takes the org admin role;
// the organisation's last enabled org admin can be neither demoted nor
// disabled (409), by themselves or anyone.
func TestOrgAdminDemotion(t *testing.T) {
	t.Parallel()
	e := startAPI(t)
	e.mustDo(t, http.StatusCreated, http.MethodPost, "/users", e.AdminToken, map[string]any{"email": "ola@barrage.test", "password": memberPassword})
	for _, body := range []map[string]any{{"org_admin": false}, {"disabled": true}} {
		status, header, raw := e.do(t, http.MethodPatch, "/users/"+testAdminEmail, e.AdminToken, body)
		wantProblem(t, status, header, raw, http.StatusConflict, "conflict")
	}
	u := decode[client.User](t, e.mustDo(t, http.StatusOK, http.MethodPatch, "/users/ola@barrage.test", e.AdminToken, map[string]any{"org_admin": true}))
	if !u.IsAdmin {
		t.Fatalf("ola after the grant = %+v, want an org admin", u)
	}
	ola := browser(e.mustSignIn(t, "ola@barrage.test", memberPassword))
	e.mustDo(t, http.StatusCreated, http.MethodPost, "/projects", "", map[string]any{"slug": "olas", "name": "Ola's"}, ola...)

	// Ola demotes the first admin, who then may not create projects; Ola,
	// now the last one, cannot demote or disable herself.
	e.mustDo(t, http.StatusOK, http.MethodPatch, "/users/"+testAdminEmail, "", map[string]any{"org_admin": false}, ola...)
	status, header, raw := e.do(t, http.MethodPost, "/projects", e.AdminToken, map[string]any{"slug": "nope", "name": "Nope"})
	wantProblem(t, status, header, raw, http.StatusForbidden, "forbidden")
	for _, body := range []map[string]any{{"org_admin": false}, {"disabled": true}} {
		status, header, raw := e.do(t, http.MethodPatch, "/users/ola@barrage.test", "", body, ola...)
		wantProblem(t, status, header, raw, http.StatusConflict, "conflict")
	}
	if n := e.count(t, "SELECT count(*) FROM users WHERE is_admin AND disabled_at IS NULL"); n != 1 {
		t.Errorf("%d enabled org admins, want 1 (ola)", n)
	}
	// A second admin again: now Ola may step down.
	e.mustDo(t, http.StatusOK, http.MethodPatch, "/users/"+testAdminEmail, "", map[string]any{"org_admin": true}, ola...)
	e.mustDo(t, http.StatusOK, http.MethodPatch, "/users/ola@barrage.test", "", map[string]any{"org_admin": false}, ola...)
	e.mustDo(t, http.StatusForbidden, http.MethodPatch, "/users/"+testAdminEmail, "", map[string]any{"org_admin": false}, ola...)
}

// TestChangePassword: a user changes their own password with the current
// one; the session in use stays, their other sessions end, and only the
// new password signs in. A wrong current password, a short new one or an
// API token are refused.
func TestChangePassword(t *testing.T) {
	t.Parallel()
	e := startAPI(t)
	token := e.mustMemberToken(t, "pat", "default", auth.Runner).Secret
	other := e.mustSignIn(t, "pat@barrage.test", memberPassword)
	current := browser(e.mustSignIn(t, "pat@barrage.test", memberPassword))
	const next = "pat's brand new password"

	refused := []struct {
		name, token string
		headers     []string
		body        map[string]any
		want        int
		field       string
	}{
		{"wrong current password", "", current, map[string]any{"current_password": "not it at all", "new_password": next}, http.StatusUnprocessableEntity, "current_password"},
		{"short new password", "", current, map[string]any{"current_password": memberPassword, "new_password": "short"}, http.StatusUnprocessableEntity, "new_password"},
		{"API token", token, nil, map[string]any{"current_password": memberPassword, "new_password": next}, http.StatusForbidden, ""},
	}
	for _, r := range refused {
		status, header, raw := e.do(t, http.MethodPost, "/me/password", r.token, r.body, r.headers...)
		if status != r.want {
			t.Errorf("%s: %d, want %d; body %s", r.name, status, r.want, raw)
			continue
		}
		if r.field != "" {
			p := wantProblem(t, status, header, raw, r.want, "validation")
			if _, ok := fieldMessage(p, r.field); !ok {
				t.Errorf("%s: problem %+v does not name %s", r.name, p, r.field)
			}
		}
	}

	e.mustDo(t, http.StatusNoContent, http.MethodPost, "/me/password", "", map[string]any{"current_password": memberPassword, "new_password": next}, current...)
	e.mustDo(t, http.StatusOK, http.MethodGet, "/me", "", nil, current...)
	e.mustDo(t, http.StatusUnauthorized, http.MethodGet, "/me", "", nil, withCookie(other)...)
	e.mustDo(t, http.StatusOK, http.MethodGet, "/me", token, nil)
	if status, _, _ := e.tryLogin(t, "pat@barrage.test", memberPassword); status != http.StatusUnauthorized {
		t.Errorf("sign-in with the old password = %d, want 401", status)
	}
	e.mustSignIn(t, "pat@barrage.test", next)
	if n := e.count(t, "SELECT count(*) FROM audit_log WHERE action = 'user.password_change' AND details->>'sessions_ended' = '2'"); n != 1 {
		t.Errorf("%d user.password_change entries ending 2 sessions (mustMemberToken's and other), want 1", n)
	}
}
