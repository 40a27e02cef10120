package metrics

import (
	"time"

	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus"
)

// pipeline holds the collectors of the run pipeline: the dispatch outbox,
// the snapshot ingest and the live streams.
type pipeline struct {
	ingested *prometheus.CounterVec
	lag      prometheus.Histogram
	backlog  prometheus.Gauge
	dispatch *prometheus.HistogramVec
}

// Dispatch topics of the dispatch_latency_seconds label: the outbox's
// (runs/outbox.go); any other is counted as OtherTopic.
const (
	topicDispatch = "run.dispatch"
	topicControl  = "run.control"
	// OtherTopic is the topic label of outbox rows of an unknown topic.
	OtherTopic = "other"
)

func newPipeline() *pipeline {
	return &pipeline{
		ingested: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Subsystem: "ingest", Name: "snapshots_total",
			Help: "Agent snapshots stored, by kind (interval or final); duplicates and ignored ones are not counted.",
		}, []string{"kind"}),
		lag: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: Namespace, Subsystem: "ingest", Name: "lag_seconds",
			Help:    "Time from the end of an interval snapshot's second on its agent to its storage.",
			Buckets: []float64{.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60},
		}),
		backlog: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: Namespace, Subsystem: "ingest", Name: "backlog_snapshots",
			Help: "Snapshots waiting in the stream for this replica's ingest, as of the last one delivered.",
		}),
		dispatch: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: Namespace, Subsystem: "dispatch", Name: "latency_seconds",
			Help:    "Time from an outbox row's commit to its publish to the agents, by topic.",
			Buckets: []float64{.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, []string{"topic"}),
	}
}

func (p *pipeline) collectors() []prometheus.Collector {
	return []prometheus.Collector{p.ingested, p.lag, p.backlog, p.dispatch}
}

// SnapshotStored counts a stored snapshot; for an interval one, lag is the
// time since its interval ended (negative or zero: unknown, not observed).
func (m *Metrics) SnapshotStored(final bool, lag time.Duration) {
	if final {
		m.pipe.ingested.WithLabelValues("final").Inc()
		return
	}
	m.pipe.ingested.WithLabelValues("interval").Inc()
	if lag > 0 {
		m.pipe.lag.Observe(lag.Seconds())
	}
}

// IngestBacklog sets the snapshots still waiting in the stream.
func (m *Metrics) IngestBacklog(pending uint64) { m.pipe.backlog.Set(float64(pending)) }

// Dispatched observes an outbox row of topic published since after its commit.
func (m *Metrics) Dispatched(topic string, since time.Duration) {
	if topic != topicDispatch && topic != topicControl {
		topic = OtherTopic
	}
	m.pipe.dispatch.WithLabelValues(topic).Observe(max(since, 0).Seconds())
}

// WatchStreams exports open() as the number of live (SSE) streams open.
func (m *Metrics) WatchStreams(open func() int) {
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Namespace: Namespace, Subsystem: "live", Name: "streams_open",
		Help: "Live run streams (server-sent events) this replica serves now.",
	}, func() float64 { return float64(open()) }))
}

// WatchNATS exports nc's reconnects.
func (m *Metrics) WatchNATS(nc *nats.Conn) {
	m.reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
		Namespace: Namespace, Subsystem: "nats", Name: "reconnects_total",
		Help: "Times this replica's NATS connection reconnected.",
	}, func() float64 { return float64(nc.Stats().Reconnects) }))
}

// RemoteWriteStats counts the samples of the runs' remote write.
type RemoteWriteStats struct{ Sent, Dropped, Rejected, Retries int64 }

// WatchRemoteWrite exports what stats returns: the remote-write samples
// sent, dropped from a full queue and refused, and the requests retried.
func (m *Metrics) WatchRemoteWrite(stats func() RemoteWriteStats) {
	counter := func(name, help string, get func(RemoteWriteStats) int64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{
			Namespace: Namespace, Subsystem: "remote_write", Name: name, Help: help,
		}, func() float64 { return float64(get(stats())) })
	}
	m.reg.MustRegister(
		counter("samples_sent_total", "Run samples the remote-write endpoints accepted.", func(s RemoteWriteStats) int64 { return s.Sent }),
		counter("samples_dropped_total", "Run samples dropped, oldest first, from a full remote-write queue.", func(s RemoteWriteStats) int64 { return s.Dropped }),
		counter("samples_rejected_total", "Run samples an endpoint refused, or given up on after the retries.", func(s RemoteWriteStats) int64 { return s.Rejected }),
		counter("retries_total", "Remote-write requests tried again.", func(s RemoteWriteStats) int64 { return s.Retries }),
	)
}
