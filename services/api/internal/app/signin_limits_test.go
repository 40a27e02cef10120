package app

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/services/api/internal/auth"
)

// loginLimited is the sign-in limiter of these tests: a burst of 20 and
// next to no refill, so the 21st attempt is refused.
func loginLimited(extra ...string) []string {
	return append([]string{"BARRAGE_LOGIN_RATE_LIMIT=0.001", "BARRAGE_LOGIN_RATE_BURST=20"}, extra...)
}

// wantRateLimited checks a 429 problem with a Retry-After of at least 1 s.
func wantRateLimited(t *testing.T, status int, header http.Header, raw []byte) {
	t.Helper()
	wantProblem(t, status, header, raw, http.StatusTooManyRequests, "rate-limited")
	if header.Get("Retry-After") == "" || header.Get("Retry-After") == "0" {
		t.Errorf("Retry-After = %q, want a positive number of seconds", header.Get("Retry-After"))
	}
}

// TestSignInLimitedPerClientBeforeHashing: 20 rapid bad sign-ins, each
// with another email and a spoofed X-Forwarded-For, are 401; the 21st is
// 429 before its password is hashed (it is not even audited), because an
// untrusted peer's X-Forwarded-For does not change the limiter's key.
func TestSignInLimitedPerClientBeforeHashing(t *testing.T) {
	t.Parallel()
	e := startAPI(t, loginLimited()...)
	for i := range 20 {
		status, header, raw := e.tryLogin(t, fmt.Sprintf("nobody%d@barrage.test", i), "wrong password", "X-Forwarded-For", fmt.Sprintf("198.51.100.%d", i+1))
		wantProblem(t, status, header, raw, http.StatusUnauthorized, "unauthenticated")
	}
	status, header, raw := e.tryLogin(t, "nobody20@barrage.test", "wrong password", "X-Forwarded-For", "203.0.113.99")
	wantRateLimited(t, status, header, raw)
	if n := e.count(t, "SELECT count(*) FROM audit_log WHERE action = 'auth.login_failed'"); n != 20 {
		t.Errorf("%d failed sign-ins audited, want 20: the 21st must be refused before it is checked", n)
	}
	if n := e.count(t, "SELECT count(DISTINCT client) FROM login_failures"); n != 1 {
		t.Errorf("failures were counted against %d clients, want 1 (the peer, not X-Forwarded-For)", n)
	}
	// The right password is refused too, from this client: limited, not
	// checked.
	status, header, raw = e.tryLogin(t, testAdminEmail, testAdminPassword)
	wantRateLimited(t, status, header, raw)
}

// TestSignInLimitedPerEmail: behind a trusted proxy, 20 sign-ins to one
// email from 20 addresses are checked; the 21st, from a fresh address, is
// refused for the email; other emails from that address still sign in.
func TestSignInLimitedPerEmail(t *testing.T) {
	t.Parallel()
	e := startAPI(t, loginLimited("BARRAGE_TRUSTED_PROXIES=127.0.0.1/32")...)
	victim := "nobody@barrage.test"
	for i := range 20 {
		status, header, raw := e.tryLogin(t, victim, "wrong password", "X-Forwarded-For", fmt.Sprintf("198.51.100.%d", i+1))
		wantProblem(t, status, header, raw, http.StatusUnauthorized, "unauthenticated")
	}
	status, header, raw := e.tryLogin(t, victim, "wrong password", "X-Forwarded-For", "203.0.113.1")
	wantRateLimited(t, status, header, raw)
	e.mustSignIn(t, testAdminEmail, testAdminPassword, "X-Forwarded-For", "203.0.113.1")
	if n := e.count(t, "SELECT count(DISTINCT client) FROM login_failures"); n != 20 {
		t.Errorf("failures of %d clients, want 20: a trusted proxy's X-Forwarded-For names the client", n)
	}
}

// TestFailedTokensAreLimitedBeforeLookup: bad bearer tokens spend the
// client's sign-in bucket; once it is empty that client is refused before
// its credentials are looked up, good ones included, while other clients
// are served.
func TestFailedTokensAreLimitedBeforeLookup(t *testing.T) {
	t.Parallel()
	e := startAPI(t, loginLimited("BARRAGE_TRUSTED_PROXIES=127.0.0.1/32")...)
	bad := "brg_" + "0000000000000000000000000000000000000000000"
	for range 20 {
		status, header, raw := e.do(t, http.MethodGet, "/me", bad, nil, "X-Forwarded-For", "198.51.100.7")
		wantProblem(t, status, header, raw, http.StatusUnauthorized, "unauthenticated")
	}
	status, header, raw := e.do(t, http.MethodGet, "/me", bad, nil, "X-Forwarded-For", "198.51.100.7")
	wantRateLimited(t, status, header, raw)
	status, header, raw = e.do(t, http.MethodGet, "/me", e.AdminToken, nil, "X-Forwarded-For", "198.51.100.7")
	wantRateLimited(t, status, header, raw)
	e.mustDo(t, http.StatusOK, http.MethodGet, "/me", e.AdminToken, nil, "X-Forwarded-For", "198.51.100.8")
	// Good credentials spend nothing.
	for range 30 {
		e.mustDo(t, http.StatusOK, http.MethodGet, "/me", e.AdminToken, nil, "X-Forwarded-For", "198.51.100.9")
	}
}

// TestConcurrentHashesAreCapped: with one password check allowed at once
// and that one held, the next sign-in waits its second and is refused with
// 429 and Retry-After, unchecked; the held one then completes.
func TestConcurrentHashesAreCapped(t *testing.T) {
	t.Parallel()
	entered, release := make(chan struct{}, 8), make(chan struct{})
	e := bootAPI(t, &apiEnv{AdminToken: auth.NewToken().Text, hashHold: func() {
		entered <- struct{}{}
		<-release
	}}, []string{"BARRAGE_MAX_CONCURRENT_HASHES=1"})
	first := make(chan int, 1)
	go func() {
		status, _, _, err := e.request(t.Context(), http.MethodPost, "/auth/login", "", map[string]string{"email": testAdminEmail, "password": testAdminPassword})
		if err != nil {
			t.Error(err)
		}
		first <- status
	}()
	select {
	case <-entered:
	case <-time.After(testTimeout):
		t.Fatal("the first sign-in never reached its password check")
	}
	started := time.Now()
	status, header, raw := e.tryLogin(t, testAdminEmail, testAdminPassword)
	wantRateLimited(t, status, header, raw)
	if header.Get("Retry-After") != "1" {
		t.Errorf("Retry-After = %q, want 1", header.Get("Retry-After"))
	}
	if waited := time.Since(started); waited < 900*time.Millisecond {
		t.Errorf("refused after %v; want it to wait about a second for a free check", waited)
	}
	if len(entered) != 0 {
		t.Error("the refused sign-in reached a password check")
	}
	close(release)
	if got := <-first; got != http.StatusOK {
		t.Errorf("the held sign-in = %d, want 200", got)
	}
	e.mustSignIn(t, testAdminEmail, testAdminPassword)
}

// TestStrangerCannotLockOutTheOwner: a stranger's failures from their
// address lock that address out of the account, not its owner signing in
// from theirs.
func TestStrangerCannotLockOutTheOwner(t *testing.T) {
	t.Parallel()
	e := startAPI(t, "BARRAGE_TRUSTED_PROXIES=127.0.0.1/32")
	stranger, owner := []string{"X-Forwarded-For", "203.0.113.7"}, []string{"X-Forwarded-For", "198.51.100.2"}
	for range 5 {
		status, header, raw := e.tryLogin(t, testAdminEmail, "a guess", stranger...)
		wantProblem(t, status, header, raw, http.StatusUnauthorized, "unauthenticated")
	}
	status, header, raw := e.tryLogin(t, testAdminEmail, testAdminPassword, stranger...)
	wantRateLimited(t, status, header, raw)
	e.mustSignIn(t, testAdminEmail, testAdminPassword, owner...)
	if n := e.count(t, "SELECT count(*) FROM login_failures WHERE client = '203.0.113.7' AND locked_until > now()"); n != 1 {
		t.Errorf("%d locks of the stranger's address, want 1 (the owner's success resets only their own)", n)
	}
	if n := e.count(t, "SELECT count(*) FROM audit_log WHERE action = 'auth.locked' AND details->>'client' = '203.0.113.7'"); n != 1 {
		t.Errorf("%d auth.locked entries naming the stranger's address, want 1", n)
	}
}
