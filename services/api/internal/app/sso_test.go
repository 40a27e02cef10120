package app

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
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
// idpCode with an ID token of the claims set for it, signed with key.
type fakeIDP struct {
	*httptest.Server
	key *rsa.PrivateKey

	mu     sync.Mutex
	claims map[string]any
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
	if r.PostForm.Get("code") != idpCode || r.PostForm.Get("redirect_uri") != idpRedirectURL {
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
	q := loc.Query()
	if q.Get("client_id") != idpClientID || q.Get("redirect_uri") != idpRedirectURL || q.Get("response_type") != "code" || q.Get("scope") != "openid email profile" {
		t.Errorf("authorize URL %s lacks the client, redirect, code flow or scopes", loc)
	}
	var flow *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == "barrage_oidc" {
			flow = c
		}
	}
	if flow == nil || !flow.HttpOnly || flow.Path != httpapi.OIDCCallbackPath || q.Get("state") == "" || q.Get("nonce") == "" {
		t.Fatalf("oidc login set flow cookie %v with state %q, nonce %q", flow, q.Get("state"), q.Get("nonce"))
	}
	return flow, q.Get("state"), q.Get("nonce")
}

// ssoCallback brings the browser back with code and state and returns
// where it is sent and the session cookie set, if any.
func ssoCallback(t *testing.T, e *apiEnv, flow *http.Cookie, state string) (string, *http.Cookie) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, e.URL+httpapi.OIDCCallbackPath+"?"+url.Values{"code": {idpCode}, "state": {state}}.Encode(), http.NoBody)
	if err != nil {
		t.Fatal(err)
	}
	req.AddCookie(flow)
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

func TestOIDCSignIn(t *testing.T) {
	t.Parallel()
	idp := startIDP(t)
	e := startAPI(t, "BARRAGE_OIDC_ISSUER="+idp.URL, "BARRAGE_OIDC_CLIENT_ID="+idpClientID, "BARRAGE_OIDC_CLIENT_SECRET="+idpClientSecret,
		"BARRAGE_OIDC_REDIRECT_URL="+idpRedirectURL, "BARRAGE_OIDC_EMAIL_DOMAIN=barrage.test")

	if m := decode[client.AuthMethods](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/auth/methods", "", nil)); !m.Password || !m.Oidc {
		t.Errorf("GET /auth/methods = %+v, want password and oidc", m)
	}

	// A new user is created on first sign-in, without password or project.
	flow, state, nonce := ssoStart(t, e, idp)
	idp.issue(map[string]any{"email": "Dana@barrage.test", "email_verified": true, "name": "Dana", "nonce": nonce})
	to, session := ssoCallback(t, e, flow, state)
	if to != "/" || session == nil || !session.HttpOnly || session.SameSite != http.SameSiteLaxMode || session.Path != "/" {
		t.Fatalf("callback sent the browser to %q with session %v, want / and an HttpOnly Lax session", to, session)
	}
	me := decode[client.Me](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/me", "", nil, withCookie(session)...))
	if me.User.Email != "Dana@barrage.test" || me.User.Name != "Dana" || me.User.IsAdmin || len(me.Projects) != 0 {
		t.Errorf("GET /me after OIDC = %+v, want Dana, no admin, no project", me)
	}
	if n := e.count(t, "SELECT count(*) FROM users WHERE email = 'Dana@barrage.test' AND password_hash IS NULL"); n != 1 {
		t.Errorf("%d password-less users Dana, want 1", n)
	}
	// The same person again is the same user; an existing user is matched by email.
	flow, state, nonce = ssoStart(t, e, idp)
	idp.issue(map[string]any{"email": "dana@BARRAGE.test", "email_verified": true, "nonce": nonce})
	if _, again := ssoCallback(t, e, flow, state); again == nil {
		t.Fatal("a second OIDC sign-in of Dana failed")
	}
	flow, state, nonce = ssoStart(t, e, idp)
	idp.issue(map[string]any{"email": testAdminEmail, "email_verified": true, "nonce": nonce})
	_, admin := ssoCallback(t, e, flow, state)
	if admin == nil {
		t.Fatal("the admin's OIDC sign-in failed")
	}
	if me := decode[client.Me](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/me", "", nil, withCookie(admin)...)); !me.User.IsAdmin {
		t.Errorf("the admin signed in with OIDC is %+v, want the existing org admin", me.User)
	}
	if n := e.count(t, "SELECT count(*) FROM users"); n != 2 {
		t.Errorf("%d users, want 2 (admin and Dana)", n)
	}
	if n := e.count(t, "SELECT count(*) FROM audit_log WHERE action = 'session.create' AND details->>'method' = 'oidc'"); n != 3 {
		t.Errorf("%d OIDC session.create entries, want 3", n)
	}
	if n := e.count(t, "SELECT count(*) FROM audit_log WHERE action = 'user.create' AND details->>'method' = 'oidc'"); n != 1 {
		t.Errorf("%d OIDC user.create entries, want 1", n)
	}

	eve := func(extra ...any) map[string]any {
		c := map[string]any{"email": "eve@barrage.test", "email_verified": true}
		for i := 0; i+1 < len(extra); i += 2 {
			c[extra[i].(string)] = extra[i+1]
		}
		return c
	}
	refused := []struct {
		name               string
		claims             map[string]any
		forgeState, replay bool
	}{
		{name: "another state", claims: eve(), forgeState: true},
		{name: "another nonce", claims: eve(), replay: true},
		{name: "unverified email", claims: eve("email_verified", false)},
		{name: "no email_verified", claims: map[string]any{"email": "eve@barrage.test"}},
		{name: "other domain", claims: eve("email", "eve@evil.example")},
		{name: "other audience", claims: eve("aud", "someone-else")},
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
		idp.issue(r.claims)
		if to, session := ssoCallback(t, e, flow, state); to != "/sign-in?sso=failed" || session != nil {
			t.Errorf("%s: callback sent the browser to %q with session %v, want /sign-in?sso=failed and none", r.name, to, session)
		}
	}
	if n := e.count(t, "SELECT count(*) FROM users WHERE email LIKE 'eve@%'"); n != 0 {
		t.Errorf("%d users eve created by refused sign-ins", n)
	}
}
