// Package metrics instruments barrage-api with Prometheus collectors on a
// registry the caller owns, and serves that registry at /metrics.
//
// It covers the API server itself: HTTP request counts and latencies by
// route, Go runtime, process and database-pool statistics, the run
// pipeline (dispatch latency, ingest lag and backlog, live streams, NATS
// reconnects: pipeline.go) and the database's state read at each scrape
// (runs by status, outbox depth, searches and syncs in progress: state.go). It is not where
// load-test results live (runs report those through their own pipeline),
// and it never registers on the global Prometheus registry.
package metrics

import (
	"database/sql"
	"net/http"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

const (
	// Namespace prefixes every metric this package defines.
	Namespace = "barrage"
	// UnmatchedRoute is the route label of requests that matched no route,
	// so that unknown paths cannot grow the label set without bound.
	UnmatchedRoute = "unmatched"
	// OtherMethod is the method label of requests whose method is not a
	// standard HTTP method, for the same reason.
	OtherMethod = "OTHER"
)

// Metrics holds barrage-api's HTTP collectors and the registry they, and the
// runtime collectors, are registered on.
type Metrics struct {
	reg      *prometheus.Registry
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
	pipe     *pipeline
}

// New registers the Go and process collectors, the database pool collector
// (when db is not nil) and the HTTP request collectors on reg. It panics if
// any of them is already registered there, like prometheus.MustRegister: a
// registry belongs to one Metrics.
func New(reg *prometheus.Registry, db *sql.DB) *Metrics {
	m := &Metrics{
		reg: reg,
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace,
			Subsystem: "http",
			Name:      "requests_total",
			Help:      "HTTP requests served, by method, route template and status code.",
		}, []string{"method", "route", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: Namespace,
			Subsystem: "http",
			Name:      "request_duration_seconds",
			Help:      "Time to serve an HTTP request, by method and route template.",
			Buckets:   []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"method", "route"}),
		pipe: newPipeline(),
	}
	reg.MustRegister(m.pipe.collectors()...)
	reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.requests,
		m.duration,
	)
	if db != nil {
		reg.MustRegister(collectors.NewDBStatsCollector(db, Namespace))
	}
	return m
}

// Middleware counts and times every request that passes through it. The
// route label is the matched route template (c.FullPath), or UnmatchedRoute;
// never the raw path. Install it before the handlers it should observe.
func (m *Metrics) Middleware() gin.HandlerFunc {
	return func(c *gin.Context) {
		start := time.Now()
		c.Next()
		route := c.FullPath()
		if route == "" {
			route = UnmatchedRoute
		}
		method := methodLabel(c.Request.Method)
		m.requests.WithLabelValues(method, route, strconv.Itoa(c.Writer.Status())).Inc()
		m.duration.WithLabelValues(method, route).Observe(time.Since(start).Seconds())
	}
}

// Handler serves the registry in the Prometheus exposition formats, for
// mounting at /metrics. Collection errors are served as a 500 and counted in
// promhttp_metric_handler_errors_total.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// methodLabel bounds the method label to the standard methods: a client can
// send any token as a method.
func methodLabel(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodConnect, http.MethodOptions, http.MethodTrace:
		return method
	}
	return OtherMethod
}
