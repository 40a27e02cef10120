package app

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/coreos/go-oidc/v3/oidc/oidctest"

	"github.com/barrage-dev/barrage/services/api/client"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/httpapi"
)

// The client barrage-api is to the fake identity provider.
const (
	idpClientID     = "barrage"
	idpClientSecret = "client secret of barrage"
	idpRedirectURL  = "https://barrage.example/api/v1/auth/oidc/callback"
	idpCode         = "the-one-code"
)

// fakeIDP is a minimal OpenID Connect provider in this process:
// discovery and keys (oidctest.Server) and a token endpoint that answers
// idpCode with an ID token of the claims set for it, signed with key,
// only when the request's PKCE code_verifier matches the S256 challenge
// of the authorization request (RFC 7636 §4.6).
type fakeIDP struct {
	*httptest.Server
	key *rsa.PrivateKey

	mu     sync.Mutex
	claims map[string]any
	// challenge is the PKCE S256 challenge of the last authorization
	// request; verifiers are the code_verifier values the token endpoint
	// accepted.
	challenge string
	verifiers []string
}

// startIDP starts a fakeIDP; it stops when t ends.
func startIDP(t *testing.T) *fakeIDP {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	idp := &fakeIDP{key: key}
	disc := &oidctest.Server{PublicKeys: []oidctest.PublicKey{{PublicKey: key.Public(), KeyID: "k1", Algorithm: oidc.RS256}}}
	mux := http.NewServeMux()
	mux.Handle("/", disc)
	mux.HandleFunc("POST /token", idp.token)
	idp.Server = httptest.NewServer(mux)
	t.Cleanup(idp.Close)
	disc.SetIssuer(idp.URL)
	return idp
}

// issue sets the claims of the next ID token; iss, aud, sub, iat and exp
// are added.
func (p *fakeIDP) issue(claims map[string]any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.claims = map[string]any{
		"iss": p.URL, "aud": idpClientID, "sub": "subject-1",
		"iat": time.Now().Unix(), "exp": time.Now().Add(5 * time.Minute).Unix(),
	}
	for k, v := range claims {
		p.claims[k] = v
	}
}

// token is the token endpoint: the client's credentials, the code and the
// redirect URL must be the expected ones.
func (p *fakeIDP) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	id, secret, ok := r.BasicAuth()
	if !ok {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	if id != idpClientID || secret != idpClientSecret {
		http.Error(w, `{"error":"invalid_client"}`, http.StatusUnauthorized)
		return
	}
	verifier := r.PostForm.Get("code_verifier")
	sum := sha256.Sum256([]byte(verifier))
	p.mu.Lock()
	pkce := verifier != "" && base64.RawURLEncoding.EncodeToString(sum[:]) == p.challenge
	if pkce {
		p.verifiers = append(p.verifiers, verifier)
	}
	p.mu.Unlock()
	if r.PostForm.Get("code") != idpCode || r.PostForm.Get("redirect_uri") != idpRedirectURL || !pkce {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"error":"invalid_grant"}`))
		return
	}
	p.mu.Lock()
	raw, err := json.Marshal(p.claims)
	p.mu.Unlock()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"access_token": "at", "token_type": "Bearer", "expires_in": 300,
		"id_token": oidctest.SignIDToken(p.key, "k1", oidc.RS256, string(raw)),
	})
}

// ssoBrowser is a browser that does not follow redirects.
func ssoBrowser() *http.Client {
	return &http.Client{
		Timeout:       testTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// ssoStart starts a sign-in and returns the flow cookie, the state and
// the nonce the provider was sent.
func ssoStart(t *testing.T, e *apiEnv, idp *fakeIDP) (*http.Cookie, string, string) {
	t.Helper()
	resp, err := ssoBrowser().Get(e.URL + httpapi.OIDCLoginPath)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	loc, err := url.Parse(resp.Header.Get("Location"))
	if resp.StatusCode != http.StatusFound || err != nil || loc.Scheme+"://"+loc.Host != idp.URL || loc.Path != "/auth" {
		t.Fatalf("oidc login = %d to %q, want 302 to %s/auth", resp.StatusCode, resp.Header.Get("Location"), idp.URL)
	}
	return idp.authorized(t, loc, resp.Cookies())
}

// authorized checks the authorization URL a flow sent the browser to
// (client, redirect, code flow, scopes, PKCE S256 challenge), gives the
// challenge to the provider, and returns the flow cookie, state and nonce.
func (p *fakeIDP) authorized(t *testing.T, loc *url.URL, cookies []*http.Cookie) (*http.Cookie, string, string) {
	t.Helper()
	q := loc.Query()
	if q.Get("client_id") != idpClientID || q.Get("redirect_uri") != idpRedirectURL || q.Get("response_type") != "code" || q.Get("scope") != "openid email profile" {
		t.Errorf("authorize URL %s lacks the client, redirect, code flow or scopes", loc)
	}
	if q.Get("code_challenge_method") != "S256" || len(q.Get("code_challenge")) != 43 {
		t.Errorf("authorize URL %s has no PKCE S256 challenge", loc)
	}
	p.mu.Lock()
	p.challenge = q.Get("code_challenge")
	p.mu.Unlock()
	var flow *http.Cookie
	for _, c := range cookies {
		if c.Name == "barrage_oidc" {
			flow = c
		}
	}
	if flow == nil || !flow.HttpOnly || flow.Path != httpapi.OIDCCallbackPath || q.Get("state") == "" || q.Get("nonce") == "" {
		t.Fatalf("oidc flow set flow cookie %v with state %q, nonce %q", flow, q.Get("state"), q.Get("nonce"))
	}
	if strings.Contains(flow.Value, q.Get("code_challenge")) {
		t.Error("the flow cookie holds the challenge; it must hold the verifier")
	}
	return flow, q.Get("state"), q.Get("nonce")
}

// ssoCallback brings the browser back with code and state and returns
// where it is sent and the session cookie set, if any.
func ssoCallback(t *testing.T, e *apiEnv, flow *http.Cookie, state string, more ...*http.Cookie) (string, *http.Cookie) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, e.URL+httpapi.OIDCCallbackPath+"?"+url.Values{"code": {idpCode}, "state": {state}}.Encode(), http.NoBody)
	if err != nil {
		t.Fatal(err)
	}
	req.AddCookie(flow)
	for _, c := range more {
		req.AddCookie(c)
	}
	resp, err := ssoBrowser().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusFound {
		t.Fatalf("oidc callback = %d, want 302", resp.StatusCode)
	}
	for _, c := range resp.Cookies() {
		if c.Name == auth.SessionCookie && c.Value != "" {
			return resp.Header.Get("Location"), c
		}
	}
	return resp.Header.Get("Location"), nil
}

// ssoEnv starts a server that signs in through idp; extra settings
// (BARRAGE_OIDC_AUTO_PROVISION) are added.
func ssoEnv(t *testing.T, idp *fakeIDP, extra ...string) *apiEnv {
	t.Helper()
	return startAPI(t, append([]string{"BARRAGE_OIDC_ISSUER=" + idp.URL, "BARRAGE_OIDC_CLIENT_ID=" + idpClientID,
		"BARRAGE_OIDC_CLIENT_SECRET=" + idpClientSecret, "BARRAGE_OIDC_REDIRECT_URL=" + idpRedirectURL,
		"BARRAGE_OIDC_EMAIL_DOMAIN=barrage.test"}, extra...)...)
}

// ssoSignIn runs one sign-in whose ID token has claims (and the flow's
// nonce) and returns where the browser lands and its session, if any.
func ssoSignIn(t *testing.T, e *apiEnv, idp *fakeIDP, claims map[string]any) (string, *http.Cookie) {
	t.Helper()
	flow, state, nonce := ssoStart(t, e, idp)
	claims["nonce"] = nonce
	idp.issue(claims)
	return ssoCallback(t, e, flow, state)
}

// TestOIDCSignIn: with auto-provisioning on, a new identity becomes a new
// user, and the same issuer and subject is the same user whatever email it
// reports; an identity whose email is an existing user's does not get into
// that user's account; the PKCE verifier goes with the code.
func TestOIDCSignIn(t *testing.T) {
	t.Parallel()
	idp := startIDP(t)
	e := ssoEnv(t, idp, "BARRAGE_OIDC_AUTO_PROVISION=true")

	if m := decode[client.AuthMethods](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/auth/methods", "", nil)); !m.Password || !m.Oidc {
		t.Errorf("GET /auth/methods = %+v, want password and oidc", m)
	}

	// A new identity is a new user, without password or project.
	to, session := ssoSignIn(t, e, idp, map[string]any{"sub": "dana-1", "email": "Dana@barrage.test", "email_verified": true, "name": "Dana"})
	if to != "/" || session == nil || !session.HttpOnly || session.SameSite != http.SameSiteLaxMode || session.Path != "/" {
		t.Fatalf("callback sent the browser to %q with session %v, want / and an HttpOnly Lax session", to, session)
	}
	me := decode[client.Me](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/me", "", nil, withCookie(session)...))
	if me.User.Email != "Dana@barrage.test" || me.User.Name != "Dana" || me.User.IsAdmin || len(me.Projects) != 0 {
		t.Errorf("GET /me after OIDC = %+v, want Dana, no admin, no project", me)
	}
	if n := e.count(t, `SELECT count(*) FROM users u JOIN user_identities i ON i.user_id = u.id
		WHERE u.email = 'Dana@barrage.test' AND u.password_hash IS NULL AND i.issuer = $1 AND i.subject = 'dana-1'`, idp.URL); n != 1 {
		t.Errorf("%d password-less users Dana linked to (issuer, dana-1), want 1", n)
	}
	// The same subject is the same user, whatever email it reports now.
	if _, again := ssoSignIn(t, e, idp, map[string]any{"sub": "dana-1", "email": "dana.new@barrage.test", "email_verified": true}); again == nil {
		t.Fatal("a second OIDC sign-in of Dana's subject failed")
	} else if again := decode[client.Me](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/me", "", nil, withCookie(again)...)); again.User.Id != me.User.Id {
		t.Errorf("Dana's subject signed in as %+v, want Dana %s", again.User, me.User.Id)
	}
	if n := e.count(t, "SELECT count(*) FROM users WHERE email = 'Dana@barrage.test'"); n != 1 {
		t.Errorf("%d users Dana@barrage.test, want 1 (the email stays as first linked)", n)
	}

	// Another subject with the admin's email, or with Dana's, gets into
	// neither account, and no user is created for it.
	for _, email := range []string{testAdminEmail, "dana@BARRAGE.test"} {
		to, s := ssoSignIn(t, e, idp, map[string]any{"sub": "mallory", "email": email, "email_verified": true})
		if to != "/sign-in?sso=failed" || s != nil {
			t.Errorf("subject mallory with email %s: sent to %q with session %v, want /sign-in?sso=failed and none", email, to, s)
		}
	}
	if n := e.count(t, "SELECT count(*) FROM users"); n != 2 {
		t.Errorf("%d users, want 2 (admin and Dana)", n)
	}
	if n := e.count(t, "SELECT count(*) FROM user_identities WHERE subject = 'mallory'"); n != 0 {
		t.Errorf("%d identities of mallory linked, want 0", n)
	}
	if n := e.count(t, "SELECT count(*) FROM audit_log WHERE action = 'session.create' AND details->>'method' = 'oidc'"); n != 2 {
		t.Errorf("%d OIDC session.create entries, want 2", n)
	}
	if n := e.count(t, "SELECT count(*) FROM audit_log WHERE action = 'user.create' AND details->>'method' = 'oidc'"); n != 1 {
		t.Errorf("%d OIDC user.create entries, want 1", n)
	}
	idp.mu.Lock()
	verifiers := len(idp.verifiers)
	idp.mu.Unlock()
	if verifiers != 4 {
		t.Errorf("the provider accepted %d PKCE verifiers, want one per exchange (4)", verifiers)
	}

	eve := func(extra ...any) map[string]any {
		c := map[string]any{"sub": "eve-1", "email": "eve@barrage.test", "email_verified": true}
		for i := 0; i+1 < len(extra); i += 2 {
			c[extra[i].(string)] = extra[i+1]
		}
		return c
	}
	refused := []struct {
		name                          string
		claims                        map[string]any
		forgeState, replay, forgePKCE bool
	}{
		{name: "another state", claims: eve(), forgeState: true},
		{name: "another nonce", claims: eve(), replay: true},
		{name: "another PKCE verifier", claims: eve(), forgePKCE: true},
		{name: "unverified email", claims: eve("email_verified", false)},
		{name: "no email_verified", claims: map[string]any{"sub": "eve-1", "email": "eve@barrage.test"}},
		{name: "other domain", claims: eve("email", "eve@evil.example")},
		{name: "other audience", claims: eve("aud", "someone-else")},
		{name: "no subject", claims: eve("sub", "")},
	}
	for _, r := range refused {
		flow, state, nonce := ssoStart(t, e, idp)
		r.claims["nonce"] = nonce
		if r.replay {
			r.claims["nonce"] = "replayed"
		}
		if r.forgeState {
			state = "forged"
		}
		if r.forgePKCE {
			// The cookie's verifier is replaced by another well-formed one:
			// its S256 is not the challenge the provider was sent.
			parts := strings.Split(flow.Value, ".")
			parts[2] = strings.Repeat("v", 43)
			flow = &http.Cookie{Name: flow.Name, Value: strings.Join(parts, "."), Path: flow.Path} //nolint:gosec // a test forging the flow cookie the server set; the attributes do not matter to it
		}
		idp.issue(r.claims)
		if to, session := ssoCallback(t, e, flow, state); to != "/sign-in?sso=failed" || session != nil {
			t.Errorf("%s: callback sent the browser to %q with session %v, want /sign-in?sso=failed and none", r.name, to, session)
		}
	}
	if n := e.count(t, "SELECT count(*) FROM users WHERE email LIKE 'eve@%'"); n != 0 {
		t.Errorf("%d users eve created by refused sign-ins", n)
	}
}

// TestOIDCRefusesUnknownIdentities: auto-provisioning is off by default, so
// an identity no user is linked to is refused and no user is created, even
// one whose email is an existing user's.
func TestOIDCRefusesUnknownIdentities(t *testing.T) {
	t.Parallel()
	idp := startIDP(t)
	e := ssoEnv(t, idp)
	for _, email := range []string{"newcomer@barrage.test", testAdminEmail} {
		to, s := ssoSignIn(t, e, idp, map[string]any{"sub": "sub-" + email, "email": email, "email_verified": true})
		if to != "/sign-in?sso=failed" || s != nil {
			t.Errorf("unknown identity with email %s: sent to %q with session %v, want /sign-in?sso=failed and none", email, to, s)
		}
	}
	if n := e.count(t, "SELECT count(*) FROM users"); n != 1 {
		t.Errorf("%d users, want only the admin", n)
	}
}

// ssoLink starts linking an identity from session and returns the flow
// cookie, state and nonce.
func ssoLink(t *testing.T, e *apiEnv, idp *fakeIDP, session *http.Cookie) (*http.Cookie, string, string) {
	t.Helper()
	status, header, raw := e.do(t, http.MethodPost, "/auth/oidc/link", "", nil, withCookie(session, "Sec-Fetch-Site", "same-origin")...)
	if status != http.StatusOK {
		t.Fatalf("POST /auth/oidc/link = %d, want 200; body %s", status, raw)
	}
	start := decode[client.OidcLinkStart](t, raw)
	loc, err := url.Parse(start.Url)
	if err != nil || loc.Scheme+"://"+loc.Host != idp.URL || loc.Path != "/auth" {
		t.Fatalf("link URL %q, want %s/auth", start.Url, idp.URL)
	}
	return idp.authorized(t, loc, (&http.Response{Header: header}).Cookies())
}

// TestOIDCLinkExistingAccount: an existing password user links an identity
// from their own session (the explicit step), then signs in with it; an
// identity linked to one user cannot be linked to another.
func TestOIDCLinkExistingAccount(t *testing.T) {
	t.Parallel()
	idp := startIDP(t)
	e := ssoEnv(t, idp)
	admin := e.mustSignIn(t, testAdminEmail, testAdminPassword)

	flow, state, nonce := ssoLink(t, e, idp, admin)
	idp.issue(map[string]any{"sub": "admin-at-idp", "email": "someone.else@barrage.test", "email_verified": true, "nonce": nonce})
	if to, s := ssoCallback(t, e, flow, state, admin); to != "/?sso=linked" || s != nil {
		t.Fatalf("link callback sent the browser to %q with session %v, want /?sso=linked and no new session", to, s)
	}
	if n := e.count(t, "SELECT count(*) FROM user_identities i JOIN users u ON u.id = i.user_id WHERE u.email = $1 AND i.subject = 'admin-at-idp'", testAdminEmail); n != 1 {
		t.Fatalf("%d links of admin-at-idp to the admin, want 1", n)
	}
	if n := e.count(t, "SELECT count(*) FROM audit_log WHERE action = 'user.identity_link'"); n != 1 {
		t.Errorf("%d user.identity_link entries, want 1", n)
	}
	_, s := ssoSignIn(t, e, idp, map[string]any{"sub": "admin-at-idp", "email": "someone.else@barrage.test", "email_verified": true})
	if s == nil {
		t.Fatal("the linked identity did not sign in")
	}
	if me := decode[client.Me](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/me", "", nil, withCookie(s)...)); me.User.Email != testAdminEmail || !me.User.IsAdmin {
		t.Errorf("the linked identity signed in as %+v, want the admin", me.User)
	}

	// Without the session that started it, the link does not happen; an
	// identity linked to the admin cannot be linked to Bob.
	e.mustDo(t, http.StatusCreated, http.MethodPost, "/users", e.AdminToken, map[string]any{"email": "bob@barrage.test", "password": memberPassword})
	bob := e.mustSignIn(t, "bob@barrage.test", memberPassword)
	flow, state, nonce = ssoLink(t, e, idp, bob)
	idp.issue(map[string]any{"sub": "bob-at-idp", "email": "bob@barrage.test", "email_verified": true, "nonce": nonce})
	if to, _ := ssoCallback(t, e, flow, state, admin); to != "/?sso=link-failed" {
		t.Errorf("a link started by bob, finished with the admin's session, sent the browser to %q, want /?sso=link-failed", to)
	}
	flow, state, nonce = ssoLink(t, e, idp, bob)
	idp.issue(map[string]any{"sub": "admin-at-idp", "email": "bob@barrage.test", "email_verified": true, "nonce": nonce})
	if to, _ := ssoCallback(t, e, flow, state, bob); to != "/?sso=link-failed" {
		t.Errorf("linking the admin's identity to bob sent the browser to %q, want /?sso=link-failed", to)
	}
	if n := e.count(t, "SELECT count(*) FROM user_identities"); n != 1 {
		t.Errorf("%d identities linked, want only the admin's", n)
	}

	// Bob links his own identity; disabled, he cannot sign in with it.
	flow, state, nonce = ssoLink(t, e, idp, bob)
	idp.issue(map[string]any{"sub": "bob-at-idp", "email": "bob@barrage.test", "email_verified": true, "nonce": nonce})
	if to, _ := ssoCallback(t, e, flow, state, bob); to != "/?sso=linked" {
		t.Fatalf("bob linking his identity sent the browser to %q, want /?sso=linked", to)
	}
	e.mustDo(t, http.StatusOK, http.MethodPatch, "/users/bob@barrage.test", e.AdminToken, map[string]any{"disabled": true})
	if to, s := ssoSignIn(t, e, idp, map[string]any{"sub": "bob-at-idp", "email": "bob@barrage.test", "email_verified": true}); to != "/sign-in?sso=failed" || s != nil {
		t.Errorf("disabled bob's OIDC sign-in sent the browser to %q with session %v, want /sign-in?sso=failed and none", to, s)
	}
}
