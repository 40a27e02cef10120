package httpapi

import (
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"mime"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/barrage-dev/barrage/pkg/spec"
	api "github.com/barrage-dev/barrage/services/api"
	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/live"
	"github.com/barrage-dev/barrage/services/api/internal/metrics"
	"github.com/barrage-dev/barrage/services/api/internal/ratelimit"
	"github.com/barrage-dev/barrage/services/api/internal/reqlog"
	"github.com/barrage-dev/barrage/services/api/internal/sso"
	"github.com/barrage-dev/barrage/services/api/internal/tracing"
)

// BasePath is where the REST API is mounted.
const BasePath = "/api/v1"

// Options wire the router.
type Options struct {
	// Log receives request logs and internal errors.
	Log *slog.Logger
	// Services are the domain services.
	Services Services
	// Metrics instruments requests and serves /metrics; nil disables both.
	Metrics *metrics.Metrics
	// Limiter limits requests per caller; nil for no limit.
	Limiter *ratelimit.Limiter
	// Ready reports whether the server can serve (/readyz).
	Ready func(ctx context.Context) error
	// MaxBodyBytes caps request bodies.
	MaxBodyBytes int64
	// SecureCookie marks the session cookie Secure (behind TLS).
	SecureCookie bool
	// SessionTTL is how long a dashboard session lasts.
	SessionTTL time.Duration
	// Dashboard is the built web UI served at / (index.html for client
	// routes); nil or without index.html serves none.
	Dashboard fs.FS
	// BaseURL is where clients reach the server, for the absolute URLs of
	// index.tsv; "" derives it from each request.
	BaseURL string
	// SSO signs users in through an OIDC provider at OIDCLoginPath; nil
	// disables it.
	SSO *sso.Provider
	// Redactor redacts the specs of tests in responses; the zero value
	// knows the built-in secret names only.
	Redactor spec.Redactor
	// ReadOnly serves results only (barrage-api -read-only): every write
	// is 403, nobody signs in, and callers without a token browse the
	// projects that publish their results (readonly.go).
	ReadOnly bool
	// TrustedProxies are the peers whose X-Forwarded-For, X-Real-IP,
	// X-Forwarded-Host and X-Forwarded-Proto are believed; none by
	// default, so a client cannot pick the address it is limited by.
	TrustedProxies []netip.Prefix
	// LoginLimiter limits sign-ins per client address and per email, and
	// failed authentications per client address, before any credential is
	// checked (edge.go); nil for no limit.
	LoginLimiter *ratelimit.Limiter
	// Streams bounds the live streams open at once; nil for no bound.
	Streams *live.Slots
	// StreamWriteTimeout bounds each write of a live stream; zero for no
	// deadline.
	StreamWriteTimeout time.Duration
	// WriteTimeout is the server's (http.Server.WriteTimeout); requests
	// that wait (?wait=, Fortio REST's run) get it on top of their wait.
	WriteTimeout time.Duration
	// Tracer, when it exports (barrage-api -otel-traces), gets a server
	// span of every request (package tracing); nil or off, none is made.
	Tracer *tracing.Tracing
	// MetricsToken, when set, is the bearer token /metrics requires.
	MetricsToken string
	// NoMetricsRoute leaves /metrics off this handler: it is served on a
	// listener of its own (MetricsHandler).
	NoMetricsRoute bool
	// FortioURLToken lets the Fortio REST routes take an API token in the
	// token query parameter, for webhook tools that cannot set headers;
	// off, only the Authorization header is read.
	FortioURLToken bool
}

// publicRoutes need no credentials.
func publicRoute(method, route string) bool {
	return (method == http.MethodPost && route == BasePath+"/auth/login") ||
		(method == http.MethodGet && (route == BasePath+"/openapi.yaml" || route == BasePath+"/auth/methods"))
}

// NewRouter returns the HTTP handler of barrage-api: /api/v1, /healthz,
// /readyz, /metrics and the dashboard at /.
func NewRouter(o Options) (http.Handler, error) {
	v, err := newValidator(api.OpenAPI, BasePath)
	if err != nil {
		return nil, err
	}
	gin.SetMode(gin.ReleaseMode)
	r := gin.New()
	r.HandleMethodNotAllowed = true
	r.ContextWithFallback = true
	if err := trustProxies(r, o.TrustedProxies); err != nil {
		return nil, err
	}
	r.Use(reqlog.Middleware(o.Log), keepDeadlines)
	if o.Tracer.Enabled() {
		r.Use(tracing.Middleware(o.Tracer.Tracer()))
	}
	if o.Metrics != nil {
		r.Use(o.Metrics.Middleware())
		if !o.NoMetricsRoute {
			r.GET("/metrics", gin.WrapH(MetricsHandler(o.Metrics, o.MetricsToken)))
		}
	}
	r.Use(recovery(o.Log), collectErrors(o.Log))
	if o.ReadOnly {
		r.Use(readOnlyGuard(o.Log))
	}
	serveUI := func(*gin.Context) bool { return false }
	if o.Dashboard != nil {
		serveUI = dashboard(o.Dashboard)
	}
	r.NoRoute(func(c *gin.Context) {
		if serveUI(c) {
			return
		}
		writeProblem(c, o.Log, apperr.New(apperr.NotFound, "no such endpoint: %s %s", c.Request.Method, c.Request.URL.Path))
	})
	r.NoMethod(func(c *gin.Context) {
		e := apperr.New("", "%s is not allowed on %s", c.Request.Method, c.Request.URL.Path)
		writeKind(c, problemKind{http.StatusMethodNotAllowed, "method-not-allowed", "Method not allowed"}, e)
	})
	r.GET("/healthz", func(c *gin.Context) { c.JSON(http.StatusOK, gin.H{"status": "ok"}) })
	r.GET("/readyz", readyz(o))
	data := fortioData(o)
	r.GET(FortioDataPath+"/:file", data)
	r.HEAD(FortioDataPath+"/:file", data)

	s := &server{svc: o.Services, log: o.Log, secureCookie: o.SecureCookie, sessionTTL: int(o.SessionTTL / time.Second),
		sso: o.SSO != nil, redactor: o.Redactor, readOnly: o.ReadOnly, renders: live.NewRenders(nil),
		signin: signinLimits{o.LoginLimiter}, streams: o.Streams, streamWriteTimeout: o.StreamWriteTimeout, writeTimeout: o.WriteTimeout}
	if s.streams == nil {
		s.streams = live.NewSlots(live.Limits{PerCaller: -1, PerRun: -1})
	}
	registerFortioREST(r, o, s)
	if o.SSO != nil {
		sr := &ssoRoutes{p: o.SSO, auth: o.Services.Auth, log: o.Log, secureCookie: o.SecureCookie, sessionTTL: s.sessionTTL}
		s.ssoRoutes = sr
		r.GET(OIDCLoginPath, rateLimit(o.Limiter), sr.login)
		r.GET(OIDCCallbackPath, rateLimit(o.Limiter), sr.callback)
	}
	group := r.Group(BasePath, authenticate(o), rateLimit(o.Limiter), bodyLimits(o.MaxBodyBytes), v.middleware,
		keepRawBody(http.MethodPost+" "+BasePath+"/imports"))
	handler := NewStrictHandlerWithOptions(s, nil, StrictGinServerOptions{
		RequestErrorHandlerFunc:  s.requestError,
		HandlerErrorFunc:         s.handlerError,
		ResponseErrorHandlerFunc: s.handlerError,
	})
	RegisterHandlersWithOptions(group, handler, GinServerOptions{
		ErrorHandler: func(c *gin.Context, err error, _ int) {
			writeProblem(c, o.Log, paramProblem(err))
		},
	})
	return r, nil
}

// paramProblem turns a parameter the generated wrapper could not bind
// ("Invalid format for parameter run: ...") into a field error.
func paramProblem(err error) error {
	msg := err.Error()
	rest, ok := strings.CutPrefix(msg, "Invalid format for parameter ")
	if !ok {
		return apperr.New(apperr.BadRequest, "%s", msg)
	}
	name, cause, _ := strings.Cut(rest, ":")
	if strings.Contains(cause, "UUID") {
		return apperr.Invalidf(name, "must be a UUID")
	}
	return apperr.Invalidf(name, "has an invalid format")
}

// readyz answers 200 when the server's dependencies answer.
func readyz(o Options) gin.HandlerFunc {
	return func(c *gin.Context) {
		ctx, cancel := context.WithTimeout(c, 2*time.Second)
		defer cancel()
		if o.Ready != nil {
			if err := o.Ready(ctx); err != nil {
				o.Log.WarnContext(c, "not ready", slog.Any("err", err))
				writeProblem(c, o.Log, apperr.New(apperr.Unavailable, "not ready: a dependency does not answer"))
				return
			}
		}
		c.JSON(http.StatusOK, gin.H{"status": "ready"})
	}
}

// recovery turns a panic into a 500 problem and logs it.
func recovery(log *slog.Logger) gin.HandlerFunc {
	return func(c *gin.Context) {
		defer func() {
			if v := recover(); v != nil {
				writeProblem(c, log, fmt.Errorf("panic: %v", v))
			}
		}()
		c.Next()
	}
}

// collectErrors writes the problem for an error a middleware recorded with
// c.Error and aborted on.
func collectErrors(log *slog.Logger) gin.HandlerFunc {
	return func(c *gin.Context) {
		c.Next()
		if len(c.Errors) > 0 && !c.Writer.Written() {
			writeProblem(c, log, c.Errors.Last().Err)
		}
	}
}

// authenticate stores the caller's Principal, or answers 401. Cookie
// sessions may not make cross-site writes.
func authenticate(o Options) gin.HandlerFunc {
	return func(c *gin.Context) {
		if publicRoute(c.Request.Method, c.FullPath()) {
			// Login CSRF: a cross-site page must not sign the browser in.
			if !sameOrigin(c.Request) {
				writeProblem(c, o.Log, apperr.New(apperr.Forbidden, "cross-site requests cannot sign in"))
				return
			}
			c.Next()
			return
		}
		authz := c.GetHeader("Authorization")
		cookie, _ := c.Cookie(auth.SessionCookie)
		if o.ReadOnly {
			if authz == "" {
				anonymous(c, o)
				return
			}
			cookie = "" // nobody signs in: sessions are not used
		}
		p, err := authenticateLimited(c, o, authz, cookie)
		if err != nil {
			writeProblem(c, o.Log, err)
			return
		}
		if authz == "" && !sameOrigin(c.Request) {
			writeProblem(c, o.Log, apperr.New(apperr.Forbidden, "cross-site requests cannot use the session cookie"))
			return
		}
		if authz == "" {
			secret, left, err := o.Services.Auth.Rotate(c.Request.Context(), p)
			if err != nil {
				writeProblem(c, o.Log, err)
				return
			}
			if secret.Text != "" {
				http.SetCookie(c.Writer, &http.Cookie{ //nolint:gosec // Secure per request (secureRequest), HttpOnly and SameSite=Lax set
					Name: auth.SessionCookie, Value: secret.Text, Path: "/", MaxAge: max(1, int(left/time.Second)),
					HttpOnly: true, Secure: secureRequest(o.SecureCookie, c), SameSite: http.SameSiteLaxMode,
				})
			}
		}
		setPrincipal(c, p)
		c.Next()
	}
}

// authenticateLimited checks the credentials of c under the sign-in
// limiter: a client that spent its bucket on failures is refused before
// they are looked up, and credentials that fail spend a token.
func authenticateLimited(c *gin.Context, o Options, authz, cookie string) (*auth.Principal, error) {
	limits, client := signinLimits{o.LoginLimiter}, c.ClientIP()
	if authz == "" && cookie == "" {
		return o.Services.Auth.Authenticate(c.Request.Context(), authz, cookie) //nolint:wrapcheck // domain errors
	}
	if err := limits.blocked(client); err != nil {
		return nil, err
	}
	p, err := o.Services.Auth.Authenticate(c.Request.Context(), authz, cookie)
	if apperr.Is(err, apperr.Unauthenticated) {
		limits.failed(client)
	}
	return p, err //nolint:wrapcheck // domain errors
}

// setPrincipal stores the caller of the request c serves.
func setPrincipal(c *gin.Context, p *auth.Principal) {
	c.Set(principalKey, p)
	c.Request = c.Request.WithContext(context.WithValue(c.Request.Context(), principalCtxKey{}, p))
	if !p.Anonymous() {
		c.Set(reqlog.PrincipalKey, p.UserID.String())
	}
}

// sameOrigin reports whether a cookie-authenticated request may proceed:
// safe methods always; writes only when the browser says the request is
// same-origin (Sec-Fetch-Site, or Origin matching Host).
func sameOrigin(r *http.Request) bool {
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return true
	}
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" {
		return site == "same-origin" || site == "none"
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true // not a browser: CSRF needs a browser to carry the cookie
	}
	u, err := url.Parse(origin)
	return err == nil && u.Host == r.Host
}

// rateLimit refuses callers over their request rate with 429 and
// Retry-After; the key is the user, or the client address before sign-in.
func rateLimit(l *ratelimit.Limiter) gin.HandlerFunc {
	return func(c *gin.Context) {
		if l == nil {
			c.Next()
			return
		}
		key := "ip:" + c.ClientIP()
		if v, ok := c.Get(principalKey); ok {
			key = "user:" + v.(*auth.Principal).UserID.String()
		}
		if ok, wait := l.Allow(key); !ok {
			secs := int(wait.Seconds() + 0.999)
			c.Header("Retry-After", strconv.Itoa(max(secs, 1)))
			c.Error(apperr.New(apperr.RateLimited, "too many requests; retry in %d s", max(secs, 1))) //nolint:errcheck // records only
			c.Abort()
			return
		}
		c.Next()
	}
}

// bodyLimits caps request bodies at max bytes (413) and requires JSON for
// any request that has one (415).
func bodyLimits(limit int64) gin.HandlerFunc {
	return func(c *gin.Context) {
		r := c.Request
		hasBody := r.ContentLength > 0 || (r.ContentLength < 0 && r.Body != nil && r.Body != http.NoBody)
		if !hasBody {
			c.Next()
			return
		}
		if r.ContentLength > limit {
			c.Error(apperr.New(apperr.TooLarge, "the request body is larger than %d bytes", limit)) //nolint:errcheck // records only
			c.Abort()
			return
		}
		mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
			c.Error(apperr.New(apperr.UnsupportedMedia, "request bodies must be application/json")) //nolint:errcheck // records only
			c.Abort()
			return
		}
		r.Body = http.MaxBytesReader(c.Writer, r.Body, limit)
		c.Next()
	}
}
