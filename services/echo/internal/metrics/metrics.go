// Package metrics holds the echo server's Prometheus collectors. It is shared by
// the HTTP, gRPC and TCP/UDP listeners so one /metrics page shows all of them; it
// is not a general metrics facade.
package metrics

import (
	"strconv"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

const namespace = "barrage_echo"

// maxCode bounds the per-status counter cache; codes above it use the vector directly.
const maxCode = 599

// Metrics is the echo server's set of collectors, registered on its own registry.
type Metrics struct {
	// Registry holds every collector below plus the Go and process collectors.
	Registry *prometheus.Registry

	// HTTPInFlight is the number of HTTP requests being served.
	HTTPInFlight prometheus.Gauge
	// HTTPRequestBytes counts request body bytes read.
	HTTPRequestBytes prometheus.Counter
	// HTTPResponseBytes counts response body bytes written.
	HTTPResponseBytes prometheus.Counter
	// GRPCPings counts fgrpc pings answered.
	GRPCPings prometheus.Counter
	// GRPCConnections counts gRPC (HTTP/2) connections accepted.
	GRPCConnections prometheus.Counter
	// TCPConnections counts accepted TCP echo connections.
	TCPConnections prometheus.Counter
	// TCPBytes counts bytes echoed over TCP.
	TCPBytes prometheus.Counter
	// UDPPackets counts UDP datagrams echoed.
	UDPPackets prometheus.Counter
	// UDPBytes counts bytes echoed over UDP.
	UDPBytes prometheus.Counter

	httpRequests  *prometheus.CounterVec
	codeCounters  [maxCode + 1]atomic.Pointer[counterBox]
	injectedDelay *prometheus.HistogramVec
	ignoredParams *prometheus.CounterVec
}

type counterBox struct{ prometheus.Counter }

// New creates and registers the collectors.
func New() *Metrics {
	m := &Metrics{
		Registry: prometheus.NewRegistry(),
		HTTPInFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: namespace, Name: "http_in_flight_requests",
			Help: "HTTP requests being served.",
		}),
		HTTPRequestBytes: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: namespace, Name: "http_request_body_bytes_total",
			Help: "Request body bytes read.",
		}),
		HTTPResponseBytes: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: namespace, Name: "http_response_body_bytes_total",
			Help: "Response body bytes written (before compression).",
		}),
		GRPCPings: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: namespace, Name: "grpc_pings_total",
			Help: "fgrpc.PingServer/Ping calls answered.",
		}),
		GRPCConnections: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: namespace, Name: "grpc_connections_total",
			Help: "gRPC connections accepted.",
		}),
		TCPConnections: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: namespace, Name: "tcp_connections_total",
			Help: "TCP echo connections accepted.",
		}),
		TCPBytes: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: namespace, Name: "tcp_echoed_bytes_total",
			Help: "Bytes echoed over TCP.",
		}),
		UDPPackets: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: namespace, Name: "udp_echoed_packets_total",
			Help: "UDP datagrams echoed.",
		}),
		UDPBytes: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: namespace, Name: "udp_echoed_bytes_total",
			Help: "Bytes echoed over UDP.",
		}),
		httpRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "http_requests_total",
			Help: "HTTP requests answered, by status code.",
		}, []string{"code"}),
		injectedDelay: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: namespace, Name: "injected_delay_seconds",
			Help:    "Delays injected on request (delay parameter, gRPC delayNanos).",
			Buckets: []float64{.001, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5},
		}, []string{"protocol"}),
		ignoredParams: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "ignored_params_total",
			Help: "Malformed parameters ignored (as Fortio does), by parameter.",
		}, []string{"param"}),
	}
	m.Registry.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.HTTPInFlight, m.HTTPRequestBytes, m.HTTPResponseBytes, m.GRPCPings, m.GRPCConnections,
		m.TCPConnections, m.TCPBytes, m.UDPPackets, m.UDPBytes,
		m.httpRequests, m.injectedDelay, m.ignoredParams,
	)
	return m
}

// HTTPRequest counts one HTTP request answered with code. It avoids the label
// lookup for codes already seen, since it runs once per request.
func (m *Metrics) HTTPRequest(code int) {
	if code < 0 || code > maxCode {
		m.httpRequests.WithLabelValues(strconv.Itoa(code)).Inc()
		return
	}
	box := m.codeCounters[code].Load()
	if box == nil {
		box = &counterBox{m.httpRequests.WithLabelValues(strconv.Itoa(code))}
		m.codeCounters[code].Store(box)
	}
	box.Inc()
}

// InjectedDelay records a delay injected on protocol ("http" or "grpc").
func (m *Metrics) InjectedDelay(protocol string, seconds float64) {
	m.injectedDelay.WithLabelValues(protocol).Observe(seconds)
}

// IgnoredParam counts a malformed parameter that was ignored.
func (m *Metrics) IgnoredParam(name string) {
	m.ignoredParams.WithLabelValues(name).Inc()
}
