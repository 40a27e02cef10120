package tracing

import (
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/barrage-dev/barrage/services/api/internal/reqlog"
)

// Middleware starts a server span for every request that passes through
// it, a child of the caller's traceparent when it sends one, and puts it
// in the request's context so the handlers' spans (and a new run's
// dispatch) join its trace. The span is named "METHOD route" by the matched
// route template (c.FullPath), never the raw path, and carries
// http.request.method, http.route, http.response.status_code, url.path and
// the request id (package reqlog, so install it after reqlog.Middleware);
// a 5xx marks it an error.
func Middleware(tracer trace.Tracer) gin.HandlerFunc {
	return func(c *gin.Context) {
		ctx := traceContext().Extract(c.Request.Context(), propagation.HeaderCarrier(c.Request.Header))
		route := c.FullPath()
		method := methodName(c.Request.Method)
		name := method
		if route != "" {
			name += " " + route
		}
		ctx, span := tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(
			attribute.String("http.request.method", method),
			attribute.String("url.path", c.Request.URL.Path), // never the query: it may hold secrets
		))
		defer span.End()
		if route != "" {
			span.SetAttributes(attribute.String("http.route", route))
		}
		if id := reqlog.ID(ctx); id != "" {
			span.SetAttributes(attribute.String("barrage.request_id", id))
		}
		c.Request = c.Request.WithContext(ctx)

		c.Next()

		status := c.Writer.Status()
		span.SetAttributes(attribute.Int("http.response.status_code", status))
		if status >= http.StatusInternalServerError {
			span.SetStatus(codes.Error, strconv.Itoa(status))
		}
	}
}

// methodName bounds the method to the standard ones, "_OTHER" otherwise
// (the OpenTelemetry HTTP conventions): a client can send any token.
func methodName(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodConnect, http.MethodOptions, http.MethodTrace:
		return m
	}
	return "_OTHER"
}
