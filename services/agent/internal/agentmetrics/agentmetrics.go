// Package agentmetrics holds barrage-agent's own Prometheus collectors: the
// health of the process as a load generator (shards running, requests and
// errors by slot, pacing lag, connections open, snapshot publishing, the
// GOMAXPROCS governor's setting, NATS reconnects, and whether it is the
// bottleneck of its runs: its CPU use and the seconds it was generator
// limited), registered on a registry
// the caller owns and served at /metrics by `barrage-agent serve
// -metrics-addr`.
//
// It is not where a run's results go (snapshots carry those to barrage-api),
// and no label holds a run id, a URL or anything else without a bound: the
// per-shard series are labelled by slot, 0 to the agent's capacity - 1.
package agentmetrics

import (
	"context"
	"net"
	"runtime"
	"strconv"
	"sync/atomic"

	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

const namespace = "barrage_agent"

// Metrics is one agent's collectors. Its methods are safe for concurrent
// use; on a nil *Metrics they record nothing.
type Metrics struct {
	reg *prometheus.Registry

	shardsRunning prometheus.Gauge
	requests      *prometheus.CounterVec
	errors        *prometheus.CounterVec
	lag           *prometheus.GaugeVec
	connsOpen     prometheus.Gauge
	publish       prometheus.Histogram
	retries       prometheus.Counter
	lost          prometheus.Counter
	cpuUsed       prometheus.Gauge
	limited       *prometheus.CounterVec

	// conn is the NATS connection whose reconnects are exported.
	conn atomic.Pointer[nats.Conn]
}

// New registers the agent's collectors, with the Go and process collectors,
// on reg. It panics if any is already registered there: a registry belongs
// to one Metrics.
func New(reg *prometheus.Registry) *Metrics {
	m := &Metrics{
		reg: reg,
		shardsRunning: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: namespace, Name: "shards_running",
			Help: "Shards this agent is running now.",
		}),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "requests_total",
			Help: "Requests completed by the shards this agent ran, by slot (0 to capacity-1).",
		}, []string{"slot"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "request_errors_total",
			Help: "Requests that failed, by slot (0 to capacity-1).",
		}, []string{"slot"}),
		lag: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: namespace, Name: "pacing_lag_p99_seconds",
			Help: "99th percentile of the delay between a request's intended and actual send in the last snapshot interval, by slot; 0 when the slot is free.",
		}, []string{"slot"}),
		connsOpen: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: namespace, Name: "connections_open",
			Help: "Connections the shards have open to their targets.",
		}),
		publish: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: namespace, Name: "snapshot_publish_duration_seconds",
			Help:    "Time from a snapshot publish attempt to its JetStream ack, for acked publishes.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5},
		}),
		retries: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: namespace, Name: "snapshot_publish_retries_total",
			Help: "Snapshot publish attempts that failed and were retried.",
		}),
		lost: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: namespace, Name: "snapshots_lost_total",
			Help: "Snapshots given up on: never published.",
		}),
		cpuUsed: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: namespace, Name: "cpu_used_ratio",
			Help: "The process's CPU use over the last interval snapshot of a shard, as a share of the cores it may use; above 0.9 the agent is generator limited.",
		}),
		limited: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "generator_limited_seconds_total",
			Help: "Seconds of interval snapshots in which the agent was the bottleneck (over 90 % CPU, or send lag p99 over 10 % of the send interval), by slot (0 to capacity-1).",
		}, []string{"slot"}),
	}
	reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.shardsRunning, m.requests, m.errors, m.lag, m.connsOpen, m.publish, m.retries, m.lost, m.cpuUsed, m.limited,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Namespace: namespace, Name: "gomaxprocs",
			Help: "GOMAXPROCS as the governor (services/agent/internal/procs) last set it.",
		}, func() float64 { return float64(runtime.GOMAXPROCS(0)) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Namespace: namespace, Name: "nats_reconnects_total",
			Help: "Times the agent's NATS connection reconnected.",
		}, m.reconnects),
	)
	return m
}

// Registry is where the collectors are registered.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// SetConn names the NATS connection whose reconnects are exported.
func (m *Metrics) SetConn(nc *nats.Conn) {
	if m == nil {
		return
	}
	m.conn.Store(nc)
}

func (m *Metrics) reconnects() float64 {
	nc := m.conn.Load()
	if nc == nil {
		return 0
	}
	return float64(nc.Stats().Reconnects)
}

// ShardStarted counts a shard into slot.
func (m *Metrics) ShardStarted(slot int) {
	if m == nil {
		return
	}
	m.shardsRunning.Inc()
	l := strconv.Itoa(slot)
	// The series exist from the first shard on, at 0.
	m.requests.WithLabelValues(l)
	m.errors.WithLabelValues(l)
	m.lag.WithLabelValues(l).Set(0)
	m.limited.WithLabelValues(l)
}

// ShardEnded counts the shard of slot out.
func (m *Metrics) ShardEnded(slot int) {
	if m == nil {
		return
	}
	m.shardsRunning.Dec()
	m.lag.WithLabelValues(strconv.Itoa(slot)).Set(0)
}

// Requests adds completed requests and errors to slot's counters.
func (m *Metrics) Requests(slot int, count, errors int64) {
	if m == nil {
		return
	}
	l := strconv.Itoa(slot)
	if count > 0 {
		m.requests.WithLabelValues(l).Add(float64(count))
	}
	if errors > 0 {
		m.errors.WithLabelValues(l).Add(float64(errors))
	}
}

// PacingLag sets slot's lag p99 of the last interval, in seconds.
func (m *Metrics) PacingLag(slot int, p99 float64) {
	if m == nil {
		return
	}
	m.lag.WithLabelValues(strconv.Itoa(slot)).Set(p99)
}

// Generator records an interval snapshot of slot's shard that lasted
// seconds: the agent used cpuUsed of its cores (its share of them is
// cpu_used_ratio; no cores, none), and limited says whether the agent was
// the bottleneck in it (pkg/wire GeneratorLimited), which adds seconds to
// the slot's generator_limited_seconds_total.
func (m *Metrics) Generator(slot int, cpuUsed, cores float64, limited bool, seconds float64) {
	if m == nil {
		return
	}
	if cores > 0 {
		m.cpuUsed.Set(cpuUsed / cores)
	}
	if limited && seconds > 0 {
		m.limited.WithLabelValues(strconv.Itoa(slot)).Add(seconds)
	}
}

// Published observes an acked snapshot publish that took seconds.
func (m *Metrics) Published(seconds float64) {
	if m != nil {
		m.publish.Observe(seconds)
	}
}

// PublishRetried counts a failed publish attempt that is tried again.
func (m *Metrics) PublishRetried() {
	if m != nil {
		m.retries.Inc()
	}
}

// SnapshotLost counts a snapshot given up on.
func (m *Metrics) SnapshotLost() {
	if m != nil {
		m.lost.Inc()
	}
}

// DialFunc dials a connection.
type DialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

// CountDials wraps dial so that every connection it opens counts in
// connections_open until it is closed.
func (m *Metrics) CountDials(dial DialFunc) DialFunc {
	if m == nil {
		return dial
	}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		m.connsOpen.Inc()
		return &countedConn{Conn: c, open: m.connsOpen}, nil
	}
}

// countedConn leaves connections_open on its first Close.
type countedConn struct {
	net.Conn
	open   prometheus.Gauge
	closed atomic.Bool
}

func (c *countedConn) Close() error {
	if c.closed.CompareAndSwap(false, true) {
		c.open.Dec()
	}
	return c.Conn.Close()
}
