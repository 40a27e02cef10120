package app

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/services/api/client"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
)

// auditActions returns the actions of entries, in order.
func auditActions(entries []client.AuditEntry) []string {
	out := make([]string, len(entries))
	for i := range entries {
		out[i] = entries[i].Action
	}
	return out
}

// mustAudit reads one page of GET /audit with query as token's holder and
// checks that the raw body holds none of secrets.
func (e *apiEnv) mustAudit(t *testing.T, token, query string, secrets ...string) client.AuditPage {
	t.Helper()
	raw := e.mustDo(t, http.StatusOK, http.MethodGet, "/audit"+query, token, nil)
	for _, s := range secrets {
		if strings.Contains(string(raw), s) {
			t.Errorf("GET /audit%s holds the secret %q: %s", query, s, raw)
		}
	}
	return decode[client.AuditPage](t, raw)
}

// auditAll walks every page of GET /audit with query and limit as token's holder.
func (e *apiEnv) auditAll(t *testing.T, token, query string, limit int, secrets ...string) []client.AuditEntry {
	t.Helper()
	var all []client.AuditEntry
	cursor := ""
	for range 1000 {
		q := url.Values{}
		if query != "" {
			q, _ = url.ParseQuery(query)
		}
		q.Set("limit", strconv.Itoa(limit))
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		page := e.mustAudit(t, token, "?"+q.Encode(), secrets...)
		if len(page.Items) > limit {
			t.Fatalf("page of %d entries, want at most %d", len(page.Items), limit)
		}
		all = append(all, page.Items...)
		if page.NextCursor == nil {
			return all
		}
		cursor = *page.NextCursor
	}
	t.Fatal("GET /audit did not end within 1000 pages")
	return nil
}

func TestAuditLog(t *testing.T) {
	t.Parallel()
	e := startAPI(t)
	// The scopes subtest's fixtures are made first: made in it, they would
	// add entries to project default while the paging subtest walks it.
	other := e.mustProject(t, "audit-other")
	otherAdmin := e.mustToken(t, "audit-other", auth.Admin)
	viewer := e.mustToken(t, "default", auth.Viewer)
	admin := e.mustTokenCreated(t, "default", auth.Admin)
	const wrongPassword = "not the password, never logged"

	test := e.mustTest(t, admin.Secret, "default", "audited test")
	run := e.mustRun(t, admin.Secret, "default", "audited run", nil)
	e.mustDo(t, http.StatusOK, http.MethodPost, "/runs/"+run.Id.String()+"/stop", admin.Secret, nil)
	if status, _, raw := e.do(t, http.MethodPost, "/auth/login", "", map[string]string{"email": testAdminEmail, "password": wrongPassword}); status != http.StatusUnauthorized {
		t.Fatalf("login with a wrong password = %d, want 401: %s", status, raw)
	}
	e.mustLogin(t)
	e.mustDo(t, http.StatusOK, http.MethodPatch, "/projects/default", admin.Secret, map[string]any{"description": "audited"})

	secrets := []string{wrongPassword, testAdminPassword, admin.Secret, e.AdminToken}
	page := e.mustAudit(t, admin.Secret, "?project=default", secrets...)
	got := auditActions(page.Items)
	wantPrefix := []string{"project.update", "run.move", "run.create", "test.create", "token.create"}
	if len(got) < len(wantPrefix) || !slices.Equal(got[:len(wantPrefix)], wantPrefix) {
		t.Fatalf("GET /audit?project=default actions = %v, want %v first (sign-ins belong to no project)", got, wantPrefix)
	}
	if slices.Contains(got, "auth.login_failed") || slices.Contains(got, "session.create") {
		t.Errorf("project audit holds sign-ins: %v", got)
	}
	for i := 1; i < len(page.Items); i++ {
		if page.Items[i].Id >= page.Items[i-1].Id || page.Items[i].At.After(page.Items[i-1].At) {
			t.Errorf("entries %d and %d are not newest first: %+v, %+v", i-1, i, page.Items[i-1], page.Items[i])
		}
	}
	for _, tt := range []struct {
		i            int
		kind, target string
	}{
		{0, "project", page.Items[0].TargetId},
		{1, "run", run.Id.String()},
		{2, "run", run.Id.String()},
		{3, "test", test.Id.String()},
		{4, "token", admin.Id.String()},
	} {
		en := page.Items[tt.i]
		if en.TargetKind != tt.kind || en.TargetId != tt.target || en.ProjectId == nil || *en.ProjectId != run.ProjectId {
			t.Errorf("%s entry = %s %s in %v, want %s %s in %s", en.Action, en.TargetKind, en.TargetId, en.ProjectId, tt.kind, tt.target, run.ProjectId)
		}
		a := en.Actor
		if tt.i < 4 {
			if a.TokenId == nil || *a.TokenId != admin.Id || derefS(a.TokenName) != admin.Name || derefS(a.Email) != testAdminEmail || a.UserId == nil {
				t.Errorf("%s actor = %+v, want the admin acting with token %s (%s)", en.Action, a, admin.Id, admin.Name)
			}
		} else if derefS(a.Email) != testAdminEmail || a.TokenId == nil || *a.TokenId == admin.Id {
			t.Errorf("token.create actor = %+v, want the admin with the bootstrap token", a)
		}
	}
	if page.Items[0].TargetId != run.ProjectId.String() || page.Items[0].Details["name"] == nil {
		t.Errorf("project.update entry = %+v, want project %s with its new fields", page.Items[0], run.ProjectId)
	}
	if page.Items[1].Details["to"] != "canceled" {
		t.Errorf("run.move details = %v, want to: canceled", page.Items[1].Details)
	}

	// The org admin, without a project, also sees the sign-ins.
	org := e.mustAudit(t, e.AdminToken, "", secrets...)
	got = auditActions(org.Items)
	if !slices.Equal(got[:3], []string{"project.update", "session.create", "auth.login_failed"}) {
		t.Fatalf("org admin GET /audit actions = %v, want project.update, session.create, auth.login_failed first", got)
	}
	login, failed := org.Items[1], org.Items[2]
	if login.Actor.UserId == nil || derefS(login.Actor.Email) != testAdminEmail || login.Actor.TokenId != nil || login.ProjectId != nil || login.TargetKind != "session" {
		t.Errorf("session.create = %+v, want the admin user, no token, no project", login)
	}
	if failed.Actor.UserId != nil || failed.Actor.TokenId != nil || failed.Details["email"] != testAdminEmail ||
		failed.Details["client"] != "127.0.0.1" || len(failed.Details) != 2 {
		t.Errorf("auth.login_failed = %+v, want no actor and details {email: %s, client: 127.0.0.1}", failed, testAdminEmail)
	}
	if !slices.Contains(got, "system.bootstrap") {
		t.Errorf("org admin GET /audit actions = %v, want system.bootstrap among them", got)
	}

	t.Run("paging", func(t *testing.T) {
		t.Parallel()
		all := e.auditAll(t, admin.Secret, "project=default", 2, secrets...)
		wantIDs := make([]int64, len(page.Items))
		for i, en := range page.Items {
			wantIDs[i] = en.Id
		}
		gotIDs := make([]int64, len(all))
		for i, en := range all {
			gotIDs[i] = en.Id
		}
		if !slices.Equal(gotIDs, wantIDs) {
			t.Errorf("pages of 2 = ids %v, want each of %v once, in order", gotIDs, wantIDs)
		}
	})

	t.Run("action filter", func(t *testing.T) {
		t.Parallel()
		for _, tt := range []struct {
			action string
			want   []string
		}{
			{"run.", []string{"run.move", "run.create"}},
			{"run.create", []string{"run.create"}},
			{"run", nil}, // not a prefix without the dot
			{"auth.", []string{"auth.login_failed"}},
		} {
			token := admin.Secret
			q := "?project=default&action=" + url.QueryEscape(tt.action)
			if strings.HasPrefix(tt.action, "auth") {
				token, q = e.AdminToken, "?action="+url.QueryEscape(tt.action)
			}
			if got := auditActions(e.mustAudit(t, token, q, secrets...).Items); !slices.Equal(got, tt.want) {
				t.Errorf("GET /audit%s actions = %v, want %v", q, got, tt.want)
			}
		}
	})

	t.Run("actor and time filters", func(t *testing.T) {
		t.Parallel()
		at := func(i int) string { return url.QueryEscape(page.Items[i].At.Format(time.RFC3339Nano)) }
		for _, tt := range []struct {
			q    string
			want []string
		}{
			// The admin token's own entries; token.create was made with the bootstrap token.
			{"&actor=" + url.QueryEscape(admin.Name), []string{"project.update", "run.move", "run.create", "test.create"}},
			{"&actor=" + url.QueryEscape(strings.ToUpper(testAdminEmail)) + "&action=token.", []string{"token.create", "token.create"}}, // the viewer's and the admin's tokens
			{"&actor=nobody%40barrage.test", nil},
			// [since, until): test.create's instant is in, run.move's is out.
			{"&since=" + at(3) + "&until=" + at(1), []string{"run.create", "test.create"}},
			{"&since=" + at(1), []string{"project.update", "run.move"}},
			{"&until=" + at(3) + "&action=token.", []string{"token.create", "token.create"}},
		} {
			q := "?project=default" + tt.q
			if got := auditActions(e.mustAudit(t, admin.Secret, q, secrets...).Items); !slices.Equal(got, tt.want) {
				t.Errorf("GET /audit%s actions = %v, want %v", q, got, tt.want)
			}
		}
		status, header, raw := e.do(t, http.MethodGet, "/audit?project=default&since="+at(1)+"&until="+at(3), admin.Secret, nil)
		wantProblem(t, status, header, raw, http.StatusUnprocessableEntity, "validation")
		if !strings.Contains(string(raw), `"until"`) {
			t.Errorf("until before since: problem %s does not name until", raw)
		}
	})

	t.Run("bad cursor", func(t *testing.T) {
		t.Parallel()
		status, header, raw := e.do(t, http.MethodGet, "/audit?project=default&cursor=bm90LWEtY3Vyc29y", admin.Secret, nil)
		wantProblem(t, status, header, raw, http.StatusUnprocessableEntity, "validation")
	})

	t.Run("scopes", func(t *testing.T) {
		t.Parallel()
		if items := e.mustAudit(t, viewer, "").Items; len(items) != 0 {
			t.Errorf("a viewer's GET /audit = %v, want no entries", auditActions(items))
		}
		for _, en := range e.mustAudit(t, otherAdmin, "").Items {
			if en.ProjectId == nil || *en.ProjectId != other.Id {
				t.Errorf("other project's admin sees %s of project %v, want only %s", en.Action, en.ProjectId, other.Id)
			}
		}
	})
}
