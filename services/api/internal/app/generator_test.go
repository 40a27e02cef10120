package app

import (
	"context"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/services/api/client"
)

// TestGeneratorLimitedRun makes a real agent the bottleneck: one
// connection asked for 200 qps (a send every 5 ms) against an echo that
// answers in 20 ms, so the sends fall ever further behind and the shard's
// lag p99 passes 10 % of the interval between sends in every second. The
// run is flagged generator_limited for each of its seconds, the verdict
// notes it, and a light run on the same agent is not flagged: 2 qps over
// 4 connections, a send every 2 s on each, whose lag may reach 200 ms
// (with the fault suite and the image builds beside make unit, a timer
// once woke over 50 ms late and flagged a light run of 8 qps). The runs
// are created with a known X-Request-Id, which the agent's log lines for
// the shard carry (docs/observability.md).
func TestGeneratorLimitedRun(t *testing.T) { // serial: see heavyTests
	e := startAPI(t, "BARRAGE_DISPATCH_WAIT=10s")
	echo := startEcho(t)
	var agentLog syncBuffer
	startAgentsLogged(t, e.NATSURL, 1, &agentLog, slog.LevelInfo)

	const requestID = "gen-limited-1"
	hot := e.generatorRun(t, echo+"/?delay=20ms", 200, 1, 3, requestID)
	res := decode[client.RunResult](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/runs/"+hot.Id.String()+"/result", e.AdminToken, nil))
	limited := e.count(t, `SELECT count(*) FROM run_intervals WHERE run_id = $1::uuid AND generator_limited`, hot.Id)
	busy := e.count(t, `SELECT count(*) FROM run_intervals WHERE run_id = $1::uuid AND count > 0`, hot.Id)
	t.Logf("bottlenecked run: %d requests, %d of %d busy seconds flagged, note %q", res.Count, limited, busy, derefS(hot.VerdictNote))
	if res.GeneratorLimitedSeconds == nil || *res.GeneratorLimitedSeconds != limited {
		t.Errorf("result generator_limited_seconds %v, stored seconds flagged %d", res.GeneratorLimitedSeconds, limited)
	}
	if limited < 3 || limited < busy {
		t.Errorf("%d seconds flagged, want every one of the %d busy seconds of a 3 s run", limited, busy)
	}
	if res.Count > 200 { // 3 s of one connection at 20 ms a request: about 150
		t.Errorf("%d requests: the agent was not held back by its one connection", res.Count)
	}
	// The per-second series names the flagged seconds, in the intervals
	// endpoint and in the live stream (replayed: the run has ended).
	stored := e.flaggedSeconds(t, hot.Id.String())
	if got := limitedOf(e.allIntervals(t, hot.Id.String())); !slices.Equal(got, stored) || len(got) != limited {
		t.Errorf("intervals endpoint flags seconds %v, stored %v (%d)", got, stored, limited)
	}
	stream, err := e.readEvents(t.Context(), hot.Id.String(), "", 20*time.Second, func(ev sseEvent) bool { return ev.Event == "result" })
	if err != nil {
		t.Fatal(err)
	}
	var streamed []client.Interval
	for _, iv := range latestSeconds(t, stream.Events) {
		streamed = append(streamed, iv)
	}
	slices.SortFunc(streamed, func(a, b client.Interval) int { return a.Second - b.Second })
	if got := limitedOf(streamed); !slices.Equal(got, stored) {
		t.Errorf("live stream flags seconds %v, stored %v", got, stored)
	}
	wantNote := "the load generator was the bottleneck for " + strconv.Itoa(limited) + " of "
	if !strings.Contains(derefS(hot.VerdictNote), wantNote) {
		t.Errorf("verdict note %q, want it to say %q", derefS(hot.VerdictNote), wantNote)
	}

	// The agent's log line for the shard carries the request id.
	var line string
	for l := range strings.SplitSeq(agentLog.String(), "\n") {
		if strings.Contains(l, "shard starting") && strings.Contains(l, "run="+hot.Id.String()) {
			line = l
		}
	}
	if !strings.Contains(line, "request_id="+requestID) {
		t.Errorf("agent's shard starting line %q lacks request_id=%s", line, requestID)
	}

	light := e.generatorRun(t, echo+"/", 2, 4, 4, "gen-light-1")
	res = decode[client.RunResult](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/runs/"+light.Id.String()+"/result", e.AdminToken, nil))
	if res.GeneratorLimitedSeconds != nil || light.VerdictNote != nil {
		t.Errorf("light run flagged: generator_limited_seconds %v, note %q", res.GeneratorLimitedSeconds, derefS(light.VerdictNote))
	}
	if n := e.count(t, `SELECT count(*) FROM run_intervals WHERE run_id = $1::uuid AND generator_limited`, light.Id); n != 0 {
		t.Errorf("%d seconds of the light run flagged", n)
	}
	if got := limitedOf(e.allIntervals(t, light.Id.String())); len(got) != 0 {
		t.Errorf("intervals endpoint flags seconds %v of the light run", got)
	}
	if res.Count < 6 {
		t.Errorf("light run counted %d requests, want about 8", res.Count)
	}
}

// generatorRun runs url at qps over conns connections for seconds,
// created with the X-Request-Id requestID, and returns it completed.
func (e *apiEnv) generatorRun(t *testing.T, url string, qps, conns, seconds int, requestID string) client.Run {
	t.Helper()
	created := decode[client.Run](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/runs", e.AdminToken, map[string]any{
		"project": "default",
		"spec":    map[string]any{"url": url, "qps": qps, "connections": conns, "duration": strconv.Itoa(seconds) + "s"},
	}, "X-Request-Id", requestID))
	run := e.waitRun(t, created.Id.String(), 30*time.Second)
	if run.Status != client.Completed || run.Verdict == nil || *run.Verdict != client.Pass {
		t.Fatalf("run ended %s (error %q), verdict %v", run.Status, derefS(run.Error), run.Verdict)
	}
	return run
}

// limitedOf returns the seconds of ivs flagged generator_limited, in order.
func limitedOf(ivs []client.Interval) []int {
	var out []int
	for i := range ivs {
		if ivs[i].GeneratorLimited {
			out = append(out, ivs[i].Second)
		}
	}
	return out
}

// flaggedSeconds returns the stored seconds of run id flagged
// generator_limited, in order.
func (e *apiEnv) flaggedSeconds(t *testing.T, id string) []int {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	rows, err := e.db.QueryContext(ctx, `SELECT second FROM run_intervals WHERE run_id = $1::uuid AND generator_limited ORDER BY second`, id)
	if err != nil {
		t.Fatalf("flagged seconds: %v", err)
	}
	defer rows.Close()
	var out []int
	for rows.Next() {
		var s int
		if err := rows.Scan(&s); err != nil {
			t.Fatalf("flagged seconds: %v", err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("flagged seconds: %v", err)
	}
	return out
}
