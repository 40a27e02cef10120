package metrics

import (
	"context"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// State is what the control plane's database holds now: the same for every
// replica (dashboards take one replica's figure, or max).
type State struct {
	// RunsByStatus counts the runs of each status.
	RunsByStatus map[string]int64
	// OutboxPending counts outbox rows not yet published; OutboxOldest is
	// the age of the oldest of them (0 without any).
	OutboxPending int64
	OutboxOldest  time.Duration
	// SearchesRunning and SyncsRunning count capacity searches and result
	// syncs in progress.
	SearchesRunning, SyncsRunning int64
}

// StateFunc reads the State.
type StateFunc func(ctx context.Context) (State, error)

// stateTimeout bounds one scrape's read of the State.
const stateTimeout = 2 * time.Second

// stateCollector reads the State at every scrape.
type stateCollector struct {
	read     StateFunc
	statuses []string
	log      *slog.Logger
	errors   prometheus.Counter

	runs, outbox, outboxAge, searches, syncs *prometheus.Desc
}

// WatchState exports the State that read returns at every scrape: runs by
// status (every one of statuses, 0 when none), the outbox's depth and age,
// searches and syncs in progress. A read that fails exports none of them
// and counts in state_read_errors_total.
func (m *Metrics) WatchState(read StateFunc, statuses []string, log *slog.Logger) {
	desc := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc(prometheus.BuildFQName(Namespace, "", name), help, labels, nil)
	}
	c := &stateCollector{
		read: read, statuses: statuses, log: log,
		errors: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: Namespace, Name: "state_read_errors_total",
			Help: "Scrapes whose read of the database state (runs, outbox, searches, syncs) failed.",
		}),
		runs:      desc("runs", "Runs by status, in the database.", "status"),
		outbox:    desc("outbox_pending_messages", "Outbox rows (run dispatches and stops) not yet published to the agents."),
		outboxAge: desc("outbox_oldest_pending_age_seconds", "Age of the oldest outbox row not yet published; 0 when none is."),
		searches:  desc("searches_running", "Capacity searches in progress."),
		syncs:     desc("syncs_running", "Result syncs in progress."),
	}
	m.reg.MustRegister(c)
}

func (c *stateCollector) Describe(ch chan<- *prometheus.Desc) {
	c.errors.Describe(ch)
	for _, d := range []*prometheus.Desc{c.runs, c.outbox, c.outboxAge, c.searches, c.syncs} {
		ch <- d
	}
}

func (c *stateCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), stateTimeout)
	defer cancel()
	st, err := c.read(ctx)
	if err != nil {
		c.errors.Inc()
		c.errors.Collect(ch)
		c.log.Warn("metrics: read the database state", slog.Any("error", err))
		return
	}
	c.errors.Collect(ch)
	for _, s := range c.statuses {
		ch <- prometheus.MustNewConstMetric(c.runs, prometheus.GaugeValue, float64(st.RunsByStatus[s]), s)
	}
	ch <- prometheus.MustNewConstMetric(c.outbox, prometheus.GaugeValue, float64(st.OutboxPending))
	ch <- prometheus.MustNewConstMetric(c.outboxAge, prometheus.GaugeValue, st.OutboxOldest.Seconds())
	ch <- prometheus.MustNewConstMetric(c.searches, prometheus.GaugeValue, float64(st.SearchesRunning))
	ch <- prometheus.MustNewConstMetric(c.syncs, prometheus.GaugeValue, float64(st.SyncsRunning))
}
