package app

import (
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/services/api/client"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
)

// fakeClock is a clock the test moves by hand.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

// newFakeClock returns a clock at the real time now.
func newFakeClock() *fakeClock { return &fakeClock{now: time.Now()} }

// Now returns the clock's time.
func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock by d.
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// tryLogin signs in with email and password and returns the status, the
// headers and the body.
func (e *apiEnv) tryLogin(t *testing.T, email, password string, headers ...string) (int, http.Header, []byte) {
	t.Helper()
	return e.do(t, http.MethodPost, "/auth/login", "", map[string]string{"email": email, "password": password}, headers...)
}

// sessionCookieOf returns the session cookie a response set, or nil.
func sessionCookieOf(t *testing.T, header http.Header) *http.Cookie {
	t.Helper()
	for _, v := range header.Values("Set-Cookie") {
		c, err := http.ParseSetCookie(v)
		if err != nil {
			t.Fatalf("Set-Cookie %q: %v", v, err)
		}
		if c.Name == auth.SessionCookie {
			return c
		}
	}
	return nil
}

// mustSignIn signs email in with password and returns the session cookie.
func (e *apiEnv) mustSignIn(t *testing.T, email, password string, headers ...string) *http.Cookie {
	t.Helper()
	status, header, raw := e.tryLogin(t, email, password, headers...)
	if status != http.StatusOK {
		t.Fatalf("login of %s = %d, want 200; body: %s", email, status, raw)
	}
	c := sessionCookieOf(t, header)
	if c == nil || c.Value == "" {
		t.Fatalf("login of %s set no session cookie", email)
	}
	return c
}

func TestLoginLockout(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	e := startAPIClock(t, clock.Now)
	wrong := func(email string) {
		t.Helper()
		status, header, raw := e.tryLogin(t, email, "not the password at all")
		wantProblem(t, status, header, raw, http.StatusUnauthorized, "unauthenticated")
	}
	locked := func(email, password, wantRetry string) string {
		t.Helper()
		status, header, raw := e.tryLogin(t, email, password)
		p := wantProblem(t, status, header, raw, http.StatusTooManyRequests, "rate-limited")
		if got := header.Get("Retry-After"); got != wantRetry {
			t.Errorf("Retry-After = %q, want %q", got, wantRetry)
		}
		if header.Get("Set-Cookie") != "" {
			t.Errorf("a locked sign-in set a cookie: %s", header.Get("Set-Cookie"))
		}
		return *p.Detail
	}

	for range 5 {
		wrong(testAdminEmail)
	}
	if n := e.count(t, "SELECT count(*) FROM audit_log WHERE action = 'auth.locked' AND details->>'email' = $1", testAdminEmail); n != 1 {
		t.Errorf("%d auth.locked entries after 5 failures, want 1", n)
	}
	rightPassword := locked(testAdminEmail, testAdminPassword, "60")
	wrongPassword := locked(testAdminEmail, "not the password at all", "60")
	if rightPassword != wrongPassword {
		t.Errorf("while locked, the right password says %q and a wrong one %q; want one answer", rightPassword, wrongPassword)
	}
	// Attempts while locked neither count nor lengthen the lock.
	if n := e.count(t, "SELECT failures FROM login_failures WHERE email = $1", testAdminEmail); n != 5 {
		t.Errorf("failures = %d after attempts while locked, want 5", n)
	}

	// An unknown address locks the same way: no oracle of who exists.
	for range 5 {
		wrong("nobody@barrage.test")
	}
	if unknown := locked("nobody@barrage.test", "whatever", "60"); unknown != rightPassword {
		t.Errorf("locked unknown address says %q, known %q; want one answer", unknown, rightPassword)
	}

	clock.Advance(59 * time.Second)
	locked(testAdminEmail, testAdminPassword, "1")
	clock.Advance(2 * time.Second)
	wrong(testAdminEmail) // the sixth failure: 2 minutes
	locked(testAdminEmail, testAdminPassword, "120")
	clock.Advance(121 * time.Second)
	wrong(testAdminEmail) // the seventh: 4 minutes
	locked(testAdminEmail, testAdminPassword, "240")
	clock.Advance(241 * time.Second)
	e.mustSignIn(t, testAdminEmail, testAdminPassword)
	if n := e.count(t, "SELECT count(*) FROM login_failures WHERE email = $1", testAdminEmail); n != 0 {
		t.Errorf("%d login_failures rows after a success, want 0 (reset)", n)
	}
	wrong(testAdminEmail) // counts from 1 again: not locked
	e.mustSignIn(t, testAdminEmail, testAdminPassword)

	if n := e.count(t, "SELECT count(*) FROM audit_log WHERE action = 'auth.locked' AND details->>'email' = $1", testAdminEmail); n != 3 {
		t.Errorf("%d auth.locked entries, want 3 (at the 5th, 6th and 7th failures)", n)
	}
	if n := e.count(t, "SELECT count(*) FROM audit_log WHERE action = 'auth.login_failed' AND details->>'locked' = 'true'"); n != 6 {
		t.Errorf("%d refused-while-locked attempts audited, want 6", n)
	}
	if n := e.count(t, "SELECT count(*) FROM audit_log WHERE details::text LIKE '%not the password%'"); n != 0 {
		t.Errorf("%d audit entries hold a password", n)
	}
}

func TestLoginIsSameOriginOnly(t *testing.T) {
	t.Parallel()
	e := startAPI(t)
	status, header, raw := e.tryLogin(t, testAdminEmail, testAdminPassword, "Origin", "http://evil.example")
	wantProblem(t, status, header, raw, http.StatusForbidden, "forbidden")
	if header.Get("Set-Cookie") != "" {
		t.Errorf("a cross-site sign-in set a cookie")
	}
	e.mustSignIn(t, testAdminEmail, testAdminPassword, "Origin", e.URL)
}

func TestSessionRotation(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	e := startAPIClock(t, clock.Now)
	old := e.mustSignIn(t, testAdminEmail, testAdminPassword)
	me := func(c *http.Cookie, want int) http.Header {
		t.Helper()
		status, header, raw := e.do(t, http.MethodGet, "/me", "", nil, withCookie(c)...)
		if status != want {
			t.Fatalf("GET /me with %s… = %d, want %d; body: %s", c.Value[:6], status, want, raw)
		}
		return header
	}
	if c := sessionCookieOf(t, me(old, http.StatusOK)); c != nil {
		t.Fatalf("a fresh session was re-issued: %s", c)
	}
	expires := e.count(t, "SELECT extract(epoch FROM expires_at)::int FROM sessions")

	clock.Advance(61 * time.Minute)
	next := sessionCookieOf(t, me(old, http.StatusOK))
	if next == nil || next.Value == old.Value || !next.HttpOnly || next.SameSite != http.SameSiteLaxMode {
		t.Fatalf("an hour-old session was not re-issued as an HttpOnly SameSite=Lax cookie: %v", next)
	}
	if want := int((12*time.Hour - 61*time.Minute) / time.Second); next.MaxAge < want-5 || next.MaxAge > want {
		t.Errorf("re-issued Max-Age = %d, want about %d (the absolute expiry kept)", next.MaxAge, want)
	}
	// A parallel request still carrying the old cookie works within the
	// grace and does not rotate again.
	if c := sessionCookieOf(t, me(old, http.StatusOK)); c != nil {
		t.Errorf("the old cookie was re-issued a second time")
	}
	me(next, http.StatusOK)
	if n := e.count(t, "SELECT count(*) FROM sessions"); n != 2 {
		t.Errorf("%d sessions, want 2 (one rotation)", n)
	}
	if n := e.count(t, "SELECT count(*) FROM sessions WHERE replaced_by IS NULL AND extract(epoch FROM expires_at)::int = $1", expires); n != 1 {
		t.Errorf("%d sessions keep the first expiry, want the new one", n)
	}

	clock.Advance(31 * time.Second)
	me(old, http.StatusUnauthorized)
	me(next, http.StatusOK)

	// Signing out during a grace ends both cookies of the sign-in.
	clock.Advance(61 * time.Minute)
	third := sessionCookieOf(t, me(next, http.StatusOK))
	if third == nil {
		t.Fatal("the second session was not re-issued after an hour")
	}
	e.mustDo(t, http.StatusNoContent, http.MethodPost, "/auth/logout", "", nil, withCookie(next)...)
	me(next, http.StatusUnauthorized)
	me(third, http.StatusUnauthorized)
	next = e.mustSignIn(t, testAdminEmail, testAdminPassword)

	// Signing in again with a cookie revokes its session.
	again := e.mustSignIn(t, testAdminEmail, testAdminPassword, withCookie(next)...)
	me(next, http.StatusUnauthorized)
	me(again, http.StatusOK)
	if n := e.count(t, "SELECT count(*) FROM sessions WHERE revoked_at IS NULL AND replaced_by IS NULL"); n != 1 {
		t.Errorf("%d live sessions, want 1", n)
	}
}

func TestLogoutEverywhere(t *testing.T) {
	t.Parallel()
	e := startAPI(t)
	laptop := e.mustLogin(t)
	phone := e.mustLogin(t)
	status, header, raw := e.do(t, http.MethodPost, "/auth/logout-all", "", nil, withCookie(laptop, "Origin", e.URL)...)
	if status != http.StatusNoContent {
		t.Fatalf("logout-all = %d, want 204; body: %s", status, raw)
	}
	if c := sessionCookieOf(t, header); c == nil || c.Value != "" || c.MaxAge >= 0 {
		t.Errorf("logout-all did not clear the cookie: %v", c)
	}
	for name, c := range map[string]*http.Cookie{"laptop": laptop, "phone": phone} {
		status, header, raw := e.do(t, http.MethodGet, "/me", "", nil, withCookie(c)...)
		if status != http.StatusUnauthorized {
			t.Errorf("the %s session after logout-all: GET /me = %d, want 401", name, status)
		} else {
			wantProblem(t, status, header, raw, http.StatusUnauthorized, "unauthenticated")
		}
	}
	me := decode[client.Me](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/me", e.AdminToken, nil))
	if me.User.Email != testAdminEmail {
		t.Errorf("the admin token after logout-all answers %s", me.User.Email)
	}
	if n := e.count(t, "SELECT count(*) FROM audit_log WHERE action = 'session.revoke_all' AND (details->>'sessions')::int = 2"); n != 1 {
		t.Errorf("%d session.revoke_all entries ending 2 sessions, want 1", n)
	}
	// Cross-site, it is refused like any cookie write.
	other := e.mustLogin(t)
	status, header, raw = e.do(t, http.MethodPost, "/auth/logout-all", "", nil, withCookie(other, "Origin", "http://evil.example")...)
	wantProblem(t, status, header, raw, http.StatusForbidden, "forbidden")
	e.mustDo(t, http.StatusOK, http.MethodGet, "/me", "", nil, withCookie(other)...)
}
