package httpapi

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/reqlog"
)

// ProblemBase prefixes every problem type URI.
const ProblemBase = "https://barrage.dev/problems/"

// problemKind is the HTTP face of one error code.
type problemKind struct {
	status int
	slug   string
	title  string
}

// problemKinds maps each domain error code to its status and problem type:
// the one table of them (docs/architecture.md §6). The slugs are a documented, stable list.
func problemKinds(code apperr.Code) problemKind {
	switch code {
	case apperr.BadRequest:
		return problemKind{http.StatusBadRequest, "bad-request", "Bad request"}
	case apperr.Invalid:
		return problemKind{http.StatusUnprocessableEntity, "validation", "Invalid request"}
	case apperr.Unauthenticated:
		return problemKind{http.StatusUnauthorized, "unauthenticated", "Authentication required"}
	case apperr.Forbidden:
		return problemKind{http.StatusForbidden, "forbidden", "Forbidden"}
	case apperr.NotFound:
		return problemKind{http.StatusNotFound, "not-found", "Not found"}
	case apperr.Conflict:
		return problemKind{http.StatusConflict, "conflict", "Conflict"}
	case apperr.TooLarge:
		return problemKind{http.StatusRequestEntityTooLarge, "payload-too-large", "Request body too large"}
	case apperr.UnsupportedMedia:
		return problemKind{http.StatusUnsupportedMediaType, "unsupported-media-type", "Unsupported media type"}
	case apperr.RateLimited:
		return problemKind{http.StatusTooManyRequests, "rate-limited", "Too many requests"}
	case apperr.QuotaExceeded:
		return problemKind{http.StatusTooManyRequests, "quota-exceeded", "Quota exceeded"}
	case apperr.Unavailable:
		return problemKind{http.StatusServiceUnavailable, "unavailable", "Service unavailable"}
	default:
		return problemKind{http.StatusInternalServerError, "internal", "Internal error"}
	}
}

// writeProblem answers with err as RFC 9457 problem details. Errors without
// a domain code are internal: the caller sees a generic detail and the
// request id, the log gets the error.
func writeProblem(c *gin.Context, log *slog.Logger, err error) {
	var e *apperr.Error
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &e):
	case errors.As(err, &tooBig):
		e = apperr.New(apperr.TooLarge, "the request body is larger than %d bytes", tooBig.Limit)
	default:
		log.ErrorContext(c, "request failed", slog.String("request_id", reqlog.FromGin(c)),
			slog.String("route", c.FullPath()), slog.Any("err", err))
		e = apperr.New("", "the server failed to handle this request; quote request id %s when reporting it", reqlog.FromGin(c))
	}
	writeKind(c, problemKinds(e.Code), e)
}

// writeKind writes a problem of kind k with e's detail and fields.
func writeKind(c *gin.Context, k problemKind, e *apperr.Error) {
	p := Problem{Type: ProblemBase + k.slug, Title: k.title, Status: k.status}
	if e.Detail != "" {
		p.Detail = &e.Detail
	}
	instance := c.Request.URL.Path
	p.Instance = &instance
	if id := reqlog.FromGin(c); id != "" {
		p.RequestId = &id
	}
	if len(e.Fields) > 0 {
		fields := make([]FieldError, len(e.Fields))
		for i, f := range e.Fields {
			fields[i] = FieldError{Field: f.Field, Message: f.Message}
		}
		p.Errors = &fields
	}
	body, err := json.Marshal(p)
	if err != nil { // a Problem always marshals
		body = []byte(`{"type":"` + ProblemBase + `internal","title":"Internal error","status":500}`)
	}
	if k.status == http.StatusUnauthorized {
		c.Header("WWW-Authenticate", `Bearer realm="barrage"`)
	}
	if e.RetryAfter > 0 {
		c.Header("Retry-After", strconv.Itoa(int((e.RetryAfter+time.Second-1)/time.Second)))
	}
	c.Header("Content-Length", strconv.Itoa(len(body)))
	c.Data(k.status, "application/problem+json", body)
	c.Abort()
}
