package app

import (
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/uuid"

	api "github.com/barrage-dev/barrage/services/api"
	"github.com/barrage-dev/barrage/services/api/client"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
)

// The callers of the authorization matrix.
const (
	callerNone      = "no token"
	callerMalformed = "malformed token"
	callerUnknown   = "unknown token"
	callerViewer    = "viewer"
	callerRunner    = "runner"
	callerAdmin     = "admin"
	callerOther     = "other project's admin"
	callerOrg       = "org admin"
	// callerRevoked and callerExpired hold an admin token of project
	// default that worked, then was revoked or expired: 401 everywhere.
	callerRevoked = "revoked token"
	callerExpired = "expired token"
	// callerDemoted holds an admin token of project default that its owner
	// minted as a project admin before being demoted to viewer: it gets
	// exactly what the viewer token gets.
	callerDemoted = "demoted member's admin token"
	// callerRemoved holds a runner token of project default whose owner
	// was then removed from the project, and callerDisabled an admin token
	// of project default whose owner an org admin then disabled: 401
	// everywhere, as a revoked token.
	callerRemoved  = "removed member's runner token"
	callerDisabled = "disabled user's admin token"
	// callerSession is a project admin of default signed in with their
	// password, calling as the dashboard does (session cookie, and
	// Sec-Fetch-Site on writes); callerMember is a user of the organisation
	// with no project and no org admin role, signed in the same way.
	callerSession = "project admin's session"
	callerMember  = "plain member's session"
)

// sessionCallers call with a session cookie rather than a token.
var sessionCallers = [...]string{callerSession, callerMember}

// tokenCallers are the callers holding a valid token, in the order of
// authzCase.want.
var tokenCallers = [...]string{callerViewer, callerRunner, callerAdmin, callerOther, callerOrg}

// authzEnv is a server with two projects, a token of each role in
// project default, an admin token of project other, and a test and a run
// in each project.
type authzEnv struct {
	*apiEnv
	def, other          client.Project
	tokens              map[string]string   // caller → bearer token
	headers             map[string][]string // caller → session cookie and browser headers
	tokenIDs            map[string]uuid.UUID
	defTest, otherTest  client.Test
	defRun, otherRun    client.Run
	defSource, otherSrc client.SyncSource
	defSync             client.SyncRun
	defSearch           client.Search
	otherSearch         client.Search
	defTokenIDsByRecent []uuid.UUID // default's project tokens, newest first
	sharedRows          sync.Mutex  // held by calls of authzCase.sharedRow cases
}

// startAuthz starts a server and creates the fixtures of authzEnv.
func startAuthz(t *testing.T) *authzEnv {
	t.Helper()
	e := startAPI(t)
	f := &authzEnv{apiEnv: e, tokens: map[string]string{}, tokenIDs: map[string]uuid.UUID{}, headers: map[string][]string{}}
	f.def = decode[client.Project](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/projects/default", e.AdminToken, nil))
	demoted := e.mustMemberToken(t, "demoted", "default", auth.Admin)
	e.mustDo(t, http.StatusOK, http.MethodPut, "/projects/default/members/demoted@barrage.test", e.AdminToken, map[string]any{"role": auth.Viewer})
	removed := e.mustMemberToken(t, "removed", "default", auth.Runner)
	disabled := e.mustMemberToken(t, "disabled", "default", auth.Admin)
	for _, tok := range []string{removed.Secret, disabled.Secret} {
		e.mustDo(t, http.StatusOK, http.MethodGet, "/runs?project=default", tok, nil)
	}
	e.mustDo(t, http.StatusNoContent, http.MethodDelete, "/projects/default/members/removed@barrage.test", e.AdminToken, nil)
	e.mustDo(t, http.StatusOK, http.MethodPatch, "/users/disabled@barrage.test", e.AdminToken, map[string]any{"disabled": true})
	f.tokens[callerDemoted], f.tokenIDs[callerDemoted] = demoted.Secret, demoted.Id
	f.tokens[callerRemoved], f.tokenIDs[callerRemoved] = removed.Secret, removed.Id
	f.tokens[callerDisabled], f.tokenIDs[callerDisabled] = disabled.Secret, disabled.Id
	f.defTokenIDsByRecent = []uuid.UUID{disabled.Id, removed.Id, demoted.Id}
	for _, caller := range sessionCallers {
		f.headers[caller] = f.mustSessionCaller(t, caller, "matrix")
	}
	f.other = e.mustProject(t, "other")
	for _, c := range []struct {
		caller, project string
		role            auth.Role
	}{
		{callerViewer, "default", auth.Viewer},
		{callerRunner, "default", auth.Runner},
		{callerAdmin, "default", auth.Admin},
		{callerRevoked, "default", auth.Admin},
		{callerExpired, "default", auth.Admin},
		{callerOther, "other", auth.Admin}, // the newest token (TestListsShowOnlyVisibleRows)
	} {
		tok := e.mustTokenCreated(t, c.project, c.role)
		f.tokens[c.caller], f.tokenIDs[c.caller] = tok.Secret, tok.Id
		if c.project == "default" {
			f.defTokenIDsByRecent = append([]uuid.UUID{tok.Id}, f.defTokenIDsByRecent...)
		}
	}
	f.tokens[callerOrg] = e.AdminToken
	killTokens(t, e, f.tokens[callerRevoked], f.tokenIDs[callerRevoked], f.tokens[callerExpired], f.tokenIDs[callerExpired])
	issued := auth.NewToken().Text
	last := "A"
	if strings.HasSuffix(issued, "A") {
		last = "B"
	}
	f.tokens[callerMalformed] = issued[:len(issued)-1] + last // the checksum no longer matches
	f.tokens[callerUnknown] = auth.NewToken().Text            // well-formed, never issued
	f.tokens[callerNone] = ""
	f.defTest = e.mustTest(t, e.AdminToken, "default", "default test")
	f.otherTest = e.mustTest(t, e.AdminToken, "other", "other test")
	f.defRun = e.mustRun(t, e.AdminToken, "default", "default run", nil)
	f.otherRun = e.mustRun(t, e.AdminToken, "other", "other run", nil)
	f.defSource = freshSource(t, f, "default", "default source")
	f.otherSrc = freshSource(t, f, "other", "other source")
	f.defSync = e.syncNow(t, f.defSource.Id.String())
	f.defSearch = e.mustSearch(t, e.AdminToken, "default", "default search")
	f.otherSearch = e.mustSearch(t, e.AdminToken, "other", "other search")
	return f
}

// mustSessionCaller creates the user key@barrage.test for a session
// caller (a project admin of default for callerSession, a user without
// project for callerMember), signs them in with their password and returns
// the headers the dashboard sends: the session cookie and Sec-Fetch-Site.
func (f *authzEnv) mustSessionCaller(t *testing.T, caller, key string) []string {
	t.Helper()
	email := key + "-" + strings.Fields(caller)[0] + "@barrage.test"
	f.mustDo(t, http.StatusCreated, http.MethodPost, "/users", f.AdminToken, map[string]any{"email": email, "password": memberPassword})
	if caller == callerSession {
		f.mustDo(t, http.StatusOK, http.MethodPut, "/projects/default/members/"+email, f.AdminToken, map[string]any{"role": auth.Admin})
	}
	return withCookie(f.mustSignIn(t, email, memberPassword), "Sec-Fetch-Site", "same-origin")
}

// killTokens revokes one working token (through the API) and expires
// another (its expires_at moved to the past, as time would), after checking
// that both worked.
func killTokens(t *testing.T, e *apiEnv, revoke string, revokeID uuid.UUID, expire string, expireID uuid.UUID) {
	t.Helper()
	for _, tok := range []string{revoke, expire} {
		e.mustDo(t, http.StatusOK, http.MethodGet, "/me", tok, nil)
	}
	e.mustDo(t, http.StatusNoContent, http.MethodDelete, "/tokens/"+revokeID.String(), e.AdminToken, nil)
	e.exec(t, `UPDATE api_tokens SET expires_at = now() - interval '1 second' WHERE id = $1`, expireID)
	for _, tok := range []string{revoke, expire} {
		e.mustDo(t, http.StatusUnauthorized, http.MethodGet, "/me", tok, nil)
	}
}

// mustDeadTokens returns an admin token of project that was revoked and one
// that has expired.
func mustDeadTokens(t *testing.T, e *apiEnv, project string) (revoked, expired string) {
	t.Helper()
	r, x := e.mustTokenCreated(t, project, auth.Admin), e.mustTokenCreated(t, project, auth.Admin)
	killTokens(t, e, r.Secret, r.Id, x.Secret, x.Id)
	return r.Secret, x.Secret
}

// freshSource adds a sync source to project; its URL is refused by the
// SSRF guard (loopback, not allow-listed), so its syncs fail at once.
func freshSource(t *testing.T, f *authzEnv, project, name string) client.SyncSource {
	t.Helper()
	return decode[client.SyncSource](t, f.mustDo(t, http.StatusCreated, http.MethodPost, "/sync-sources", f.AdminToken, map[string]any{
		"project": project, "name": name, "url": "http://127.0.0.1:9/" + strings.ReplaceAll(name, " ", "-") + "/index.tsv",
	}))
}

// freshEchoProfile adds an echo profile to project.
func freshEchoProfile(t *testing.T, f *authzEnv, project, name string) client.EchoProfile {
	t.Helper()
	return decode[client.EchoProfile](t, f.mustDo(t, http.StatusCreated, http.MethodPost, "/echo-profiles", f.AdminToken, map[string]any{
		"project": project, "name": name, "content": "status=503:5",
	}))
}

// authzCase is one route of the matrix.
type authzCase struct {
	// route is the operation as openapi.yaml names it: "GET /runs/{run}".
	route string
	// variant tells apart cases of one route ("?project=default").
	variant string
	// target returns the path and body of one request and a reference
	// for done; fixtures the request consumes are made here, per call.
	target func(t *testing.T, f *authzEnv, key string) (path string, body any, ref string)
	// want is the status for viewer, runner, admin, other's admin and
	// org admin; callers without a valid token (none, malformed, unknown,
	// revoked, expired, the removed member's and the disabled user's) always
	// get 401, and the demoted member's admin token gets the viewer's status.
	want [len(tokenCallers)]int
	// session and member, when set, are the statuses of callerSession and
	// callerMember; by default callerSession gets the admin token's status
	// and callerMember what a caller who sees no project gets (see
	// wantMember).
	session, member int
	// endsSession marks a route that ends the caller's session (or its
	// others): session callers call it with a fresh user's session.
	endsSession bool
	// done, when set, reports whether the request's effect is in the
	// database; it must be exactly when the status is 2xx.
	done func(t *testing.T, f *authzEnv, ref string) bool
	// sharedRow marks a case that rewrites a row other cases rewrite too
	// (default's project row, its remote write): such calls run one at a
	// time, so that done reads the call's own change.
	sharedRow bool
}

// fixedPath is a target that needs no fixture.
func fixedPath(p string) func(*testing.T, *authzEnv, string) (string, any, string) {
	return func(*testing.T, *authzEnv, string) (string, any, string) { return p, nil, "" }
}

// freshRun starts a run in default for one case.
func freshRun(t *testing.T, f *authzEnv, key string) client.Run {
	t.Helper()
	return f.mustRun(t, f.AdminToken, "default", "fixture "+key, nil)
}

// freshTest stores a test in default for one case.
func freshTest(t *testing.T, f *authzEnv, key string) client.Test {
	t.Helper()
	return f.mustTest(t, f.AdminToken, "default", "fixture "+key)
}

// counted returns a done func that is true when query, given ref, counts one row.
func counted(query string) func(*testing.T, *authzEnv, string) bool {
	return func(t *testing.T, f *authzEnv, ref string) bool {
		t.Helper()
		return f.count(t, query, ref) == 1
	}
}

// authzCases is the matrix: every authenticated operation of openapi.yaml.
func authzCases() []authzCase {
	const (
		ok, created, gone   = http.StatusOK, http.StatusCreated, http.StatusNoContent
		forbidden, notFound = http.StatusForbidden, http.StatusNotFound
	)
	spec := testSpec()
	return []authzCase{
		{route: "POST /auth/logout", target: fixedPath("/auth/logout"), want: [5]int{gone, gone, gone, gone, gone}, member: gone, endsSession: true},
		{
			route: "POST /auth/logout-all", target: fixedPath("/auth/logout-all"), endsSession: true,
			want: [5]int{forbidden, forbidden, forbidden, forbidden, gone}, session: gone, member: gone,
		},
		{route: "GET /me", target: fixedPath("/me"), want: [5]int{ok, ok, ok, ok, ok}},
		{
			// Tokens may not change a password; a session changes its own
			// (to the same password here, so the fixture users keep theirs).
			route: "POST /me/password", endsSession: true,
			target: func(_ *testing.T, _ *authzEnv, _ string) (string, any, string) {
				return "/me/password", map[string]any{"current_password": memberPassword, "new_password": memberPassword}, ""
			},
			want: [5]int{forbidden, forbidden, forbidden, forbidden, forbidden}, session: gone, member: gone,
		},
		{
			// Linking needs a session; this server has no OIDC: 409.
			route: "POST /auth/oidc/link", target: fixedPath("/auth/oidc/link"),
			want: [5]int{forbidden, forbidden, forbidden, forbidden, forbidden}, session: http.StatusConflict, member: http.StatusConflict,
		},
		{route: "GET /agents", target: fixedPath("/agents"), want: [5]int{ok, ok, ok, ok, ok}},

		{route: "GET /projects", target: fixedPath("/projects"), want: [5]int{ok, ok, ok, ok, ok}},
		{
			route: "POST /projects",
			target: func(_ *testing.T, _ *authzEnv, key string) (string, any, string) {
				return "/projects", map[string]any{"slug": key, "name": key}, key
			},
			want: [5]int{forbidden, forbidden, forbidden, forbidden, created},
			done: counted("SELECT count(*) FROM projects WHERE slug = $1"),
		},
		{route: "GET /projects/{project}", target: fixedPath("/projects/default"), want: [5]int{ok, ok, ok, notFound, ok}},
		{
			route: "GET /projects/{project}", variant: "other by id",
			target: func(_ *testing.T, f *authzEnv, _ string) (string, any, string) {
				return "/projects/" + f.other.Id.String(), nil, ""
			},
			want: [5]int{notFound, notFound, notFound, ok, ok},
		},
		{
			sharedRow: true, route: "PATCH /projects/{project}",
			target: func(_ *testing.T, _ *authzEnv, key string) (string, any, string) {
				return "/projects/default", map[string]any{"description": key}, key
			},
			want: [5]int{forbidden, forbidden, ok, notFound, ok},
		},
		{
			sharedRow: true, route: "PATCH /projects/{project}", variant: "limits",
			target: func(_ *testing.T, _ *authzEnv, key string) (string, any, string) {
				return "/projects/default", map[string]any{"description": key, "limits": map[string]any{"max_qps": 100000}}, key
			},
			want: [5]int{forbidden, forbidden, ok, notFound, ok},
			done: counted("SELECT count(*) FROM projects WHERE description = $1 AND max_qps = 100000"),
		},

		{route: "GET /projects/{project}/agent-pools", target: fixedPath("/projects/default/agent-pools"), want: [5]int{ok, ok, ok, notFound, ok}},
		{
			// Org admins only: a project admin cannot grant its own project
			// agent pools (docs/security.md "Agents").
			route: "PUT /projects/{project}/agent-pools",
			target: func(_ *testing.T, _ *authzEnv, key string) (string, any, string) {
				return "/projects/default/agent-pools", map[string]any{"pools": []string{key}}, key
			},
			want: [5]int{forbidden, forbidden, forbidden, notFound, ok},
			done: counted("SELECT count(*) FROM projects WHERE slug = 'default' AND $1 = ANY(agent_pools)"),
		},
		{
			route: "PUT /projects/{project}/agent-pools", variant: "of other",
			target: func(_ *testing.T, f *authzEnv, key string) (string, any, string) {
				return "/projects/" + f.other.Id.String() + "/agent-pools", map[string]any{"pools": []string{key}}, key
			},
			want: [5]int{notFound, notFound, notFound, forbidden, ok},
			done: counted("SELECT count(*) FROM projects WHERE slug = 'other' AND $1 = ANY(agent_pools)"),
		},

		{
			// Project admins only: the configuration names where the
			// project's figures go. The target makes sure one exists; no
			// case deletes default's (DELETE works on fresh projects).
			sharedRow: true, route: "GET /projects/{project}/remote-write",
			target: func(t *testing.T, f *authzEnv, key string) (string, any, string) {
				f.mustDo(t, http.StatusOK, http.MethodPut, "/projects/default/remote-write", f.AdminToken,
					map[string]any{"url": "http://127.0.0.1:9/api/v1/write?fixture=" + key, "enabled": false})
				return "/projects/default/remote-write", nil, key
			},
			want: [5]int{forbidden, forbidden, ok, notFound, ok},
		},
		{
			sharedRow: true, route: "PUT /projects/{project}/remote-write",
			target: func(_ *testing.T, _ *authzEnv, key string) (string, any, string) {
				return "/projects/default/remote-write", map[string]any{"url": "http://127.0.0.1:9/api/v1/write?case=" + key, "enabled": false}, key
			},
			want: [5]int{forbidden, forbidden, ok, notFound, ok},
			// default's one row is rewritten by the other cases at once: the
			// audit entry, not the row, shows that this PUT changed it.
			done: counted(`SELECT count(*) FROM audit_log WHERE action = 'project.remote_write' AND details->>'url' LIKE '%?case=' || $1`),
		},
		{
			// On a project of its own per call, which only the org admin
			// belongs to: deleting default's would race the cases above.
			route: "DELETE /projects/{project}/remote-write",
			target: func(t *testing.T, f *authzEnv, key string) (string, any, string) {
				p := f.mustProject(t, key)
				f.mustDo(t, http.StatusOK, http.MethodPut, "/projects/"+key+"/remote-write", f.AdminToken,
					map[string]any{"url": "http://127.0.0.1:9/api/v1/write", "enabled": false})
				return "/projects/" + key + "/remote-write", nil, p.Id.String()
			},
			want: [5]int{notFound, notFound, notFound, notFound, gone},
			done: func(t *testing.T, f *authzEnv, ref string) bool {
				return f.count(t, "SELECT count(*) FROM remote_writes WHERE project_id = $1::uuid", ref) == 0
			},
		},

		{route: "GET /projects/{project}/members", target: fixedPath("/projects/default/members"), want: [5]int{ok, ok, ok, notFound, ok}},
		{
			route: "GET /projects/{project}/members", variant: "of other",
			target: func(_ *testing.T, f *authzEnv, _ string) (string, any, string) {
				return "/projects/" + f.other.Id.String() + "/members", nil, ""
			},
			want: [5]int{notFound, notFound, notFound, ok, ok},
		},
		{
			route: "PUT /projects/{project}/members/{user}",
			target: func(t *testing.T, f *authzEnv, key string) (string, any, string) {
				email := f.mustUser(t, key).Email
				return "/projects/default/members/" + email, map[string]any{"role": "runner"}, email
			},
			want: [5]int{forbidden, forbidden, ok, notFound, ok},
			done: counted("SELECT count(*) FROM memberships m JOIN users u ON u.id = m.user_id WHERE u.email = $1 AND m.role = 'runner'"),
		},
		{
			route: "DELETE /projects/{project}/members/{user}",
			target: func(t *testing.T, f *authzEnv, key string) (string, any, string) {
				u := f.mustUser(t, key)
				f.mustDo(t, http.StatusOK, http.MethodPut, "/projects/default/members/"+u.Id.String(), f.AdminToken, map[string]any{"role": "viewer"})
				return "/projects/default/members/" + u.Id.String(), nil, u.Id.String()
			},
			want: [5]int{forbidden, forbidden, gone, notFound, gone},
			done: func(t *testing.T, f *authzEnv, ref string) bool {
				return f.count(t, "SELECT count(*) FROM memberships WHERE user_id = $1::uuid", ref) == 0
			},
		},
		{
			route: "POST /users",
			target: func(_ *testing.T, _ *authzEnv, key string) (string, any, string) {
				return "/users", map[string]any{"email": key + "@barrage.test"}, key + "@barrage.test"
			},
			want: [5]int{forbidden, forbidden, forbidden, forbidden, created},
			done: counted("SELECT count(*) FROM users WHERE email = $1"),
		},
		{
			route: "PATCH /users/{user}",
			target: func(t *testing.T, f *authzEnv, key string) (string, any, string) {
				email := f.mustUser(t, key).Email
				return "/users/" + email, map[string]any{"disabled": true}, email
			},
			want: [5]int{forbidden, forbidden, forbidden, forbidden, ok},
			done: counted("SELECT count(*) FROM users WHERE email = $1 AND disabled_at IS NOT NULL"),
		},
		{route: "GET /users", target: fixedPath("/users"), want: [5]int{forbidden, forbidden, forbidden, forbidden, ok}},
		{
			// An org admin's dashboard session only: no token, not even the
			// org admin's, may reset a password (docs/security.md); the
			// matrix's sessions are a project admin's and a plain member's,
			// TestResetUserPassword has the org admin's.
			route: "POST /users/{user}/password",
			target: func(t *testing.T, f *authzEnv, key string) (string, any, string) {
				email := f.mustUser(t, key).Email
				return "/users/" + email + "/password", nil, email
			},
			want: [5]int{forbidden, forbidden, forbidden, forbidden, forbidden},
			done: counted(`SELECT count(*) FROM audit_log a JOIN users u ON u.id::text = a.target_id
				WHERE a.action = 'user.password_reset' AND u.email = $1`),
		},

		{
			// A socket beyond the organisation's target policy: only an org
			// admin may add it (docs/security.md, "Target policy").
			sharedRow: true, route: "PATCH /projects/{project}", variant: "allow-list beyond the org policy",
			target: func(_ *testing.T, _ *authzEnv, key string) (string, any, string) {
				return "/projects/default", map[string]any{"description": key,
					"target_allow_list": []string{"127.0.0.0/8", "::1", "localhost", "unix:/run/" + key + ".sock"}}, key
			},
			want: [5]int{forbidden, forbidden, forbidden, notFound, ok},
			done: counted("SELECT count(*) FROM projects WHERE description = $1 AND 'unix:/run/' || $1 || '.sock' = ANY(target_allow_granted)"),
		},
		{route: "GET /org/target-policy", target: fixedPath("/org/target-policy"), want: [5]int{forbidden, forbidden, ok, ok, ok}},
		{
			route: "PUT /org/target-policy",
			target: func(_ *testing.T, _ *authzEnv, key string) (string, any, string) {
				return "/org/target-policy", map[string]any{"target_allow_list": []string{"*", key + ".example"}}, key
			},
			want: [5]int{forbidden, forbidden, forbidden, forbidden, ok},
			done: counted("SELECT count(*) FROM orgs WHERE $1 || '.example' = ANY(target_allow_list)"),
		},

		{route: "GET /tests", target: fixedPath("/tests"), want: [5]int{ok, ok, ok, ok, ok}},
		{route: "GET /tests", variant: "?project=default", target: fixedPath("/tests?project=default"), want: [5]int{ok, ok, ok, notFound, ok}},
		{
			route: "POST /tests",
			target: func(_ *testing.T, _ *authzEnv, key string) (string, any, string) {
				return "/tests", map[string]any{"project": "default", "name": key, "spec": spec}, key
			},
			want: [5]int{forbidden, forbidden, created, notFound, created},
			done: counted("SELECT count(*) FROM tests WHERE name = $1"),
		},
		{
			route: "GET /tests/{test}",
			target: func(_ *testing.T, f *authzEnv, _ string) (string, any, string) {
				return "/tests/" + f.defTest.Id.String(), nil, ""
			},
			want: [5]int{ok, ok, ok, notFound, ok},
		},
		{
			route: "GET /tests/{test}", variant: "of other",
			target: func(_ *testing.T, f *authzEnv, _ string) (string, any, string) {
				return "/tests/" + f.otherTest.Id.String(), nil, ""
			},
			want: [5]int{notFound, notFound, notFound, ok, ok},
		},
		{
			route: "GET /tests/{test}/trend",
			target: func(_ *testing.T, f *authzEnv, _ string) (string, any, string) {
				return "/tests/" + f.defTest.Id.String() + "/trend?limit=10", nil, ""
			},
			want: [5]int{ok, ok, ok, notFound, ok},
		},
		{
			route: "GET /tests/{test}/trend", variant: "of other",
			target: func(_ *testing.T, f *authzEnv, _ string) (string, any, string) {
				return "/tests/" + f.otherTest.Id.String() + "/trend", nil, ""
			},
			want: [5]int{notFound, notFound, notFound, ok, ok},
		},
		{
			route: "PUT /tests/{test}",
			target: func(t *testing.T, f *authzEnv, key string) (string, any, string) {
				tt := freshTest(t, f, key)
				return "/tests/" + tt.Id.String(), map[string]any{"name": "replaced " + key, "spec": spec}, "replaced " + key
			},
			want: [5]int{forbidden, forbidden, ok, notFound, ok},
			done: counted("SELECT count(*) FROM tests WHERE name = $1"),
		},
		{
			route: "DELETE /tests/{test}",
			target: func(t *testing.T, f *authzEnv, key string) (string, any, string) {
				id := freshTest(t, f, key).Id.String()
				return "/tests/" + id, nil, id
			},
			want: [5]int{forbidden, forbidden, gone, notFound, gone},
			done: func(t *testing.T, f *authzEnv, ref string) bool {
				return f.count(t, "SELECT count(*) FROM tests WHERE id = $1::uuid", ref) == 0
			},
		},

		{route: "GET /runs", target: fixedPath("/runs"), want: [5]int{ok, ok, ok, ok, ok}},
		{route: "GET /runs", variant: "?project=default", target: fixedPath("/runs?project=default"), want: [5]int{ok, ok, ok, notFound, ok}},
		{
			route: "POST /runs",
			target: func(_ *testing.T, _ *authzEnv, key string) (string, any, string) {
				return "/runs", map[string]any{"project": "default", "name": key, "spec": spec}, key
			},
			want: [5]int{forbidden, created, created, notFound, created},
			done: counted("SELECT count(*) FROM runs WHERE name = $1"),
		},
		{
			route: "POST /runs", variant: "from a test",
			target: func(_ *testing.T, f *authzEnv, key string) (string, any, string) {
				return "/runs", map[string]any{"test": f.defTest.Id, "name": key}, key
			},
			want: [5]int{forbidden, created, created, notFound, created},
			done: counted("SELECT count(*) FROM runs WHERE name = $1"),
		},
		{
			route: "GET /runs/{run}",
			target: func(_ *testing.T, f *authzEnv, _ string) (string, any, string) {
				return "/runs/" + f.defRun.Id.String(), nil, ""
			},
			want: [5]int{ok, ok, ok, notFound, ok},
		},
		{
			route: "GET /runs/{run}", variant: "of other",
			target: func(_ *testing.T, f *authzEnv, _ string) (string, any, string) {
				return "/runs/" + f.otherRun.Id.String(), nil, ""
			},
			want: [5]int{notFound, notFound, notFound, ok, ok},
		},
		{
			route: "POST /runs/{run}/stop",
			target: func(t *testing.T, f *authzEnv, key string) (string, any, string) {
				id := freshRun(t, f, key).Id.String()
				return "/runs/" + id + "/stop", nil, id
			},
			want: [5]int{forbidden, ok, ok, notFound, ok},
			done: counted("SELECT count(*) FROM runs WHERE id = $1::uuid AND status = 'canceled' AND ended_at IS NOT NULL"),
		},
		{
			route: "PUT /runs/{run}/pin",
			target: func(t *testing.T, f *authzEnv, key string) (string, any, string) {
				id := freshRun(t, f, key).Id.String()
				return "/runs/" + id + "/pin", nil, id
			},
			want: [5]int{forbidden, ok, ok, notFound, ok},
			done: counted("SELECT count(*) FROM runs WHERE id = $1::uuid AND pinned"),
		},
		{
			route: "DELETE /runs/{run}/pin",
			target: func(t *testing.T, f *authzEnv, key string) (string, any, string) {
				id := freshRun(t, f, key).Id.String()
				f.mustDo(t, http.StatusOK, http.MethodPut, "/runs/"+id+"/pin", f.AdminToken, nil)
				return "/runs/" + id + "/pin", nil, id
			},
			want: [5]int{forbidden, ok, ok, notFound, ok},
			done: counted("SELECT count(*) FROM runs WHERE id = $1::uuid AND NOT pinned"),
		},
		{
			route: "DELETE /runs/{run}",
			target: func(t *testing.T, f *authzEnv, key string) (string, any, string) {
				id := freshRun(t, f, key).Id.String()
				f.mustDo(t, http.StatusOK, http.MethodPost, "/runs/"+id+"/stop", f.AdminToken, nil) // queued: canceled at once
				return "/runs/" + id, nil, id
			},
			want: [5]int{forbidden, forbidden, gone, notFound, gone},
			done: func(t *testing.T, f *authzEnv, ref string) bool {
				return f.count(t, "SELECT count(*) FROM runs WHERE id = $1::uuid", ref) == 0
			},
		},

		{route: "GET /searches", target: fixedPath("/searches"), want: [5]int{ok, ok, ok, ok, ok}},
		{route: "GET /searches", variant: "?project=default", target: fixedPath("/searches?project=default"), want: [5]int{ok, ok, ok, notFound, ok}},
		{
			route: "POST /searches",
			target: func(_ *testing.T, _ *authzEnv, key string) (string, any, string) {
				return "/searches", searchBody("default", key), key
			},
			want: [5]int{forbidden, created, created, notFound, created},
			done: counted("SELECT count(*) FROM searches WHERE name = $1"),
		},
		{
			route: "GET /searches/{search}",
			target: func(_ *testing.T, f *authzEnv, _ string) (string, any, string) {
				return "/searches/" + f.defSearch.Id.String(), nil, ""
			},
			want: [5]int{ok, ok, ok, notFound, ok},
		},
		{
			route: "GET /searches/{search}", variant: "of other",
			target: func(_ *testing.T, f *authzEnv, _ string) (string, any, string) {
				return "/searches/" + f.otherSearch.Id.String(), nil, ""
			},
			want: [5]int{notFound, notFound, notFound, ok, ok},
		},
		{
			route: "POST /searches/{search}/cancel",
			target: func(t *testing.T, f *authzEnv, key string) (string, any, string) {
				id := f.mustSearch(t, f.AdminToken, "default", "fixture "+key).Id.String()
				return "/searches/" + id + "/cancel", nil, id
			},
			want: [5]int{forbidden, ok, ok, notFound, ok},
			done: counted("SELECT count(*) FROM searches WHERE id = $1::uuid AND status = 'canceled'"),
		},

		{
			route: "GET /runs/{run}/intervals",
			target: func(_ *testing.T, f *authzEnv, _ string) (string, any, string) {
				return "/runs/" + f.defRun.Id.String() + "/intervals", nil, ""
			},
			want: [5]int{ok, ok, ok, notFound, ok},
		},
		{
			route: "GET /runs/{run}/shards",
			target: func(_ *testing.T, f *authzEnv, _ string) (string, any, string) {
				return "/runs/" + f.defRun.Id.String() + "/shards", nil, ""
			},
			want: [5]int{ok, ok, ok, notFound, ok},
		},
		{
			route: "GET /runs/{run}/shards/intervals",
			target: func(_ *testing.T, f *authzEnv, _ string) (string, any, string) {
				return "/runs/" + f.defRun.Id.String() + "/shards/intervals", nil, ""
			},
			want: [5]int{ok, ok, ok, notFound, ok},
		},
		{
			route: "GET /runs/{run}/shards/intervals", variant: "of other",
			target: func(_ *testing.T, f *authzEnv, _ string) (string, any, string) {
				return "/runs/" + f.otherRun.Id.String() + "/shards/intervals", nil, ""
			},
			want: [5]int{notFound, notFound, notFound, ok, ok},
		},
		{
			route: "GET /runs/{run}/shards", variant: "of other",
			target: func(_ *testing.T, f *authzEnv, _ string) (string, any, string) {
				return "/runs/" + f.otherRun.Id.String() + "/shards", nil, ""
			},
			want: [5]int{notFound, notFound, notFound, ok, ok},
		},
		{
			// A canceled run's stream sends its status and ends.
			route: "GET /runs/{run}/events",
			target: func(t *testing.T, f *authzEnv, key string) (string, any, string) {
				id := freshRun(t, f, key).Id.String()
				f.mustDo(t, http.StatusOK, http.MethodPost, "/runs/"+id+"/stop", f.AdminToken, nil)
				return "/runs/" + id + "/events", nil, ""
			},
			want: [5]int{ok, ok, ok, notFound, ok},
		},
		{
			// A queued run has no result: a conflict, once the caller may see it.
			route: "GET /runs/{run}/result",
			target: func(_ *testing.T, f *authzEnv, _ string) (string, any, string) {
				return "/runs/" + f.defRun.Id.String() + "/result", nil, ""
			},
			want: [5]int{http.StatusConflict, http.StatusConflict, http.StatusConflict, notFound, http.StatusConflict},
		},
		{
			// A queued run has no timeline yet: a conflict, once the caller may see it.
			route: "GET /runs/{run}/timeline",
			target: func(_ *testing.T, f *authzEnv, _ string) (string, any, string) {
				return "/runs/" + f.defRun.Id.String() + "/timeline", nil, ""
			},
			want: [5]int{http.StatusConflict, http.StatusConflict, http.StatusConflict, notFound, http.StatusConflict},
		},
		{
			// A canceled run's timeline is empty, in either format.
			route: "GET /runs/{run}/timeline", variant: "ended, csv",
			target: func(t *testing.T, f *authzEnv, key string) (string, any, string) {
				id := freshRun(t, f, key).Id.String()
				f.mustDo(t, http.StatusOK, http.MethodPost, "/runs/"+id+"/stop", f.AdminToken, nil)
				return "/runs/" + id + "/timeline?format=csv", nil, ""
			},
			want: [5]int{ok, ok, ok, notFound, ok},
		},
		{
			route: "GET /runs/{run}/timeline", variant: "of other",
			target: func(_ *testing.T, f *authzEnv, _ string) (string, any, string) {
				return "/runs/" + f.otherRun.Id.String() + "/timeline", nil, ""
			},
			want: [5]int{notFound, notFound, notFound, http.StatusConflict, http.StatusConflict},
		},
		{
			// A run that records its written URLs serves what is stored so
			// far: none while it is queued.
			route: "GET /runs/{run}/written-urls",
			target: func(t *testing.T, f *authzEnv, key string) (string, any, string) {
				sp := testSpec()
				sp["method"], sp["record_written_urls"] = "POST", true
				run := decode[client.Run](t, f.mustDo(t, http.StatusCreated, http.MethodPost, "/runs", f.AdminToken,
					map[string]any{"project": "default", "name": "fixture " + key, "spec": sp}))
				return "/runs/" + run.Id.String() + "/written-urls", nil, ""
			},
			want: [5]int{ok, ok, ok, notFound, ok},
		},
		{
			route: "GET /runs/{run}/written-urls", variant: "not recorded",
			target: func(_ *testing.T, f *authzEnv, _ string) (string, any, string) {
				return "/runs/" + f.defRun.Id.String() + "/written-urls", nil, ""
			},
			want: [5]int{notFound, notFound, notFound, notFound, notFound},
		},
		{
			route: "GET /runs/compare",
			target: func(t *testing.T, f *authzEnv, key string) (string, any, string) {
				return "/runs/compare?ids=" + f.defRun.Id.String() + "," + freshRun(t, f, key).Id.String(), nil, ""
			},
			want: [5]int{ok, ok, ok, notFound, ok},
		},
		{
			route: "GET /runs/compare", variant: "across projects",
			target: func(_ *testing.T, f *authzEnv, _ string) (string, any, string) {
				return "/runs/compare?ids=" + f.defRun.Id.String() + "," + f.otherRun.Id.String(), nil, ""
			},
			want: [5]int{notFound, notFound, notFound, notFound, ok},
		},

		{
			route: "POST /imports",
			target: func(t *testing.T, _ *authzEnv, key string) (string, any, string) {
				return "/imports?project=default&name=" + key, fortioDoc(t, "tcp.json"), key
			},
			want: [5]int{forbidden, created, created, notFound, created},
			done: counted("SELECT count(*) FROM runs WHERE name = $1 AND source = 'import'"),
		},
		{route: "GET /echo-profiles", target: fixedPath("/echo-profiles?project=default"), want: [5]int{ok, ok, ok, notFound, ok}},
		{
			route: "POST /echo-profiles",
			target: func(_ *testing.T, _ *authzEnv, key string) (string, any, string) {
				return "/echo-profiles", map[string]any{"project": "default", "name": key, "content": "status=503:5"}, key
			},
			want: [5]int{forbidden, forbidden, created, notFound, created},
			done: counted("SELECT count(*) FROM echo_profiles WHERE name = $1"),
		},
		{
			route: "GET /echo-profiles/{profile}",
			target: func(t *testing.T, f *authzEnv, key string) (string, any, string) {
				return "/echo-profiles/" + freshEchoProfile(t, f, "default", key).Id.String(), nil, ""
			},
			want: [5]int{ok, ok, ok, notFound, ok},
		},
		{
			route: "GET /echo-profiles/{profile}", variant: "of other",
			target: func(t *testing.T, f *authzEnv, key string) (string, any, string) {
				return "/echo-profiles/" + freshEchoProfile(t, f, "other", key).Id.String(), nil, ""
			},
			want: [5]int{notFound, notFound, notFound, ok, ok},
		},
		{
			route: "PATCH /echo-profiles/{profile}",
			target: func(t *testing.T, f *authzEnv, key string) (string, any, string) {
				return "/echo-profiles/" + freshEchoProfile(t, f, "default", "fixture "+key).Id.String(), map[string]any{"name": key}, key
			},
			want: [5]int{forbidden, forbidden, ok, notFound, ok},
			done: counted("SELECT count(*) FROM echo_profiles WHERE name = $1"),
		},
		{
			route: "DELETE /echo-profiles/{profile}",
			target: func(t *testing.T, f *authzEnv, key string) (string, any, string) {
				id := freshEchoProfile(t, f, "default", key).Id.String()
				return "/echo-profiles/" + id, nil, id
			},
			want: [5]int{forbidden, forbidden, gone, notFound, gone},
			done: func(t *testing.T, f *authzEnv, ref string) bool {
				t.Helper()
				return f.count(t, "SELECT count(*) FROM echo_profiles WHERE id = $1::uuid", ref) == 0
			},
		},
		{
			// No echo is registered in this server: a caller who may
			// activate gets 409 (see TestEchoProfiles for the 200).
			route: "POST /echo-profiles/{profile}/activate",
			target: func(t *testing.T, f *authzEnv, key string) (string, any, string) {
				return "/echo-profiles/" + freshEchoProfile(t, f, "default", key).Id.String() + "/activate", map[string]any{}, ""
			},
			want: [5]int{forbidden, http.StatusConflict, http.StatusConflict, notFound, http.StatusConflict},
		},
		{route: "GET /echo-servers", target: fixedPath("/echo-servers?project=default"), want: [5]int{ok, ok, ok, notFound, ok}},
		{route: "GET /sync-sources", target: fixedPath("/sync-sources"), want: [5]int{ok, ok, ok, ok, ok}},
		{
			route: "POST /sync-sources",
			target: func(_ *testing.T, _ *authzEnv, key string) (string, any, string) {
				return "/sync-sources", map[string]any{"project": "default", "name": key, "url": "http://127.0.0.1:9/" + key}, key
			},
			want: [5]int{forbidden, forbidden, created, notFound, created},
			done: counted("SELECT count(*) FROM sync_sources WHERE name = $1"),
		},
		{
			route: "GET /sync-sources/{source}",
			target: func(_ *testing.T, f *authzEnv, _ string) (string, any, string) {
				return "/sync-sources/" + f.defSource.Id.String(), nil, ""
			},
			want: [5]int{ok, ok, ok, notFound, ok},
		},
		{
			route: "GET /sync-sources/{source}", variant: "of other",
			target: func(_ *testing.T, f *authzEnv, _ string) (string, any, string) {
				return "/sync-sources/" + f.otherSrc.Id.String(), nil, ""
			},
			want: [5]int{notFound, notFound, notFound, ok, ok},
		},
		{
			route: "PATCH /sync-sources/{source}",
			target: func(t *testing.T, f *authzEnv, key string) (string, any, string) {
				return "/sync-sources/" + freshSource(t, f, "default", "fixture "+key).Id.String(), map[string]any{"name": key}, key
			},
			want: [5]int{forbidden, forbidden, ok, notFound, ok},
			done: counted("SELECT count(*) FROM sync_sources WHERE name = $1"),
		},
		{
			route: "DELETE /sync-sources/{source}",
			target: func(t *testing.T, f *authzEnv, key string) (string, any, string) {
				id := freshSource(t, f, "default", "fixture "+key).Id.String()
				return "/sync-sources/" + id, nil, id
			},
			want: [5]int{forbidden, forbidden, gone, notFound, gone},
			done: func(t *testing.T, f *authzEnv, ref string) bool {
				t.Helper()
				return f.count(t, "SELECT count(*) FROM sync_sources WHERE id = $1::uuid", ref) == 0
			},
		},
		{
			route: "POST /sync-sources/{source}/run",
			target: func(t *testing.T, f *authzEnv, key string) (string, any, string) {
				id := freshSource(t, f, "default", "fixture "+key).Id.String()
				return "/sync-sources/" + id + "/run", nil, id
			},
			want: [5]int{forbidden, http.StatusAccepted, http.StatusAccepted, notFound, http.StatusAccepted},
			done: counted("SELECT count(*) FROM sync_runs WHERE source_id = $1::uuid"),
		},
		{
			route: "GET /sync-sources/{source}/runs",
			target: func(_ *testing.T, f *authzEnv, _ string) (string, any, string) {
				return "/sync-sources/" + f.defSource.Id.String() + "/runs", nil, ""
			},
			want: [5]int{ok, ok, ok, notFound, ok},
		},
		{
			route: "GET /sync-runs/{sync_run}",
			target: func(_ *testing.T, f *authzEnv, _ string) (string, any, string) {
				return "/sync-runs/" + f.defSync.Id.String(), nil, ""
			},
			want: [5]int{ok, ok, ok, notFound, ok},
		},

		{route: "GET /audit", target: fixedPath("/audit"), want: [5]int{ok, ok, ok, ok, ok}},
		{route: "GET /audit", variant: "?project=default", target: fixedPath("/audit?project=default"), want: [5]int{forbidden, forbidden, ok, notFound, ok}},

		{route: "GET /tokens", target: fixedPath("/tokens"), want: [5]int{ok, ok, ok, ok, ok}},
		{route: "GET /tokens", variant: "?project=default", target: fixedPath("/tokens?project=default"), want: [5]int{forbidden, forbidden, ok, notFound, ok}},
		{
			route: "POST /tokens",
			target: func(_ *testing.T, _ *authzEnv, key string) (string, any, string) {
				return "/tokens", map[string]any{"project": "default", "name": key, "role": "viewer"}, key
			},
			want: [5]int{forbidden, forbidden, created, notFound, created},
			done: counted("SELECT count(*) FROM api_tokens WHERE name = $1"),
		},
		{
			route: "DELETE /tokens/{token}",
			target: func(t *testing.T, f *authzEnv, _ string) (string, any, string) {
				id := f.mustTokenCreated(t, "default", auth.Viewer).Id.String()
				return "/tokens/" + id, nil, id
			},
			want: [5]int{forbidden, forbidden, gone, notFound, gone},
			done: counted("SELECT count(*) FROM api_tokens WHERE id = $1::uuid AND revoked_at IS NOT NULL"),
		},
	}
}

// wantMember is callerMember's status when the case does not set it: a
// signed-in user who sees no project gets 404 wherever a caller who cannot
// see the route's project does (the viewer or the other project's admin),
// and the viewer's status elsewhere (lists, /me, org admin routes).
func (tc authzCase) wantMember() int {
	viewer, other := tc.want[0], tc.want[3]
	if viewer == http.StatusNotFound || other == http.StatusNotFound {
		return http.StatusNotFound
	}
	return viewer
}

// wants returns the status every caller of the matrix must get.
func (tc authzCase) wants() map[string]int {
	want := map[string]int{}
	for _, c := range []string{callerNone, callerMalformed, callerUnknown, callerRevoked, callerExpired, callerRemoved, callerDisabled} {
		want[c] = http.StatusUnauthorized
	}
	for i, c := range tokenCallers {
		want[c] = tc.want[i]
	}
	want[callerDemoted] = tc.want[0] // a viewer now
	want[callerSession], want[callerMember] = tc.want[2], tc.wantMember()
	if tc.session != 0 {
		want[callerSession] = tc.session
	}
	if tc.member != 0 {
		want[callerMember] = tc.member
	}
	return want
}

func TestAuthorizationMatrix(t *testing.T) {
	t.Parallel()
	f := startAuthz(t)
	for _, tc := range authzCases() {
		name := tc.route
		if tc.variant != "" {
			name += " " + tc.variant
		}
		want := tc.wants()
		method, _, _ := strings.Cut(tc.route, " ")
		for _, caller := range slices.Sorted(maps.Keys(want)) {
			t.Run(name+" as "+caller, func(t *testing.T) {
				t.Parallel()
				key := "k-" + strings.ReplaceAll(uuid.NewString(), "-", "")[:12]
				if tc.sharedRow {
					f.sharedRows.Lock()
					defer f.sharedRows.Unlock()
				}
				path, body, ref := tc.target(t, f, key)
				headers := f.headers[caller]
				if headers != nil && tc.endsSession {
					headers = f.mustSessionCaller(t, caller, key)
				}
				status, header, raw := f.do(t, method, path, f.tokens[caller], body, headers...)
				switch w := want[caller]; {
				case status != w:
					t.Fatalf("%s %s = %d, want %d; body: %s", method, path, status, w, raw)
				case w == http.StatusUnauthorized:
					wantProblem(t, status, header, raw, w, "unauthenticated")
					if header.Get("WWW-Authenticate") == "" {
						t.Error("401 without WWW-Authenticate")
					}
				case w == http.StatusForbidden:
					wantProblem(t, status, header, raw, w, "forbidden")
				case w == http.StatusNotFound:
					wantProblem(t, status, header, raw, w, "not-found")
				}
				if tc.done != nil {
					if got, wantDone := tc.done(t, f, ref), status < 300; got != wantDone {
						t.Errorf("status %d, change in the database = %v, want %v", status, got, wantDone)
					}
				}
			})
		}
	}
}

// publicOperations need no credentials; every other operation is in the matrix.
var publicOperations = []string{"POST /auth/login", "GET /openapi.yaml", "GET /auth/methods"}

func TestAuthorizationMatrixCoversEveryOperation(t *testing.T) {
	t.Parallel()
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(api.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	covered := map[string]bool{}
	for _, tc := range authzCases() {
		covered[tc.route] = true
	}
	var ops []string
	for p, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			ops = append(ops, method+" "+p)
		}
	}
	if len(ops) < 20 {
		t.Fatalf("openapi.yaml has %d operations; the loader read too few", len(ops))
	}
	for _, op := range ops {
		public := slices.Contains(publicOperations, op)
		if public == covered[op] {
			t.Errorf("%s: public=%v but in the matrix=%v", op, public, covered[op])
		}
		delete(covered, op)
	}
	for op := range covered {
		t.Errorf("the matrix tests %s, which openapi.yaml does not have", op)
	}
}

func TestPublicOperationsIgnoreCredentials(t *testing.T) {
	t.Parallel()
	e := startAPI(t)
	login := map[string]string{"email": testAdminEmail, "password": testAdminPassword}
	revoked, expired := mustDeadTokens(t, e, "default")
	names := map[string]string{"": "no token", revoked: "revoked token", expired: "expired token"}
	for _, token := range []string{"", "brg_malformed", auth.NewToken().Text, revoked, expired} {
		name := names[token]
		if name == "" {
			name = "token " + token
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e.mustDo(t, http.StatusOK, http.MethodGet, "/openapi.yaml", token, nil)
			if m := decode[client.AuthMethods](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/auth/methods", token, nil)); !m.Password || m.Oidc {
				t.Errorf("GET /auth/methods = %+v, want password only", m)
			}
			me := decode[client.Me](t, e.mustDo(t, http.StatusOK, http.MethodPost, "/auth/login", token, login))
			if me.User.Email != testAdminEmail || !me.User.IsAdmin {
				t.Errorf("login answered user %+v, want the admin", me.User)
			}
		})
	}
}

// TestFortioDataRefusesDeadTokens: /fortio/data (outside openapi.yaml) is
// readable without credentials for a project with public results, but a
// revoked, expired or unknown token is 401 there as on every API route.
func TestFortioDataRefusesDeadTokens(t *testing.T) {
	t.Parallel()
	e := startAPI(t)
	e.mustDo(t, http.StatusOK, http.MethodPatch, "/projects/default", e.AdminToken, map[string]any{"public_results": true})
	revoked, expired := mustDeadTokens(t, e, "default")
	viewer := e.mustToken(t, "default", auth.Viewer)
	for _, c := range []struct {
		name, token string
		want        int
	}{
		{"no token", "", http.StatusOK},
		{"viewer", viewer, http.StatusOK},
		{"revoked token", revoked, http.StatusUnauthorized},
		{"expired token", expired, http.StatusUnauthorized},
		{"unknown token", auth.NewToken().Text, http.StatusUnauthorized},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			status, header, raw := e.do(t, http.MethodGet, "/fortio/data/index.tsv?project=default", c.token, nil)
			if c.want == http.StatusUnauthorized {
				wantProblem(t, status, header, raw, c.want, "unauthenticated")
				return
			}
			if status != c.want {
				t.Errorf("status %d, want %d; body %s", status, c.want, raw)
			}
		})
	}
}

func TestListsShowOnlyVisibleRows(t *testing.T) {
	t.Parallel()
	f := startAuthz(t)
	both := func(newer, older uuid.UUID) []uuid.UUID { return []uuid.UUID{newer, older} }
	otherTok := f.tokenIDs[callerOther]
	// Each search's first step is a run of its project, newer than the fixture runs.
	defRuns := both(*f.defSearch.Steps[0].RunId, f.defRun.Id)
	otherRuns := both(*f.otherSearch.Steps[0].RunId, f.otherRun.Id)
	tests := []struct {
		caller                        string
		projects, tests, runs, tokens []uuid.UUID
		searches                      []uuid.UUID
		meRole                        client.Role
		meScope                       *uuid.UUID
	}{
		{caller: callerViewer, projects: []uuid.UUID{f.def.Id}, tests: []uuid.UUID{f.defTest.Id}, runs: defRuns, searches: []uuid.UUID{f.defSearch.Id}, tokens: nil, meRole: client.Viewer, meScope: &f.def.Id},
		{caller: callerRunner, projects: []uuid.UUID{f.def.Id}, tests: []uuid.UUID{f.defTest.Id}, runs: defRuns, searches: []uuid.UUID{f.defSearch.Id}, tokens: nil, meRole: client.Runner, meScope: &f.def.Id},
		{caller: callerAdmin, projects: []uuid.UUID{f.def.Id}, tests: []uuid.UUID{f.defTest.Id}, runs: defRuns, searches: []uuid.UUID{f.defSearch.Id}, tokens: f.defTokenIDsByRecent, meRole: client.Admin, meScope: &f.def.Id},
		{caller: callerOther, projects: []uuid.UUID{f.other.Id}, tests: []uuid.UUID{f.otherTest.Id}, runs: otherRuns, searches: []uuid.UUID{f.otherSearch.Id}, tokens: []uuid.UUID{otherTok}, meRole: client.Admin, meScope: &f.other.Id},
		{
			caller: callerOrg, projects: both(f.other.Id, f.def.Id), tests: both(f.otherTest.Id, f.defTest.Id),
			runs: []uuid.UUID{otherRuns[0], defRuns[0], otherRuns[1], defRuns[1]}, searches: both(f.otherSearch.Id, f.defSearch.Id),
			tokens: append([]uuid.UUID{otherTok}, f.defTokenIDsByRecent...), meRole: client.Admin,
		},
	}
	for _, tt := range tests {
		t.Run(tt.caller, func(t *testing.T) {
			t.Parallel()
			token := f.tokens[tt.caller]
			projects := decode[client.ProjectPage](t, f.mustDo(t, http.StatusOK, http.MethodGet, "/projects", token, nil))
			wantIDs(t, "GET /projects", ids(projects.Items, func(p client.Project) uuid.UUID { return p.Id }), tt.projects)
			testPage := decode[client.TestPage](t, f.mustDo(t, http.StatusOK, http.MethodGet, "/tests", token, nil))
			wantIDs(t, "GET /tests", ids(testPage.Items, func(x client.Test) uuid.UUID { return x.Id }), tt.tests)
			runPage := decode[client.RunPage](t, f.mustDo(t, http.StatusOK, http.MethodGet, "/runs", token, nil))
			wantIDs(t, "GET /runs", ids(runPage.Items, func(r client.Run) uuid.UUID { return r.Id }), tt.runs)
			searchPage := decode[client.SearchPage](t, f.mustDo(t, http.StatusOK, http.MethodGet, "/searches", token, nil))
			wantIDs(t, "GET /searches", ids(searchPage.Items, func(x client.Search) uuid.UUID { return x.Id }), tt.searches)
			tokenPage := decode[client.TokenPage](t, f.mustDo(t, http.StatusOK, http.MethodGet, "/tokens", token, nil))
			wantIDs(t, "GET /tokens", ids(tokenPage.Items, func(x client.Token) uuid.UUID { return x.Id }), tt.tokens)

			me := decode[client.Me](t, f.mustDo(t, http.StatusOK, http.MethodGet, "/me", token, nil))
			wantIDs(t, "GET /me projects", ids(me.Projects, func(p client.ProjectRole) uuid.UUID { return p.Project.Id }), tt.projects)
			for _, pr := range me.Projects {
				if pr.Role != tt.meRole {
					t.Errorf("GET /me: role %s in %s, want %s", pr.Role, pr.Project.Slug, tt.meRole)
				}
			}
			switch {
			case me.Token == nil:
				t.Error("GET /me has no token, want the one used")
			case tt.meScope == nil && (me.Token.ProjectId != nil || me.Token.Role != nil):
				t.Errorf("GET /me token scope = %v/%v, want none for the unscoped admin token", me.Token.ProjectId, me.Token.Role)
			case tt.meScope != nil && (me.Token.ProjectId == nil || *me.Token.ProjectId != *tt.meScope || me.Token.Role == nil || *me.Token.Role != tt.meRole):
				t.Errorf("GET /me token scope = %v/%v, want %s/%s", me.Token.ProjectId, me.Token.Role, *tt.meScope, tt.meRole)
			case tt.meScope != nil && me.Token.Id != f.tokenIDs[tt.caller]:
				t.Errorf("GET /me token id = %s, want %s", me.Token.Id, f.tokenIDs[tt.caller])
			}
		})
	}
}

// wantIDs fails t unless got and want hold the same ids in the same order.
func wantIDs(t *testing.T, what string, got, want []uuid.UUID) {
	t.Helper()
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if !slices.Equal(got, want) {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}
