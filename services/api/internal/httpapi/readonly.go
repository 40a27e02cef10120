package httpapi

import (
	"log/slog"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
)

// readOnlyWrites are the routes that change something although their
// method is safe: Fortio's REST run and stop start and stop load on GET,
// and the OIDC routes sign in.
func readOnlyWrites() []string {
	return []string{FortioRESTPath + "/run", FortioRESTPath + "/stop", OIDCLoginPath, OIDCCallbackPath}
}

// ReadOnlyAllows reports whether a read-only server serves method on route
// (a gin route, "" when none matched): safe methods, except on the routes
// that change something anyway.
func ReadOnlyAllows(method, route string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
	default:
		return false
	}
	for _, w := range readOnlyWrites() {
		if route == w {
			return false
		}
	}
	return true
}

// readOnlyGuard answers 403 to every request a read-only server does not
// serve, before authentication: nobody, not even an admin, changes anything.
func readOnlyGuard(log *slog.Logger) gin.HandlerFunc {
	return func(c *gin.Context) {
		if ReadOnlyAllows(c.Request.Method, c.FullPath()) {
			c.Next()
			return
		}
		writeProblem(c, log, apperr.New(apperr.Forbidden,
			"this server is read-only: it serves results, and starts, stops and changes nothing"))
	}
}

// AnonymousRoutes are the operations a read-only server serves without
// credentials: the dashboard's browse, result and compare views. The rest
// (members, users, agents, tokens, audit, sync) still need a token.
func AnonymousRoutes() []string {
	const b = BasePath
	return []string{
		b + "/me", b + "/projects", b + "/projects/:project", b + "/tests", b + "/tests/:test", b + "/tests/:test/trend",
		b + "/runs", b + "/runs/compare", b + "/runs/:run", b + "/runs/:run/intervals", b + "/runs/:run/shards",
		b + "/runs/:run/shards/intervals", b + "/runs/:run/events", b + "/runs/:run/result",
	}
}

// anonymous serves a read-only server's caller without credentials as the
// viewer of the projects that publish their results, on AnonymousRoutes.
func anonymous(c *gin.Context, o Options) {
	route := c.FullPath()
	allowed := false
	for _, r := range AnonymousRoutes() {
		allowed = allowed || r == route
	}
	if !allowed {
		writeProblem(c, o.Log, apperr.New(apperr.Unauthenticated, "this read-only server needs an API token for %s", route))
		return
	}
	p, err := o.Services.Projects.PublicViewer(c.Request.Context())
	if err != nil {
		writeProblem(c, o.Log, err)
		return
	}
	setPrincipal(c, p)
	c.Next()
}
