// Package httpapi is barrage-api's REST layer: the gin server generated from
// openapi.yaml (openapi.gen.go, strict server), the handlers that map wire
// types to domain calls, request validation against the contract,
// authentication, limits and RFC 9457 problem details.
//
// It holds no business rules (the domain packages do) and never touches
// GORM (the store does).
package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/pkg/spec"
	api "github.com/barrage-dev/barrage/services/api"
	"github.com/barrage-dev/barrage/services/api/internal/agents"
	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/audit"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/echoprofiles"
	"github.com/barrage-dev/barrage/services/api/internal/export"
	"github.com/barrage-dev/barrage/services/api/internal/imports"
	"github.com/barrage-dev/barrage/services/api/internal/live"
	"github.com/barrage-dev/barrage/services/api/internal/members"
	"github.com/barrage-dev/barrage/services/api/internal/projects"
	"github.com/barrage-dev/barrage/services/api/internal/remotewrite"
	"github.com/barrage-dev/barrage/services/api/internal/resultsync"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
	"github.com/barrage-dev/barrage/services/api/internal/searches"
	"github.com/barrage-dev/barrage/services/api/internal/testdefs"
	"github.com/barrage-dev/barrage/services/api/internal/tokens"
)

// Services are the domain services the handlers call.
type Services struct {
	Auth     *auth.Authenticator
	Projects *projects.Service
	Tests    *testdefs.Service
	Runs     *runs.Service
	Tokens   *tokens.Service
	Agents   *agents.Service
	// Measures reads intervals, shards, results and comparisons.
	Measures *runs.Measures
	// Live is the hub the event streams subscribe to; nil disables them.
	Live *live.Hub
	// Imports turns Fortio documents into runs.
	Imports *imports.Service
	// Sync manages sync sources and starts syncs.
	Sync *resultsync.Service
	// Export serves runs in Fortio's formats.
	Export *export.Service
	// Audit reads the audit log.
	Audit *audit.Service
	// Members manages project members and users.
	Members *members.Service
	// Searches starts and reads capacity searches.
	Searches *searches.Service
	// EchoProfiles manages echo fault profiles and the registered echoes.
	EchoProfiles *echoprofiles.Service
	// RemoteWrite manages the projects' Prometheus remote-write endpoints.
	RemoteWrite *remotewrite.Service
}

// server implements StrictServerInterface.
type server struct {
	svc          Services
	log          *slog.Logger
	secureCookie bool
	sessionTTL   int        // seconds
	sso          bool       // OIDC sign-in is configured
	ssoRoutes    *ssoRoutes // OIDC flows; nil when it is not configured
	redactor     spec.Redactor
	readOnly     bool // barrage-api -read-only
	// renders caches the seconds rendered for live streams.
	renders *live.Renders
	// signin limits sign-ins before the password is hashed (edge.go).
	signin signinLimits
	// streams bounds the live streams open at once; streamWriteTimeout
	// bounds each of their writes.
	streams            *live.Slots
	streamWriteTimeout time.Duration
	// writeTimeout is the server's, added to the waits of ?wait=.
	writeTimeout time.Duration
}

var _ StrictServerInterface = (*server)(nil)

// principalKey is the gin context key of the authenticated caller.
const principalKey = "barrage.principal"

// principalCtxKey keys the authenticated caller in the request's
// context.Context.
type principalCtxKey struct{}

// principal returns the caller that the auth middleware stored. Handlers of
// authenticated routes always have one; its absence is a wiring bug.
func principal(ctx context.Context) *auth.Principal {
	if p, ok := ctx.Value(principalCtxKey{}).(*auth.Principal); ok {
		return p
	}
	panic("httpapi: handler of an authenticated route ran without a principal")
}

// requestContext returns the context.Context of the request that ctx, the
// *gin.Context the strict server passes, serves. Gin reuses a Context for
// the next request once the handler returns, while database/sql may still
// read the context it was given from a goroutine of its own (Rows.awaitDone):
// handing it the gin.Context is a data race. Handlers pass the services this.
func requestContext(ctx context.Context) context.Context {
	if c, ok := ctx.(*gin.Context); ok && c.Request != nil {
		return c.Request.Context()
	}
	return ctx
}

// ginContext returns the gin context the strict server passes as ctx.
func ginContext(ctx context.Context) *gin.Context {
	c, _ := ctx.(*gin.Context)
	return c
}

// Login implements POST /auth/login.
func (s *server) Login(ctx context.Context, req LoginRequestObject) (LoginResponseObject, error) {
	c := ginContext(ctx)
	ctx = requestContext(ctx)
	old, client := "", ""
	if c != nil {
		old, _ = c.Cookie(auth.SessionCookie)
		client = c.ClientIP()
	}
	if err := s.signin.signIn(client, req.Body.Email); err != nil {
		return nil, err
	}
	secret, p, err := s.svc.Auth.SignIn(ctx, req.Body.Email, req.Body.Password, client, old)
	if err != nil {
		return nil, err
	}
	cookie := s.sessionCookie(c, secret.Text, s.sessionTTL).String()
	me, err := s.me(ctx, p)
	if err != nil {
		return nil, err
	}
	return Login200JSONResponse{Body: me, Headers: Login200ResponseHeaders{SetCookie: &cookie}}, nil
}

// sessionCookie returns the session cookie with value for maxAge seconds
// (negative clears it): HttpOnly, SameSite=Lax, Secure behind TLS (the
// request's own or, as configured, a proxy's).
func (s *server) sessionCookie(c *gin.Context, value string, maxAge int) *http.Cookie {
	return &http.Cookie{ //nolint:gosec // Secure per request (secureRequest), HttpOnly and SameSite=Lax set
		Name: auth.SessionCookie, Value: value, Path: "/", MaxAge: maxAge,
		HttpOnly: true, Secure: secureRequest(s.secureCookie, c), SameSite: http.SameSiteLaxMode,
	}
}

// secureRequest reports whether a cookie set in answer to c must be Secure.
func secureRequest(configured bool, c *gin.Context) bool {
	return configured || (c != nil && c.Request != nil && c.Request.TLS != nil)
}

// Logout implements POST /auth/logout.
func (s *server) Logout(ctx context.Context, _ LogoutRequestObject) (LogoutResponseObject, error) {
	c := ginContext(ctx)
	ctx = requestContext(ctx)
	if err := s.svc.Auth.SignOut(ctx, principal(ctx)); err != nil {
		return nil, err
	}
	if c != nil {
		http.SetCookie(c.Writer, s.sessionCookie(c, "", -1))
	}
	return Logout204Response{}, nil
}

// GetAuthMethods implements GET /auth/methods.
func (s *server) GetAuthMethods(context.Context, GetAuthMethodsRequestObject) (GetAuthMethodsResponseObject, error) {
	if s.readOnly {
		return GetAuthMethods200JSONResponse{ReadOnly: true}, nil
	}
	return GetAuthMethods200JSONResponse{Password: true, Oidc: s.sso}, nil
}

// LogoutAll implements POST /auth/logout-all.
func (s *server) LogoutAll(ctx context.Context, _ LogoutAllRequestObject) (LogoutAllResponseObject, error) {
	c := ginContext(ctx)
	ctx = requestContext(ctx)
	if _, err := s.svc.Auth.SignOutEverywhere(ctx, principal(ctx)); err != nil {
		return nil, err
	}
	if c != nil {
		c.Writer.Header().Del("Set-Cookie") // a rotated cookie of this request is revoked too
		http.SetCookie(c.Writer, s.sessionCookie(c, "", -1))
	}
	return LogoutAll204Response{}, nil
}

// maxMeProjects bounds the project list of /me.
const maxMeProjects = 200

// GetMe implements GET /me.
func (s *server) GetMe(ctx context.Context, _ GetMeRequestObject) (GetMeResponseObject, error) {
	ctx = requestContext(ctx)
	me, err := s.me(ctx, principal(ctx))
	if err != nil {
		return nil, err
	}
	return GetMe200JSONResponse(me), nil
}

// me describes the caller.
func (s *server) me(ctx context.Context, p *auth.Principal) (Me, error) {
	list, roles, err := s.svc.Projects.Roles(ctx, p, maxMeProjects)
	if err != nil {
		return Me{}, err
	}
	me := Me{User: userOut(p), Projects: make([]ProjectRole, len(list))}
	for i := range list {
		me.Projects[i] = ProjectRole{Project: s.projectOut(list[i]), Role: Role(roles[i])}
	}
	if p.TokenID != uuid.Nil {
		scope := TokenScope{Id: p.TokenID}
		if p.Scoped() {
			scope.ProjectId = &p.TokenProject
			if p.TokenRole.Valid() { // no role once its owner left the project
				role := Role(p.TokenRole)
				scope.Role = &role
			}
		}
		me.Token = &scope
	}
	return me, nil
}

// GetOpenAPI implements GET /openapi.yaml.
func (s *server) GetOpenAPI(context.Context, GetOpenAPIRequestObject) (GetOpenAPIResponseObject, error) {
	return GetOpenAPI200ApplicationyamlResponse{Body: bytes.NewReader(api.OpenAPI), ContentLength: int64(len(api.OpenAPI))}, nil
}

// ListAgents implements GET /agents.
func (s *server) ListAgents(ctx context.Context, _ ListAgentsRequestObject) (ListAgentsResponseObject, error) {
	ctx = requestContext(ctx)
	list, err := s.svc.Agents.List(ctx, principal(ctx))
	if err != nil {
		return nil, err
	}
	return ListAgents200JSONResponse{Items: mapSlice(list, agentOut)}, nil
}

// handlerError is the strict server's HandlerErrorFunc.
func (s *server) handlerError(c *gin.Context, err error) {
	writeProblem(c, s.log, err)
}

// requestError is the strict server's RequestErrorHandlerFunc: a body the
// validator let through but gin could not bind.
func (s *server) requestError(c *gin.Context, err error) {
	if fields := specDecodeFields(c.Request); len(fields) > 0 {
		writeProblem(c, s.log, &apperr.Error{Code: apperr.Invalid, Detail: "the request has invalid fields", Fields: fields})
		return
	}
	writeProblem(c, s.log, apperr.New(apperr.BadRequest, "the request body could not be read: %v", err))
}

// specDecodeFields names the fields of a body's spec that the schema lets
// through but that do not decode, such as a duration of "ten seconds", as
// pkg/spec reports them ("spec.duration"). It re-reads the body that the
// validator kept (GetBody) and returns nil when the spec is not at fault.
func specDecodeFields(r *http.Request) []apperr.FieldError {
	if r.GetBody == nil {
		return nil
	}
	rd, err := r.GetBody()
	if err != nil {
		return nil
	}
	defer rd.Close()
	var body struct {
		Spec json.RawMessage `json:"spec"`
	}
	var sp spec.Spec
	if json.NewDecoder(rd).Decode(&body) != nil || len(body.Spec) == 0 || json.Unmarshal(body.Spec, &sp) == nil {
		return nil
	}
	var ve *spec.ValidationError
	if _, err := spec.Parse(body.Spec); !errors.As(err, &ve) {
		return nil
	}
	fields := make([]apperr.FieldError, len(ve.Errors))
	for i, fe := range ve.Errors {
		fields[i] = apperr.FieldError{Field: "spec." + fe.Field, Message: fe.Message}
	}
	return fields
}
