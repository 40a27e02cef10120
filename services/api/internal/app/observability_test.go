package app

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/barrage-dev/barrage/services/agent/agent"
	"github.com/barrage-dev/barrage/services/api/client"
)

// TestMetricsOfARealRun runs a load through the API, an agent and the echo,
// then reads every process's /metrics: the agent's request counter is the
// run's count, the API's ingest, dispatch and state figures are the run's,
// promtool finds nothing to lint on any of the three pages, and every
// query of the Grafana dashboards (deploy/grafana) parses and names only
// metrics these pages or the remote write hold.
func TestMetricsOfARealRun(t *testing.T) { // serial: see heavyTests
	e := startAPI(t, "BARRAGE_DISPATCH_WAIT=10s")
	echo := startEcho(t)
	agentMetrics := startMeteredAgent(t, e.NATSURL)

	created := decode[client.Run](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/runs", e.AdminToken, map[string]any{
		"project": "default",
		"spec":    map[string]any{"url": echo + "/?delay=1ms", "qps": 100, "connections": 2, "duration": "3s"},
	}))
	run := e.waitRun(t, created.Id.String(), 40*time.Second)
	if run.Status != "completed" || run.Summary == nil {
		t.Fatalf("run ended %s (error %q)", run.Status, derefS(run.Error))
	}
	count := float64(run.Summary.Count)
	intervals := float64(e.count(t, `SELECT coalesce(sum(snapshots), 0) FROM run_intervals WHERE run_id = $1::uuid`, created.Id.String()))

	// The agent closes the shard's connections just after its final
	// snapshot, which may be after the run is stored as completed.
	var agentPage string
	waitFor(t, 10*time.Second, func() error {
		agentPage = scrapePage(t, agentMetrics+"/metrics", "")
		ag := parseSamples(t, agentPage)
		if ag["barrage_agent_shards_running"] != 0 || ag["barrage_agent_connections_open"] != 0 {
			return fmt.Errorf("agent still has %v shards and %v connections", ag["barrage_agent_shards_running"], ag["barrage_agent_connections_open"])
		}
		return nil
	})
	ag := parseSamples(t, agentPage)
	if got := ag[`barrage_agent_requests_total{slot="0"}`] + ag[`barrage_agent_requests_total{slot="1"}`]; got != count || count < 250 {
		t.Errorf("the agent's requests_total is %v, the run counted %v (want about 300)", got, count)
	}
	for series, want := range map[string]float64{
		"barrage_agent_shards_running":                 0,
		"barrage_agent_connections_open":               0,
		`barrage_agent_request_errors_total{slot="0"}`: 0,
		"barrage_agent_nats_reconnects_total":          0,
	} {
		if got, ok := ag[series]; !ok || got != want {
			t.Errorf("agent %s = %v (present %v), want %v", series, got, ok, want)
		}
	}

	apiPage := scrapePage(t, e.URL+"/metrics", "")
	api := parseSamples(t, apiPage)
	for series, want := range map[string]float64{
		`barrage_runs{status="completed"}`:                             1,
		`barrage_runs{status="running"}`:                               0,
		`barrage_ingest_snapshots_total{kind="final"}`:                 1,
		`barrage_ingest_snapshots_total{kind="interval"}`:              intervals,
		`barrage_ingest_lag_seconds_count`:                             intervals,
		`barrage_ingest_backlog_snapshots`:                             0,
		`barrage_dispatch_latency_seconds_count{topic="run.dispatch"}`: 1,
		`barrage_outbox_pending_messages`:                              0,
		`barrage_outbox_oldest_pending_age_seconds`:                    0,
		`barrage_live_streams_open`:                                    0,
		`barrage_searches_running`:                                     0,
		`barrage_syncs_running`:                                        0,
		`barrage_nats_reconnects_total`:                                0,
		`barrage_state_read_errors_total`:                              0,
	} {
		if got, ok := api[series]; !ok || got != want {
			t.Errorf("API %s = %v (present %v), want %v", series, got, ok, want)
		}
	}
	if intervals < 3 {
		t.Errorf("%v interval snapshots stored for a 3 s run", intervals)
	}

	echoPage := scrapePage(t, echo+"/metrics", "")
	for name, page := range map[string]string{"api": apiPage, "agent": agentPage, "echo": echoPage} {
		promtoolCheck(t, name, page)
	}
	checkDashboards(t, exportedNames(apiPage, agentPage, echoPage))
}

// startMeteredAgent runs one agent of capacity 2 against natsURL until the
// test ends, with its metrics served on a loopback port; it returns their
// base URL once the agent heartbeats.
func startMeteredAgent(t *testing.T, natsURL string) string {
	t.Helper()
	reg := prometheus.NewRegistry()
	w, err := agent.New(agent.Options{NATSURL: natsURL, Name: "metered", Capacity: 2, Registry: reg,
		Logger: slog.New(slog.NewTextHandler(testLogWriter(t), nil))})
	if err != nil {
		t.Fatal(err)
	}
	runUntilCleanup(t, "agent", w.Run)
	srv := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
	t.Cleanup(srv.Close)
	waitFor(t, 20*time.Second, func() error {
		if !strings.Contains(scrapePage(t, srv.URL+"/metrics", ""), "barrage_agent_shards_running 0") {
			return io.ErrUnexpectedEOF
		}
		return nil
	})
	return srv.URL
}

// scrapePage reads a /metrics page in the text format.
func scrapePage(t *testing.T, url, token string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, http.NoBody)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v", url, resp.StatusCode, err)
	}
	return string(body)
}

// promtoolCheck runs `promtool check metrics` (Debian's prometheus
// package, which .ci/run installs) on a page and fails on any finding.
func promtoolCheck(t *testing.T, name, page string) {
	t.Helper()
	bin, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("promtool is not installed (apt-get install prometheus): %v", err)
		}
		t.Skipf("promtool is not installed (apt-get install prometheus)")
	}
	cmd := exec.Command(bin, "check", "metrics")
	cmd.Stdin = strings.NewReader(page)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil || out.Len() > 0 {
		t.Errorf("promtool check metrics on the %s's page: %v\n%s", name, err, out.String())
	}
}
