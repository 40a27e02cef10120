package app

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/client"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
)

// listAllUsers walks GET /users?q=q with pages of limit as caller and
// returns every user in the order given, failing on a page larger than
// limit.
func (e *apiEnv) listAllUsers(t *testing.T, q string, limit int, token string, headers ...string) []client.OrgUser {
	t.Helper()
	var out []client.OrgUser
	cursor := ""
	for range 100 {
		v := url.Values{"limit": {fmt.Sprint(limit)}}
		if q != "" {
			v.Set("q", q)
		}
		if cursor != "" {
			v.Set("cursor", cursor)
		}
		page := decode[client.UserPage](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/users?"+v.Encode(), token, nil, headers...))
		if len(page.Items) > limit {
			t.Fatalf("a page of %d users, limit %d", len(page.Items), limit)
		}
		out = append(out, page.Items...)
		if page.NextCursor == nil {
			return out
		}
		cursor = *page.NextCursor
	}
	t.Fatal("GET /users: more than 100 pages")
	return nil
}

// column returns the single text column query returns, row by row.
func (e *apiEnv) column(t *testing.T, query string, args ...any) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	rows, err := e.db.QueryContext(ctx, query, args...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return out
}

// emails returns the users' emails.
func emails(users []client.OrgUser) []string {
	out := make([]string, len(users))
	for i, u := range users {
		out[i] = u.Email
	}
	return out
}

// TestListUsers: an org admin pages through the organisation's users
// (each once, newest first), filters them by a text in their email or
// name (wildcards taken literally), and sees their flags, last sign-in
// and projects; anyone else gets 403.
func TestListUsers(t *testing.T) {
	t.Parallel()
	e := startAPI(t)
	e.mustProject(t, "zeta")
	for _, u := range []struct{ email, name string }{
		{"ann@barrage.test", "Ann Lee"}, {"bob@barrage.test", "Bob Ray"}, {"a_b@barrage.test", "Under Score"},
		{"axb@barrage.test", "No Underscore"}, {"cy@barrage.test", "Cy ANNESLEY"}, {"dee@barrage.test", ""},
	} {
		e.mustDo(t, http.StatusCreated, http.MethodPost, "/users", e.AdminToken, map[string]any{"email": u.email, "name": u.name, "password": memberPassword})
	}
	e.mustDo(t, http.StatusOK, http.MethodPut, "/projects/default/members/bob@barrage.test", e.AdminToken, map[string]any{"role": auth.Runner})
	e.mustDo(t, http.StatusOK, http.MethodPut, "/projects/zeta/members/bob@barrage.test", e.AdminToken, map[string]any{"role": auth.Viewer})
	e.mustDo(t, http.StatusOK, http.MethodPatch, "/users/dee@barrage.test", e.AdminToken, map[string]any{"disabled": true})
	bob := e.mustSignIn(t, "bob@barrage.test", memberPassword)

	want := e.column(t, "SELECT email FROM users ORDER BY created_at DESC, id DESC")
	if len(want) != 7 {
		t.Fatalf("%d users in the database, want 7 (the admin and six)", len(want))
	}
	for _, limit := range []int{1, 3, 200} {
		if got := emails(e.listAllUsers(t, "", limit, e.AdminToken)); !slices.Equal(got, want) {
			t.Errorf("pages of %d: %v, want %v", limit, got, want)
		}
	}
	for _, c := range []struct {
		q    string
		want []string
	}{
		{"ann", []string{"cy@barrage.test", "ann@barrage.test"}}, // a name in any case, an email
		{" ANN ", []string{"cy@barrage.test", "ann@barrage.test"}},
		{"a_b", []string{"a_b@barrage.test"}}, // "_" is not a wildcard
		{"%", nil},
		{"nobody", nil},
	} {
		if got := emails(e.listAllUsers(t, c.q, 50, e.AdminToken)); !slices.Equal(got, c.want) {
			t.Errorf("q=%q: %v, want %v", c.q, got, c.want)
		}
	}

	all := e.listAllUsers(t, "", 50, e.AdminToken)
	byEmail := map[string]client.OrgUser{}
	for _, u := range all {
		byEmail[u.Email] = u
	}
	b := byEmail["bob@barrage.test"]
	projects := make([]string, len(b.Projects))
	for i, p := range b.Projects {
		projects[i] = p.Slug + ":" + string(p.Role)
	}
	if !slices.Equal(projects, []string{"default:runner", "zeta:viewer"}) || b.Name != "Bob Ray" || b.IsAdmin || b.Disabled != nil {
		t.Errorf("bob = %+v, projects %v; want Bob Ray, runner of default and viewer of zeta", b, projects)
	}
	if b.LastSignInAt == nil || b.LastSignInAt.Before(b.CreatedAt) {
		t.Errorf("bob's last sign-in = %v, want after his creation %v", b.LastSignInAt, b.CreatedAt)
	}
	if a := byEmail["ann@barrage.test"]; a.LastSignInAt != nil || len(a.Projects) != 0 {
		t.Errorf("ann = %+v, want no sign-in and no project", a)
	}
	if d := byEmail["dee@barrage.test"]; d.Disabled == nil || !*d.Disabled {
		t.Errorf("dee = %+v, want disabled", d)
	}
	if a := byEmail[testAdminEmail]; !a.IsAdmin {
		t.Errorf("the admin = %+v, want an org admin", a)
	}

	// A renewed session is not a sign-in.
	e.exec(t, `INSERT INTO sessions (id, user_id, hash, created_at, expires_at)
		VALUES ($2::uuid, $1::uuid, '\x01'::bytea, now() + interval '1 hour', now() + interval '2 hours')`, b.Id.String(), uuid.NewString())
	e.exec(t, `UPDATE sessions SET replaced_by = (SELECT id FROM sessions WHERE hash = '\x01'::bytea)
		WHERE user_id = $1::uuid AND hash <> '\x01'::bytea`, b.Id.String())
	renewed := e.listAllUsers(t, "bob", 50, e.AdminToken)
	if len(renewed) != 1 || renewed[0].LastSignInAt == nil || !renewed[0].LastSignInAt.Equal(*b.LastSignInAt) {
		t.Errorf("bob after a renewal = %+v, want the last sign-in still %v", renewed, b.LastSignInAt)
	}

	for name, tok := range map[string]string{
		"project admin": e.mustToken(t, "default", auth.Admin), "runner": e.mustToken(t, "default", auth.Runner),
		"viewer": e.mustToken(t, "default", auth.Viewer),
	} {
		status, header, raw := e.do(t, http.MethodGet, "/users", tok, nil)
		if p := wantProblem(t, status, header, raw, http.StatusForbidden, "forbidden"); strings.Contains(string(raw), "bob@") {
			t.Errorf("%s: a 403 naming users: %+v", name, p)
		}
	}
	status, header, raw := e.do(t, http.MethodGet, "/users", "", nil, withCookie(bob)...)
	wantProblem(t, status, header, raw, http.StatusForbidden, "forbidden")
}

// TestResetUserPassword: an org admin, from a dashboard session, gives a
// user a new password shown once; the old one no longer signs in, the new
// one does, every session of the user ends and their token keeps working.
// The audit entry and the server's log do not hold the password. API
// tokens (an org admin's too), project admins, the caller's own account
// and a disabled user are refused.
func TestResetUserPassword(t *testing.T) {
	t.Parallel()
	var logs syncBuffer
	e := startAPILogged(t, &logs)
	tok := e.mustMemberToken(t, "rita", "default", auth.Runner) // one session
	sessions := []*http.Cookie{e.mustSignIn(t, "rita@barrage.test", memberPassword), e.mustSignIn(t, "rita@barrage.test", memberPassword)}
	admin := browser(e.mustSignIn(t, testAdminEmail, testAdminPassword))
	projAdmin := e.mustMemberToken(t, "pam", "default", auth.Admin)
	pam := browser(e.mustSignIn(t, "pam@barrage.test", memberPassword))
	e.mustDo(t, http.StatusCreated, http.MethodPost, "/users", e.AdminToken, map[string]any{"email": "dora@barrage.test"})
	e.mustDo(t, http.StatusOK, http.MethodPatch, "/users/dora@barrage.test", e.AdminToken, map[string]any{"disabled": true})

	refused := []struct {
		name, path, token string
		headers           []string
		want              int
		slug              string
	}{
		{"org admin's token", "/users/rita@barrage.test/password", e.AdminToken, nil, http.StatusForbidden, "forbidden"},
		{"project admin's token", "/users/rita@barrage.test/password", projAdmin.Secret, nil, http.StatusForbidden, "forbidden"},
		{"project admin's session", "/users/rita@barrage.test/password", "", pam, http.StatusForbidden, "forbidden"},
		{"own account", "/users/" + testAdminEmail + "/password", "", admin, http.StatusUnprocessableEntity, "validation"},
		{"disabled user", "/users/dora@barrage.test/password", "", admin, http.StatusConflict, "conflict"},
		{"unknown user", "/users/nobody@barrage.test/password", "", admin, http.StatusNotFound, "not-found"},
	}
	for _, r := range refused {
		status, header, raw := e.do(t, http.MethodPost, r.path, r.token, nil, r.headers...)
		p := wantProblem(t, status, header, raw, r.want, r.slug)
		if _, ok := fieldMessage(p, "user"); r.want == http.StatusUnprocessableEntity && !ok {
			t.Errorf("%s: problem %+v does not name user", r.name, p)
		}
		if r.want == http.StatusConflict && (p.Detail == nil || !strings.Contains(*p.Detail, "dora@barrage.test is disabled")) {
			t.Errorf("%s: detail %v, want it to say dora is disabled", r.name, p.Detail)
		}
	}
	e.mustSignIn(t, "rita@barrage.test", memberPassword) // nothing changed yet
	if n := e.count(t, "SELECT count(*) FROM audit_log WHERE action = 'user.password_reset'"); n != 0 {
		t.Fatalf("%d user.password_reset entries after refusals, want 0", n)
	}

	live := e.count(t, "SELECT count(*) FROM sessions s JOIN users u ON u.id = s.user_id WHERE u.email = 'rita@barrage.test' AND s.revoked_at IS NULL")
	reset := decode[client.PasswordReset](t, e.mustDo(t, http.StatusOK, http.MethodPost, "/users/rita@barrage.test/password", "", nil, admin...))
	if reset.User.Email != "rita@barrage.test" || len(reset.Password) < auth.MinPasswordLength || reset.SessionsEnded != live || live != 4 {
		t.Fatalf("reset = %+v (password of %d characters), want rita, at least %d characters, 4 sessions ended (%d were live)",
			reset.User, len(reset.Password), auth.MinPasswordLength, live)
	}
	for i, c := range sessions {
		status, header, raw := e.do(t, http.MethodGet, "/me", "", nil, withCookie(c)...)
		if status != http.StatusUnauthorized {
			t.Errorf("session %d after the reset = %d, want 401", i, status)
			continue
		}
		wantProblem(t, status, header, raw, http.StatusUnauthorized, "unauthenticated")
	}
	e.mustDo(t, http.StatusOK, http.MethodGet, "/runs?project=default", tok.Secret, nil)
	if status, _, raw := e.tryLogin(t, "rita@barrage.test", memberPassword); status != http.StatusUnauthorized {
		t.Errorf("sign-in with the old password = %d, want 401; body %s", status, raw)
	}
	e.mustDo(t, http.StatusOK, http.MethodGet, "/me", "", nil, withCookie(e.mustSignIn(t, "rita@barrage.test", reset.Password))...)
	e.mustDo(t, http.StatusOK, http.MethodGet, "/me", "", nil, admin...) // the admin's session stays

	n := e.count(t, `SELECT count(*) FROM audit_log a JOIN users actor ON actor.id = a.user_id JOIN users u ON u.id::text = a.target_id
		WHERE a.action = 'user.password_reset' AND actor.email = $1 AND u.email = 'rita@barrage.test'
		AND a.target_kind = 'user' AND a.details->>'sessions_ended' = '4'`, testAdminEmail)
	if n != 1 {
		t.Errorf("%d user.password_reset entries by the admin for rita ending 4 sessions, want 1", n)
	}
	if n := e.count(t, "SELECT count(*) FROM audit_log WHERE strpos(details::text, $1) > 0", reset.Password); n != 0 {
		t.Errorf("%d audit entries hold the new password", n)
	}
	if strings.Contains(logs.String(), reset.Password) {
		t.Error("the server's log holds the new password")
	}
}
