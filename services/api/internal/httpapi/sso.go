package httpapi

import (
	"crypto/subtle"
	"log/slog"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/reqlog"
	"github.com/barrage-dev/barrage/services/api/internal/sso"
)

// OIDC sign-in routes; they answer browsers with redirects, so they live
// outside the JSON contract of openapi.yaml.
const (
	OIDCLoginPath    = BasePath + "/auth/oidc/login"
	OIDCCallbackPath = BasePath + "/auth/oidc/callback"
	// oidcCookie holds "state.nonce" between the redirect to the provider
	// and the callback.
	oidcCookie = "barrage_oidc"
	// oidcCookieTTL bounds how long a sign-in at the provider may take, in
	// seconds.
	oidcCookieTTL = 600
	// ssoFailedPage is where a failed sign-in lands: the sign-in page,
	// told why in general terms.
	ssoFailedPage = "/sign-in?sso=failed"
)

// ssoRoutes serves OIDC sign-in through p.
type ssoRoutes struct {
	p            *sso.Provider
	auth         *auth.Authenticator
	log          *slog.Logger
	secureCookie bool
	sessionTTL   int // seconds
}

// cookie returns a cookie of the sign-in flow, scoped to its routes.
func (s *ssoRoutes) cookie(c *gin.Context, name, value, path string, maxAge int) *http.Cookie {
	return &http.Cookie{ //nolint:gosec // Secure per request (secureRequest), HttpOnly and SameSite=Lax set
		Name: name, Value: value, Path: path, MaxAge: maxAge,
		HttpOnly: true, Secure: secureRequest(s.secureCookie, c), SameSite: http.SameSiteLaxMode,
	}
}

// login redirects the browser to the provider.
func (s *ssoRoutes) login(c *gin.Context) {
	url, state, nonce := s.p.Start()
	http.SetCookie(c.Writer, s.cookie(c, oidcCookie, state+"."+nonce, OIDCCallbackPath, oidcCookieTTL))
	c.Redirect(http.StatusFound, url)
}

// callback finishes the sign-in: the state must match the cookie's, the
// provider's ID token must verify; then a session starts as with a
// password and the browser goes to the dashboard.
func (s *ssoRoutes) callback(c *gin.Context) {
	http.SetCookie(c.Writer, s.cookie(c, oidcCookie, "", OIDCCallbackPath, -1))
	fail := func(reason string, err error) {
		attrs := []any{slog.String("request_id", reqlog.FromGin(c)), slog.String("reason", reason)}
		if err != nil {
			attrs = append(attrs, slog.Any("err", err))
		}
		s.log.WarnContext(c, "oidc sign-in failed", attrs...)
		c.Redirect(http.StatusFound, ssoFailedPage)
	}
	saved, err := c.Cookie(oidcCookie)
	state, nonce, ok := strings.Cut(saved, ".")
	if err != nil || !ok || state == "" || subtle.ConstantTimeCompare([]byte(state), []byte(c.Query("state"))) != 1 {
		fail("state missing or not this browser's", nil)
		return
	}
	if e := c.Query("error"); e != "" {
		fail("the provider refused: "+e, nil)
		return
	}
	id, err := s.p.Finish(c.Request.Context(), c.Query("code"), nonce)
	if err != nil {
		fail("ID token", err)
		return
	}
	old, _ := c.Cookie(auth.SessionCookie)
	secret, _, err := s.auth.SignInVerified(c.Request.Context(), id.Email, id.Name, old)
	if err != nil {
		fail("session", err)
		return
	}
	http.SetCookie(c.Writer, s.cookie(c, auth.SessionCookie, secret.Text, "/", s.sessionTTL))
	c.Redirect(http.StatusFound, "/")
}
