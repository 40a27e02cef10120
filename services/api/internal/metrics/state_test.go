package metrics

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

func TestStateIsReadAtEachScrape(t *testing.T) {
	t.Parallel()
	m := New(prometheus.NewRegistry(), nil)
	var fail bool
	reads := 0
	m.WatchState(func(context.Context) (State, error) {
		reads++
		if fail {
			return State{}, errors.New("database away")
		}
		return State{
			RunsByStatus:  map[string]int64{"running": 2, "completed": 7, "made-up": 1},
			OutboxPending: 3, OutboxOldest: 1500 * time.Millisecond, SearchesRunning: 1, SyncsRunning: 4,
		}, nil
	}, []string{"queued", "running", "completed"}, slog.New(slog.DiscardHandler))

	page := scrape(t, m)
	wantRuns := map[string]float64{`{status="queued"}`: 0, `{status="running"}`: 2, `{status="completed"}`: 7}
	if got := series(page, "barrage_runs"); !maps.Equal(got, wantRuns) {
		t.Errorf("runs = %v, want %v (only the statuses given, 0 when absent)", got, wantRuns)
	}
	for name, want := range map[string]float64{
		"barrage_outbox_pending_messages": 3, "barrage_outbox_oldest_pending_age_seconds": 1.5,
		"barrage_searches_running": 1, "barrage_syncs_running": 4, "barrage_state_read_errors_total": 0,
	} {
		if got := series(page, name); !maps.Equal(got, map[string]float64{"": want}) {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}

	fail = true
	page = scrape(t, m)
	if got := series(page, "barrage_runs"); len(got) != 0 {
		t.Errorf("runs exported from a failed read: %v", got)
	}
	if got := series(page, "barrage_state_read_errors_total"); !maps.Equal(got, map[string]float64{"": 1}) {
		t.Errorf("state_read_errors_total = %v, want 1", got)
	}
	if reads != 2 {
		t.Errorf("%d reads for 2 scrapes", reads)
	}
}

func TestPipelineLabelsAreBounded(t *testing.T) {
	t.Parallel()
	m := New(prometheus.NewRegistry(), nil)
	m.Dispatched("run.dispatch", 20*time.Millisecond)
	m.Dispatched("run.control", time.Second)
	m.Dispatched("some.topic.of.a.later.version", time.Second)
	m.SnapshotStored(false, 300*time.Millisecond)
	m.SnapshotStored(false, 0) // unknown lag: counted, not observed
	m.SnapshotStored(true, 5*time.Second)
	m.IngestBacklog(42)
	page := scrape(t, m)
	for name, want := range map[string]map[string]float64{
		"barrage_dispatch_latency_seconds_count": {`{topic="run.dispatch"}`: 1, `{topic="run.control"}`: 1, `{topic="other"}`: 1},
		"barrage_ingest_snapshots_total":         {`{kind="interval"}`: 2, `{kind="final"}`: 1},
		"barrage_ingest_lag_seconds_count":       {"": 1},
		"barrage_ingest_lag_seconds_sum":         {"": 0.3},
		"barrage_ingest_backlog_snapshots":       {"": 42},
	} {
		if got := series(page, name); !maps.Equal(got, want) {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
}
