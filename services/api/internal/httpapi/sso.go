package httpapi

import (
	"context"
	"crypto/subtle"
	"log/slog"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/reqlog"
	"github.com/barrage-dev/barrage/services/api/internal/sso"
)

// OIDC sign-in routes; they answer browsers with redirects, so they live
// outside the JSON contract of openapi.yaml (POST /auth/oidc/link, which
// starts linking an identity to a signed-in user, is in it).
const (
	OIDCLoginPath    = BasePath + "/auth/oidc/login"
	OIDCCallbackPath = BasePath + "/auth/oidc/callback"
	// oidcCookie holds the flow between the redirect to the provider and
	// the callback: "state.nonce.verifier.mode.user".
	oidcCookie = "barrage_oidc"
	// oidcCookieTTL bounds how long a sign-in at the provider may take, in
	// seconds.
	oidcCookieTTL = 600
	// ssoFailedPage is where a failed sign-in lands: the sign-in page,
	// told why in general terms.
	ssoFailedPage = "/sign-in?sso=failed"
	// ssoLinkedPage and ssoLinkFailedPage are where a link flow lands.
	ssoLinkedPage     = "/?sso=linked"
	ssoLinkFailedPage = "/?sso=link-failed"
)

// Modes of an OIDC flow.
const (
	flowSignIn = "signin"
	flowLink   = "link"
)

// ssoRoutes serves OIDC sign-in and identity linking through p.
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

// start begins a flow of mode for user (uuid.Nil when signing in) and
// returns the provider URL and the flow cookie to set.
func (s *ssoRoutes) start(c *gin.Context, mode string, user uuid.UUID) (string, *http.Cookie) {
	url, f := s.p.Start()
	value := strings.Join([]string{f.State, f.Nonce, f.Verifier, mode, user.String()}, ".")
	return url, s.cookie(c, oidcCookie, value, OIDCCallbackPath, oidcCookieTTL)
}

// login redirects the browser to the provider.
func (s *ssoRoutes) login(c *gin.Context) {
	url, flow := s.start(c, flowSignIn, uuid.Nil)
	http.SetCookie(c.Writer, flow)
	c.Redirect(http.StatusFound, url)
}

// savedFlow is a flow cookie read back.
type savedFlow struct {
	sso.Flow
	mode string
	user uuid.UUID
}

// readFlow reads the flow cookie; false when it is missing or malformed.
func readFlow(c *gin.Context) (savedFlow, bool) {
	saved, err := c.Cookie(oidcCookie)
	parts := strings.Split(saved, ".")
	if err != nil || len(parts) != 5 || parts[0] == "" || parts[2] == "" {
		return savedFlow{}, false
	}
	user, err := uuid.Parse(parts[4])
	if err != nil || (parts[3] != flowSignIn && parts[3] != flowLink) {
		return savedFlow{}, false
	}
	return savedFlow{Flow: sso.Flow{State: parts[0], Nonce: parts[1], Verifier: parts[2]}, mode: parts[3], user: user}, true
}

// callback finishes a flow: the state must match the cookie's, the
// provider's ID token must verify (with the PKCE verifier); then a sign-in
// starts a session for the user linked to the identity, as with a
// password, or a link flow links it to the signed-in user who started it.
func (s *ssoRoutes) callback(c *gin.Context) {
	http.SetCookie(c.Writer, s.cookie(c, oidcCookie, "", OIDCCallbackPath, -1))
	failTo := ssoFailedPage
	fail := func(reason string, err error) {
		attrs := []any{slog.String("request_id", reqlog.FromGin(c)), slog.String("reason", reason)}
		if err != nil {
			attrs = append(attrs, slog.Any("err", err))
		}
		s.log.WarnContext(c, "oidc sign-in failed", attrs...)
		c.Redirect(http.StatusFound, failTo)
	}
	flow, ok := readFlow(c)
	if flow.mode == flowLink {
		failTo = ssoLinkFailedPage
	}
	if !ok || subtle.ConstantTimeCompare([]byte(flow.State), []byte(c.Query("state"))) != 1 {
		fail("state missing or not this browser's", nil)
		return
	}
	if e := c.Query("error"); e != "" {
		fail("the provider refused: "+e, nil)
		return
	}
	id, err := s.p.Finish(c.Request.Context(), c.Query("code"), flow.Flow)
	if err != nil {
		fail("ID token", err)
		return
	}
	ext := auth.ExternalIdentity{Issuer: id.Issuer, Subject: id.Subject, Email: id.Email, Name: id.Name}
	old, _ := c.Cookie(auth.SessionCookie)
	if flow.mode == flowLink {
		if err := s.link(c.Request.Context(), old, flow.user, ext); err != nil {
			fail("link", err)
			return
		}
		c.Redirect(http.StatusFound, ssoLinkedPage)
		return
	}
	secret, _, err := s.auth.SignInExternal(c.Request.Context(), ext, s.p.AutoProvision, old)
	if err != nil {
		fail("session", err)
		return
	}
	http.SetCookie(c.Writer, s.cookie(c, auth.SessionCookie, secret.Text, "/", s.sessionTTL))
	c.Redirect(http.StatusFound, "/")
}

// link links ext to the user of the session cookie, who must be the user
// who started the flow.
func (s *ssoRoutes) link(ctx context.Context, cookie string, user uuid.UUID, ext auth.ExternalIdentity) error {
	p, err := s.auth.Authenticate(ctx, "", cookie)
	if err != nil {
		return err //nolint:wrapcheck // logged as is
	}
	if p.UserID != user {
		return apperr.New(apperr.Forbidden, "the link was started by another user")
	}
	return s.auth.LinkExternal(ctx, p, ext) //nolint:wrapcheck // logged as is
}

// StartOidcLink implements POST /auth/oidc/link.
func (s *server) StartOidcLink(ctx context.Context, _ StartOidcLinkRequestObject) (StartOidcLinkResponseObject, error) {
	c := ginContext(ctx)
	p := principal(requestContext(ctx))
	if p.SessionID == uuid.Nil {
		return nil, apperr.New(apperr.Forbidden, "linking a single sign-on identity needs a dashboard session")
	}
	if s.ssoRoutes == nil || c == nil {
		return nil, apperr.New(apperr.Conflict, "single sign-on is not configured")
	}
	url, flow := s.ssoRoutes.start(c, flowLink, p.UserID)
	cookie := flow.String()
	return StartOidcLink200JSONResponse{Body: OidcLinkStart{Url: url}, Headers: StartOidcLink200ResponseHeaders{SetCookie: &cookie}}, nil
}
