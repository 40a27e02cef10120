package ingest_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/pkg/spec"
	barragev1 "github.com/barrage-dev/barrage/proto/barrage/v1"
	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/ingest"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// openSpec paces an open loop at 120 qps: the summary is of response times.
func openSpec() spec.Spec {
	return spec.Spec{URL: "http://target.test/", QPS: 120, Connections: 6, Duration: spec.Duration(4 * time.Second)}
}

// checkIntervals fails t unless the run's seconds are exactly the merge of
// the shards' intervals of each second, and returns their total count.
func (e *env) checkIntervals(t *testing.T, id uuid.UUID, l *load, seconds int) int64 {
	t.Helper()
	ivs, err := e.st.RunIntervals(ctxT(t), id, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if len(ivs) != seconds {
		t.Fatalf("run has %d seconds, want %d", len(ivs), seconds)
	}
	var sum int64
	for k := range ivs {
		iv := &ivs[k]
		want := l.second(t, k)
		if iv.Second != k || iv.Count != want.count || iv.Errors != want.errors || iv.BytesSent != want.sent ||
			iv.BytesReceived != want.recv || !sameCodes(iv.RetCodes, want.codes) || iv.Snapshots != len(l.shards) {
			t.Errorf("second %d = count %d errors %d sent %d received %d codes %v snapshots %d; want %d %d %d %d %v %d",
				iv.Second, iv.Count, iv.Errors, iv.BytesSent, iv.BytesReceived, iv.RetCodes, iv.Snapshots,
				want.count, want.errors, want.sent, want.recv, want.codes, len(l.shards))
		}
		sameHist(t, "response of second", iv.Response, want.resp)
		sameHist(t, "service of second", iv.Service, want.svc)
		sameHist(t, "lag of second", iv.Lag, want.lag)
		q := want.resp.Percentiles([]float64{50, 90, 99})
		if iv.P50US != micros(q[0].Value) || iv.P90US != micros(q[1].Value) || iv.P99US != micros(q[2].Value) || iv.MaxUS != micros(want.resp.Max()) {
			t.Errorf("second %d: p50 %g p90 %g p99 %g max %g µs; want %v %v %v %v", k, iv.P50US, iv.P90US, iv.P99US, iv.MaxUS,
				q[0].Value, q[1].Value, q[2].Value, want.resp.Max())
		}
		sum += iv.Count
	}
	return sum
}

// checkResult fails t unless the run's result is exactly want, the merge
// of shards finals with lost shards missing.
func (e *env) checkResult(t *testing.T, id uuid.UUID, want *measured, shards, lost int) {
	t.Helper()
	res, err := e.st.RunResult(ctxT(t), id)
	if err != nil {
		t.Fatal(err)
	}
	sameHist(t, "result response", res.Response, want.resp)
	sameHist(t, "result service", res.Service, want.svc)
	sameHist(t, "result lag", res.Lag, want.lag)
	if res.Count != want.count || res.Errors != want.errors || res.BytesSent != want.sent || res.BytesReceived != want.recv ||
		!sameCodes(res.RetCodes, want.codes) || res.Duration != want.end.Sub(want.start) || res.Shards != shards || res.LostShards != lost {
		t.Errorf("result = count %d errors %d sent %d received %d codes %v duration %s shards %d lost %d; want %d %d %d %d %v %s %d %d",
			res.Count, res.Errors, res.BytesSent, res.BytesReceived, res.RetCodes, res.Duration, res.Shards, res.LostShards,
			want.count, want.errors, want.sent, want.recv, want.codes, want.end.Sub(want.start), shards, lost)
	}
}

// checkSummary fails t unless the run's summary columns are want's, with
// the latencies of the response histogram.
func checkSummary(t *testing.T, run runs.Run, want *measured) {
	t.Helper()
	if run.Summary == nil {
		t.Fatal("run has no summary")
	}
	q := want.resp.Percentiles([]float64{50, 90, 99})
	w := runs.Summary{
		Count: want.count, Errors: want.errors, QPS: float64(want.count) / want.end.Sub(want.start).Seconds(),
		MinUS: micros(want.resp.Min()), AvgUS: want.resp.MeanMicros(), P50US: micros(q[0].Value),
		P90US: micros(q[1].Value), P99US: micros(q[2].Value), MaxUS: micros(want.resp.Max()),
	}
	got := *run.Summary
	if !closeTo(got.QPS, w.QPS) || !closeTo(got.AvgUS, w.AvgUS) {
		t.Errorf("summary qps %v avg %v, want %v %v", got.QPS, got.AvgUS, w.QPS, w.AvgUS)
	}
	got.QPS, got.AvgUS = w.QPS, w.AvgUS
	if got != w {
		t.Errorf("summary = %+v, want %+v", got, w)
	}
}

func TestIngestMergesShardsPerSecond(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	startAt := time.Now().UTC().Add(-10 * time.Second).Truncate(time.Millisecond)
	run, agents := e.plannedRun(t, openSpec(), 3, startAt, startAt.Add(time.Minute))
	e.beat(t, agents...)
	notified := e.notifications(t)
	e.start(t, nil)
	l := makeLoad(t, run.ID, startAt, 3, 4)
	for k := range 4 {
		for s := range 3 {
			e.publish(t, l.shards[s].intervals[k], "")
		}
	}
	for s := range 3 {
		e.publish(t, l.shards[s].final, "")
	}
	done := e.waitStatus(t, run.ID, runs.Completed)

	total := l.finals(t, 0, 1, 2)
	if sum := e.checkIntervals(t, run.ID, l, 4); sum != total.count {
		t.Errorf("seconds count %d requests, the finals %d", sum, total.count)
	}
	e.checkResult(t, run.ID, total, 3, 0)
	checkSummary(t, done, total)
	if done.Degraded || done.Error != "" || done.EndedAt.IsZero() || !done.StartedAt.Equal(startAt.Add(-4*time.Millisecond)) {
		t.Errorf("run = degraded %v error %q ended %v started %v; want a clean end that started with the first interval",
			done.Degraded, done.Error, done.EndedAt, done.StartedAt)
	}
	if n := e.count(t, "SELECT count(*) FROM run_snapshots WHERE run_id = $1", run.ID); n != 15 {
		t.Errorf("run_snapshots rows = %d, want 15", n)
	}
	if n := e.count(t, "SELECT count(*) FROM run_shards WHERE run_id = $1 AND status = 'done' AND final_received AND last_seq = 5", run.ID); n != 3 {
		t.Errorf("done shards = %d, want 3", n)
	}
	if p := e.runPhase(t, run.ID); p != barragev1.RunPhase_RUN_PHASE_DONE {
		t.Errorf("run state = %s, want done", p)
	}
	seconds, finals, ends := e.events.tally(run.ID)
	if seconds != 4 || finals != 3 || ends[runs.Completed] != 1 || len(ends) != 1 {
		t.Errorf("hook saw %d seconds, %d finals, ends %v; want 4, 3, one completed", seconds, finals, ends)
	}
	waitFor(t, 5*time.Second, func() error {
		got := notified()
		// At most one event per snapshot, at least one per second.
		if seconds, finals, ends := tallyEvents(got, run.ID); seconds != 4 || finals != 3 || ends[runs.Completed] != 1 || len(got) > 16 {
			return fmt.Errorf("notified %d events: %d seconds, %d finals, ends %v; want at most 16: 4 seconds, 3 finals, one completed", len(got), seconds, finals, ends)
		}
		return nil
	})
}

func TestIngestCountsRedeliveryOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	startAt := time.Now().UTC().Add(-5 * time.Second).Truncate(time.Millisecond)
	run, agents := e.plannedRun(t, openSpec(), 3, startAt, startAt.Add(time.Minute))
	e.beat(t, agents...)
	e.start(t, nil)
	l := makeLoad(t, run.ID, startAt, 3, 2)
	for k := range 2 {
		for s := range 3 {
			e.publish(t, l.shards[s].intervals[k], "")
			// The same snapshot again under another message id, so that
			// JetStream's dedupe does not hide it: the API must.
			e.publish(t, l.shards[s].intervals[k], "again")
		}
	}
	e.publish(t, l.shards[1].final, "")
	e.publish(t, l.shards[1].final, "final again")
	e.drained(t)
	if n := e.count(t, "SELECT count(*) FROM run_snapshots WHERE run_id = $1", run.ID); n != 7 {
		t.Errorf("run_snapshots rows = %d, want 7", n)
	}
	want := l.finals(t, 0, 1, 2)
	if sum := e.checkIntervals(t, run.ID, l, 2); sum != want.count {
		t.Errorf("seconds count %d requests, want %d", sum, want.count)
	}
	counts := e.count(t, "SELECT sum(count) FROM run_shards WHERE run_id = $1", run.ID)
	if counts != want.count {
		t.Errorf("shards count %d requests, want %d", counts, want.count)
	}
	if seconds, finals, _ := e.events.tally(run.ID); seconds != 2 || finals != 1 {
		t.Errorf("hook saw %d seconds and %d finals, want 2 and 1", seconds, finals)
	}
	e.publish(t, l.shards[0].final, "")
	e.publish(t, l.shards[2].final, "")
	done := e.waitStatus(t, run.ID, runs.Completed)
	e.checkResult(t, run.ID, want, 3, 0)
	checkSummary(t, done, want)
}

func TestIngestLosesShardWithoutHeartbeat(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	startAt := time.Now().UTC().Add(-5 * time.Second).Truncate(time.Millisecond)
	run, agents := e.plannedRun(t, openSpec(), 3, startAt, startAt.Add(time.Minute))
	e.beat(t, agents[0], agents[1]) // shard 2's agent is gone
	e.start(t, nil)
	l := makeLoad(t, run.ID, startAt, 3, 3)
	for s := range 3 {
		for k := range 2 {
			e.publish(t, l.shards[s].intervals[k], "")
		}
	}
	for s := range 2 {
		e.publish(t, l.shards[s].intervals[2], "")
		e.publish(t, l.shards[s].final, "")
	}
	done := e.waitStatus(t, run.ID, runs.Completed)
	if !done.Degraded {
		t.Error("run with a lost shard is not degraded")
	}
	// The result holds the finals plus the two seconds shard 2 sent
	// before it was lost; the duration is the finished shards'.
	want := l.finals(t, 0, 1)
	want.start, want.end = withSeconds(t, want, l.shards[2].seconds[:2])
	e.checkResult(t, run.ID, want, 2, 1)
	checkSummary(t, done, want)
	ivs, err := e.st.RunIntervals(ctxT(t), run.ID, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	var sum int64
	for _, iv := range ivs {
		sum += iv.Count
	}
	if sum != want.count {
		t.Errorf("the run's seconds count %d requests, its result %d", sum, want.count)
	}
	if n := e.count(t, "SELECT count(*) FROM run_shards WHERE run_id = $1 AND shard = 2 AND status = 'lost' AND NOT final_received", run.ID); n != 1 {
		t.Error("shard 2 is not lost")
	}
	if p := e.runPhase(t, run.ID); p != barragev1.RunPhase_RUN_PHASE_DONE {
		t.Errorf("run state = %s, want done", p)
	}
}

// withSeconds merges seconds into m, and returns m's span as it was
// before.
func withSeconds(t *testing.T, m *measured, seconds []*measured) (start, end time.Time) {
	t.Helper()
	start, end = m.start, m.end
	for _, sec := range seconds {
		m.add(t, sec)
	}
	return start, end
}

func TestIngestFailsRunWhenAllShardsLost(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	startAt := time.Now().UTC().Add(-time.Second).Truncate(time.Millisecond)
	run, _ := e.plannedRun(t, openSpec(), 3, startAt, startAt.Add(time.Minute))
	e.start(t, nil) // no agent beats
	done := e.waitStatus(t, run.ID, runs.Failed)
	if done.Error != "all 3 shards lost: no final snapshot arrived (agent gone or deadline missed)" || !done.Degraded || done.Summary != nil || done.EndedAt.IsZero() {
		t.Errorf("failed run = error %q degraded %v summary %+v ended %v", done.Error, done.Degraded, done.Summary, done.EndedAt)
	}
	if _, err := e.st.RunResult(ctxT(t), run.ID); !apperr.Is(err, apperr.NotFound) {
		t.Errorf("result of a run with no final: err = %v, want NotFound", err)
	}
	if p := e.runPhase(t, run.ID); p != barragev1.RunPhase_RUN_PHASE_DONE {
		t.Errorf("run state = %s, want done", p)
	}
	waitFor(t, 10*time.Second, func() error { // the hook hears of the end after the state is written
		if _, _, ends := e.events.tally(run.ID); ends[runs.Failed] != 1 {
			return fmt.Errorf("run ends seen by the hook = %v, want one failed", ends)
		}
		return nil
	})
}

func TestIngestLosesShardAfterDeadline(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	startAt := time.Now().UTC().Add(-5 * time.Second).Truncate(time.Millisecond)
	deadline := startAt.Add(10 * time.Second)
	run, agents := e.plannedRun(t, openSpec(), 3, startAt, deadline)
	e.beat(t, agents...) // every agent alive: only the deadline can lose shard 2
	clock := &fakeClock{now: time.Now()}
	e.start(t, func(c *ingest.Config) { c.Now = clock.Now })
	l := makeLoad(t, run.ID, startAt, 3, 2)
	for s := range 2 {
		e.publish(t, l.shards[s].intervals[0], "")
		e.publish(t, l.shards[s].intervals[1], "")
		e.publish(t, l.shards[s].final, "")
	}
	e.drained(t)
	// Three sweeps later the run still waits for shard 2.
	calls := clock.calls()
	waitFor(t, 10*time.Second, func() error {
		if n := clock.calls(); n < calls+3 {
			return fmt.Errorf("%d sweeps so far", n-calls)
		}
		return nil
	})
	if r, err := e.st.GetRun(ctxT(t), run.ID); err != nil || r.Status != runs.Dispatching {
		t.Fatalf("before the deadline the run is %s (%v), want dispatching", r.Status, err)
	}
	end := deadline.Add(10*time.Second + time.Millisecond)
	clock.set(end)
	done := e.waitStatus(t, run.ID, runs.Completed)
	if !done.Degraded || !done.EndedAt.Equal(end.UTC().Truncate(time.Microsecond)) {
		t.Errorf("run = degraded %v ended %v; want degraded, ended at the clock's %v", done.Degraded, done.EndedAt, end)
	}
	e.checkResult(t, run.ID, l.finals(t, 0, 1), 2, 1)
}

func TestIngestCancelsRunStoppedBeforeAnyRequest(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	startAt := time.Now().UTC().Add(-time.Second).Truncate(time.Millisecond)
	run, agents := e.plannedRun(t, openSpec(), 2, startAt, startAt.Add(time.Minute))
	e.beat(t, agents...)
	if _, err := e.st.MoveRun(ctxT(t), runs.Move{RunID: run.ID, To: runs.Stopping}); err != nil {
		t.Fatal(err)
	}
	e.start(t, nil)
	empty := makeLoad(t, run.ID, startAt, 2, 0)
	for s := range 2 {
		e.publish(t, empty.shards[s].final, "")
	}
	done := e.waitStatus(t, run.ID, runs.Canceled)
	if done.Degraded || done.Summary != nil {
		t.Errorf("canceled run = degraded %v summary %+v", done.Degraded, done.Summary)
	}
}

// fakeClock is a settable clock that counts its readings.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
	n   int
}

// Now returns the clock's time.
func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
	return c.now
}

// set moves the clock to t.
func (c *fakeClock) set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

// calls returns how many times the clock was read.
func (c *fakeClock) calls() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}
