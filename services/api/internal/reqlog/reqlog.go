// Package reqlog gives every barrage-api request an id and writes one
// structured log line per request with log/slog.
//
// The id comes from the caller's X-Request-Id header when it is well formed,
// else it is generated; it is echoed in the response and carried in the gin
// context and the request's context.Context so handlers and error responses
// can quote it. The log line records what was asked and how it was answered,
// never credentials: no headers, no query string, no bodies. This package is
// not an access-log format for humans, nor a tracing system.
package reqlog

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/pkg/wire"
)

const (
	// Header is the request and response header that carries the request id.
	Header = "X-Request-Id"
	// PrincipalKey is the gin context key under which a later middleware may
	// store the authenticated caller as a string (a user or token id, never a
	// secret); the request's log line then includes it as "principal".
	PrincipalKey = "reqlog.principal"
	// MaxIDLen is the longest incoming request id that is kept.
	MaxIDLen = wire.MaxRequestIDLen
	// UnmatchedRoute is the route attribute of requests that matched no route.
	UnmatchedRoute = "unmatched"
)

// idKey keys the request id in both the gin context and context.Context.
type idKey struct{}

// Middleware assigns the request id, then, once the rest of the chain has
// run, logs the request on log: at Info below status 500, at Error from 500
// on. A nil log assigns ids without logging. Install it first, so that it
// sees the status written by recovery and error middleware.
func Middleware(log *slog.Logger) gin.HandlerFunc {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return func(c *gin.Context) {
		start := time.Now()
		id := c.GetHeader(Header)
		if !ValidID(id) {
			id = uuid.NewString()
		}
		c.Header(Header, id)
		c.Set(idKey{}, id)
		c.Request = c.Request.WithContext(context.WithValue(c.Request.Context(), idKey{}, id))

		c.Next()

		status := c.Writer.Status()
		level := slog.LevelInfo
		if status >= http.StatusInternalServerError {
			level = slog.LevelError
		}
		log.LogAttrs(c.Request.Context(), level, "http request", attrs(c, id, status, time.Since(start))...)
	}
}

// attrs are the attributes of a request's log line.
func attrs(c *gin.Context, id string, status int, elapsed time.Duration) []slog.Attr {
	route := c.FullPath()
	if route == "" {
		route = UnmatchedRoute
	}
	out := []slog.Attr{
		slog.String("request_id", id),
		slog.String("method", c.Request.Method),
		slog.String("route", route),
		slog.String("path", c.Request.URL.Path), // never RawQuery: it may hold secrets
		slog.Int("status", status),
		slog.Float64("duration_ms", float64(elapsed)/float64(time.Millisecond)),
		slog.Int("bytes_out", max(c.Writer.Size(), 0)),
		slog.String("client_ip", c.ClientIP()),
	}
	if p, ok := c.Get(PrincipalKey); ok {
		if s, ok := p.(string); ok && s != "" {
			out = append(out, slog.String("principal", s))
		}
	}
	return out
}

// ID returns the request id Middleware stored in ctx, or "" if there is none.
// ctx may be a request's context or, with gin's ContextWithFallback, the
// *gin.Context itself.
func ID(ctx context.Context) string {
	id, _ := ctx.Value(idKey{}).(string)
	return id
}

// FromGin returns the id of the request c is serving, or "" if Middleware
// has not run.
func FromGin(c *gin.Context) string {
	if v, ok := c.Get(idKey{}); ok {
		if id, ok := v.(string); ok {
			return id
		}
	}
	if c.Request == nil {
		return ""
	}
	return ID(c.Request.Context())
}

// ValidID reports whether an incoming request id may be kept: 1 to MaxIDLen
// characters of A-Z, a-z, 0-9, '.', '_' and '-'. Anything else could forge
// log lines or bloat them, and is replaced by a generated id. The same
// rule holds the id where it travels to the agents (pkg/wire).
func ValidID(id string) bool { return wire.ValidRequestID(id) }
