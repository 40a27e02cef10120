package app

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/services/api/client"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
)

// mustLogin signs the bootstrap admin in and returns the session cookie.
func (e *apiEnv) mustLogin(t *testing.T) *http.Cookie {
	t.Helper()
	body := map[string]string{"email": testAdminEmail, "password": testAdminPassword}
	status, header, raw := e.do(t, http.MethodPost, "/auth/login", "", body)
	if status != http.StatusOK {
		t.Fatalf("login = %d, want 200; body: %s", status, raw)
	}
	if n := len(header.Values("Set-Cookie")); n != 1 {
		t.Fatalf("login set %d cookies, want 1", n)
	}
	c, err := http.ParseSetCookie(header.Get("Set-Cookie"))
	if err != nil {
		t.Fatalf("Set-Cookie %q: %v", header.Get("Set-Cookie"), err)
	}
	return c
}

// withCookie returns the request headers that send c, plus extra.
func withCookie(c *http.Cookie, extra ...string) []string {
	return append([]string{"Cookie", c.Name + "=" + c.Value}, extra...)
}

func TestLoginSession(t *testing.T) {
	t.Parallel()
	e := startAPI(t)
	c := e.mustLogin(t)
	if c.Name != auth.SessionCookie || c.Value == "" || !c.HttpOnly || c.SameSite != http.SameSiteLaxMode ||
		c.Path != "/" || c.MaxAge != int((12*time.Hour).Seconds()) || c.Secure {
		t.Errorf("session cookie = %s, want barrage_session, HttpOnly, SameSite=Lax, Path=/, Max-Age=43200, not Secure", c)
	}
	if n := e.count(t, "SELECT count(*) FROM sessions WHERE revoked_at IS NULL AND expires_at > now() + interval '11 hours'"); n != 1 {
		t.Errorf("%d live sessions of 12 h stored, want 1", n)
	}

	me := decode[client.Me](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/me", "", nil, withCookie(c)...))
	if me.User.Email != testAdminEmail || !me.User.IsAdmin || me.Token != nil {
		t.Errorf("GET /me with the cookie = %+v (token %v), want the admin and no token", me.User, me.Token)
	}
	if len(me.Projects) != 1 || me.Projects[0].Project.Slug != "default" || me.Projects[0].Role != client.Admin {
		t.Errorf("GET /me projects = %+v, want admin of default", me.Projects)
	}

	run := map[string]any{"project": "default", "name": "from the dashboard", "spec": testSpec()}
	writes := []struct {
		name    string
		headers []string
		want    int
	}{
		{"cross-site Origin", []string{"Origin", "http://evil.example"}, http.StatusForbidden},
		{"Sec-Fetch-Site cross-site", []string{"Sec-Fetch-Site", "cross-site", "Origin", e.URL}, http.StatusForbidden},
		{"Sec-Fetch-Site same-site", []string{"Sec-Fetch-Site", "same-site"}, http.StatusForbidden},
		{"Sec-Fetch-Site same-origin", []string{"Sec-Fetch-Site", "same-origin", "Origin", "http://evil.example"}, http.StatusCreated},
		{"Origin of the API itself", []string{"Origin", e.URL}, http.StatusCreated},
		{"no browser headers", nil, http.StatusCreated},
	}
	for _, w := range writes {
		status, header, raw := e.do(t, http.MethodPost, "/runs", "", run, withCookie(c, w.headers...)...)
		if w.want == http.StatusForbidden {
			wantProblem(t, status, header, raw, w.want, "forbidden")
		} else if status != w.want {
			t.Errorf("POST /runs with the cookie and %s = %d, want %d; body: %s", w.name, status, w.want, raw)
		}
	}
	if n := e.count(t, "SELECT count(*) FROM runs WHERE name = 'from the dashboard'"); n != 3 {
		t.Errorf("%d runs stored, want the 3 same-origin ones", n)
	}
	// Reads are safe from any origin.
	e.mustDo(t, http.StatusOK, http.MethodGet, "/runs", "", nil, withCookie(c, "Origin", "http://evil.example")...)

	status, header, raw := e.do(t, http.MethodPost, "/auth/logout", "", nil, withCookie(c)...)
	if status != http.StatusNoContent {
		t.Fatalf("logout = %d, want 204; body: %s", status, raw)
	}
	cleared, err := http.ParseSetCookie(header.Get("Set-Cookie"))
	if err != nil || cleared.Name != auth.SessionCookie || cleared.Value != "" || cleared.MaxAge >= 0 {
		t.Errorf("logout Set-Cookie = %q, want barrage_session cleared", header.Get("Set-Cookie"))
	}
	status, header, raw = e.do(t, http.MethodGet, "/me", "", nil, withCookie(c)...)
	wantProblem(t, status, header, raw, http.StatusUnauthorized, "unauthenticated")
	if n := e.count(t, "SELECT count(*) FROM sessions WHERE revoked_at IS NOT NULL"); n != 1 {
		t.Errorf("%d revoked sessions, want 1", n)
	}
}

func TestLoginFailures(t *testing.T) {
	t.Parallel()
	e := startAPI(t)
	login := func(email, password string) (int, string) {
		status, header, raw := e.do(t, http.MethodPost, "/auth/login", "", map[string]string{"email": email, "password": password})
		if status != http.StatusOK {
			p := wantProblem(t, status, header, raw, http.StatusUnauthorized, "unauthenticated")
			if header.Get("Set-Cookie") != "" {
				t.Errorf("a failed login set a cookie: %s", header.Get("Set-Cookie"))
			}
			return status, *p.Detail
		}
		return status, ""
	}
	_, wrongPassword := login(testAdminEmail, "not the password at all")
	_, unknownEmail := login("nobody@barrage.test", testAdminPassword)
	if wrongPassword != unknownEmail || wrongPassword == "" {
		t.Errorf("wrong password says %q, unknown email %q; want one answer for both", wrongPassword, unknownEmail)
	}
	if status, _ := login(strings.ToUpper(testAdminEmail), testAdminPassword); status != http.StatusOK {
		t.Errorf("login with the email in capitals = %d, want 200", status)
	}
	if n := e.count(t, "SELECT count(*) FROM sessions"); n != 1 {
		t.Errorf("%d sessions stored, want the 1 of the good login", n)
	}
	c := e.mustLogin(t)
	e.mustDo(t, http.StatusOK, http.MethodGet, "/me", "", nil, withCookie(c)...)
	e.exec(t, "UPDATE sessions SET expires_at = now() - interval '1 second'")
	status, header, raw := e.do(t, http.MethodGet, "/me", "", nil, withCookie(c)...)
	wantProblem(t, status, header, raw, http.StatusUnauthorized, "unauthenticated")
}

func TestTokenLifecycle(t *testing.T) {
	t.Parallel()
	e := startAPI(t)
	t.Run("last_used_at is set on use", func(t *testing.T) {
		t.Parallel()
		tok := e.mustTokenCreated(t, "default", auth.Viewer)
		if n := e.count(t, "SELECT count(*) FROM api_tokens WHERE id = $1::uuid AND last_used_at IS NULL", tok.Id.String()); n != 1 {
			t.Fatal("a new token already has last_used_at")
		}
		before := time.Now().Add(-time.Second)
		e.mustDo(t, http.StatusOK, http.MethodGet, "/me", tok.Secret, nil)
		list := decode[client.TokenPage](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/tokens?project=default", e.AdminToken, nil))
		for _, x := range list.Items {
			if x.Id != tok.Id {
				continue
			}
			if x.LastUsedAt == nil || x.LastUsedAt.Before(before) || x.LastUsedAt.After(time.Now().Add(time.Second)) {
				t.Errorf("last_used_at = %v after use, want about now", x.LastUsedAt)
			}
			if x.Hint != tok.Secret[:10] {
				t.Errorf("hint = %q, want %q", x.Hint, tok.Secret[:10])
			}
			return
		}
		t.Errorf("GET /tokens does not list token %s", tok.Id)
	})
	t.Run("revoked token stops working", func(t *testing.T) {
		t.Parallel()
		tok := e.mustTokenCreated(t, "default", auth.Runner)
		e.mustDo(t, http.StatusOK, http.MethodGet, "/runs", tok.Secret, nil)
		e.mustDo(t, http.StatusNoContent, http.MethodDelete, "/tokens/"+tok.Id.String(), e.AdminToken, nil)
		status, header, raw := e.do(t, http.MethodGet, "/runs", tok.Secret, nil)
		p := wantProblem(t, status, header, raw, http.StatusUnauthorized, "unauthenticated")
		if p.Detail == nil || !strings.Contains(*p.Detail, "revoked") {
			t.Errorf("detail = %v", p.Detail)
		}
	})
	t.Run("expired token stops working", func(t *testing.T) {
		t.Parallel()
		tok := e.mustTokenCreated(t, "default", auth.Runner)
		e.mustDo(t, http.StatusOK, http.MethodGet, "/runs", tok.Secret, nil)
		e.exec(t, "UPDATE api_tokens SET expires_at = now() - interval '1 second' WHERE id = $1::uuid", tok.Id.String())
		status, header, raw := e.do(t, http.MethodGet, "/runs", tok.Secret, nil)
		wantProblem(t, status, header, raw, http.StatusUnauthorized, "unauthenticated")
	})
	t.Run("token with a future expiry works", func(t *testing.T) {
		t.Parallel()
		expires := time.Now().Add(time.Hour).UTC().Truncate(time.Second)
		body := map[string]any{"project": "default", "name": "short-lived", "role": "viewer", "expires_at": expires}
		tok := decode[client.TokenCreated](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/tokens", e.AdminToken, body))
		if tok.ExpiresAt == nil || !tok.ExpiresAt.Equal(expires) {
			t.Errorf("expires_at = %v, want %v", tok.ExpiresAt, expires)
		}
		e.mustDo(t, http.StatusOK, http.MethodGet, "/me", tok.Secret, nil)
	})
	t.Run("expiry in the past is refused", func(t *testing.T) {
		t.Parallel()
		body := map[string]any{"project": "default", "name": "stale", "role": "viewer", "expires_at": time.Now().Add(-time.Minute)}
		status, header, raw := e.do(t, http.MethodPost, "/tokens", e.AdminToken, body)
		p := wantProblem(t, status, header, raw, http.StatusUnprocessableEntity, "validation")
		if got := problemFields(p); len(got) != 1 || got[0] != "expires_at" {
			t.Errorf("fields = %q, want [expires_at]", got)
		}
	})
	t.Run("Authorization that is not Bearer", func(t *testing.T) {
		t.Parallel()
		status, header, raw := e.do(t, http.MethodGet, "/me", "", nil, "Authorization", "Basic YWRtaW46cGFzcw==")
		p := wantProblem(t, status, header, raw, http.StatusUnauthorized, "unauthenticated")
		if p.Detail == nil || !strings.Contains(*p.Detail, "Bearer") {
			t.Errorf("detail = %v, want it to name the Bearer scheme", p.Detail)
		}
	})
}
