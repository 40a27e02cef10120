package ingest_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"google.golang.org/protobuf/proto"

	"github.com/barrage-dev/barrage/pkg/wire"
	barragev1 "github.com/barrage-dev/barrage/proto/barrage/v1"
	"github.com/barrage-dev/barrage/services/api/internal/ingest"
	"github.com/barrage-dev/barrage/services/api/internal/live"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

func TestIngestRestartLosesAndDoublesNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	startAt := time.Now().UTC().Add(-8 * time.Second).Truncate(time.Millisecond)
	run, agents := e.plannedRun(t, openSpec(), 3, startAt, startAt.Add(time.Minute))
	e.beat(t, agents...)
	l := makeLoad(t, run.ID, startAt, 3, 6)
	for k := range 3 {
		for s := range 3 {
			e.publish(t, l.shards[s].intervals[k], "")
		}
	}

	// The first ingester fetches one snapshot at a time and stops after
	// storing two: it hands back the one it fetched meanwhile, and the
	// others wait in the stream.
	// Were they not handed back, they would wait out the 30 s ack wait and
	// the run would not complete in time.
	ctxA, cancelA := context.WithCancel(context.Background())
	var (
		mu sync.Mutex
		n  int
	)
	stopA := e.startCtx(t, ctxA, func(c *ingest.Config) {
		c.Workers = 1
		c.BatchSize = 1
		c.OnInterval = func(ev live.Event) {
			e.events.add(ev)
			mu.Lock()
			defer mu.Unlock()
			n++
			if n == 2 {
				cancelA()
			}
		}
	})
	<-ctxA.Done()
	stopA()
	if got := e.count(t, "SELECT count(*) FROM run_snapshots WHERE run_id = $1", run.ID); got != 2 {
		t.Fatalf("the first ingester stored %d snapshots before it stopped, want 2", got)
	}

	// Agents go on while no ingester runs; a new one takes over the durable.
	for k := 3; k < 6; k++ {
		for s := range 3 {
			e.publish(t, l.shards[s].intervals[k], "")
		}
	}
	for s := range 3 {
		e.publish(t, l.shards[s].final, "")
	}
	e.start(t, nil)
	done := e.waitStatus(t, run.ID, runs.Completed)
	e.drained(t)

	total := l.finals(t, 0, 1, 2)
	if sum := e.checkIntervals(t, run.ID, l, 6); sum != total.count {
		t.Errorf("seconds count %d requests, the finals %d", sum, total.count)
	}
	e.checkResult(t, run.ID, total, 3, 0)
	checkSummary(t, done, total)
	if got := e.count(t, "SELECT count(*) FROM run_snapshots WHERE run_id = $1", run.ID); got != 21 {
		t.Errorf("run_snapshots rows = %d, want 21", got)
	}
	if seconds, finals, ends := e.events.tally(run.ID); seconds != 6 || finals != 3 || ends[runs.Completed] != 1 {
		t.Errorf("events across both ingesters: %d seconds, %d finals, ends %v; want 6, 3, one completed", seconds, finals, ends)
	}
}

func TestIngestDropsMalformedSnapshots(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	startAt := time.Now().UTC().Add(-3 * time.Second).Truncate(time.Millisecond)
	run, agents := e.plannedRun(t, openSpec(), 1, startAt, startAt.Add(time.Minute))
	e.beat(t, agents...)
	e.start(t, nil)
	l := makeLoad(t, run.ID, startAt, 1, 1)
	good := l.shards[0].intervals[0]
	good.AgentId = agents[0].String()
	other := uuid.NewString() // an agent the shard is not planned on
	with := func(edit func(*barragev1.Snapshot)) *barragev1.Snapshot {
		s := proto.CloneOf(good)
		edit(s)
		return s
	}
	marshal := func(s *barragev1.Snapshot) []byte {
		b, err := proto.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	me := agents[0].String()
	own := wire.SnapSubject(me, run.ID.String(), 0)
	unknown := uuid.NewString()
	bad := []struct {
		name    string
		subject string
		data    []byte
	}{
		{"not protobuf", own, []byte("\xff\xff\xff not a snapshot")},
		{"bad run id", wire.SnapSubject(me, "not-a-uuid", 0), marshal(with(func(s *barragev1.Snapshot) { s.RunId = "not-a-uuid" }))},
		{"corrupt histogram", own, marshal(with(func(s *barragev1.Snapshot) { s.ResponseHdr = []byte("HISTFAAAAB not really") }))},
		{"unknown run", wire.SnapSubject(me, unknown, 0), marshal(with(func(s *barragev1.Snapshot) { s.RunId = unknown }))},
		{"unknown shard", wire.SnapSubject(me, run.ID.String(), 7), marshal(with(func(s *barragev1.Snapshot) { s.Shard = 7 }))},
		{"wrong subject", wire.SnapSubject(me, run.ID.String(), 1), marshal(good)},
		{"another agent's subject", wire.SnapSubject(other, run.ID.String(), 0), marshal(good)},
		{"another agent's shard", wire.SnapSubject(other, run.ID.String(), 0), marshal(with(func(s *barragev1.Snapshot) { s.AgentId = other }))},
		{"seq 0", own, marshal(with(func(s *barragev1.Snapshot) { s.Seq = 0 }))},
		{"no interval start", own, marshal(with(func(s *barragev1.Snapshot) { s.IntervalStart = nil }))},
	}
	for i, b := range bad {
		e.publishRaw(t, b.subject, b.data, "bad-"+b.name+"-"+string(rune('a'+i)))
	}
	e.publish(t, good, "")
	e.publish(t, l.shards[0].final, "")
	done := e.waitStatus(t, run.ID, runs.Completed)
	e.drained(t) // terminated snapshots leave the work-queue stream too

	if got := e.count(t, "SELECT count(*) FROM run_snapshots"); got != 2 {
		t.Errorf("run_snapshots rows = %d, want 2 (the good interval and final)", got)
	}
	want := l.finals(t, 0)
	e.checkIntervals(t, run.ID, l, 1)
	checkSummary(t, done, want)
	if got := strings.Count(e.log.String(), "ingest: snapshot dropped"); got != len(bad) {
		t.Errorf("log has %d dropped snapshots, want %d:\n%s", got, len(bad), e.log)
	}
}

func TestIngestRecreatesADeletedConsumer(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	startAt := time.Now().UTC().Add(-5 * time.Second).Truncate(time.Millisecond)
	run, agents := e.plannedRun(t, openSpec(), 2, startAt, startAt.Add(time.Minute))
	e.beat(t, agents...)
	e.start(t, nil)
	l := makeLoad(t, run.ID, startAt, 2, 2)
	for s := range 2 {
		e.publish(t, l.shards[s].intervals[0], "")
	}
	e.drained(t)

	// Someone deletes the durable consumer under the running ingester: the
	// pull fails, the ingester creates the consumer again and reads on.
	if err := e.js.DeleteConsumer(ctxT(t), wire.SnapStream, wire.IngestConsumer); err != nil {
		t.Fatal(err)
	}
	for s := range 2 {
		e.publish(t, l.shards[s].intervals[1], "")
		e.publish(t, l.shards[s].final, "")
	}
	e.waitStatus(t, run.ID, runs.Completed)
	e.drained(t)
	if got := e.count(t, "SELECT count(*) FROM run_snapshots WHERE run_id = $1", run.ID); got != 6 {
		t.Errorf("run_snapshots rows = %d, want 6", got)
	}
	total := l.finals(t, 0, 1)
	if sum := e.checkIntervals(t, run.ID, l, 2); sum != total.count {
		t.Errorf("seconds count %d requests, the finals %d", sum, total.count)
	}
	if !strings.Contains(e.log.String(), "ingest: pull snapshots") {
		t.Errorf("the ingester did not log the failed pull:\n%s", e.log)
	}
}

// pausedStore is the real store with storing snapshots paused, as while
// Postgres is paused or the ingest is backlogged: the snapshots wait in
// the stream. Sweeps still reach the database.
type pausedStore struct {
	ingest.Store
	paused atomic.Bool
}

var errPaused = errors.New("storing snapshots is paused")

func (p *pausedStore) RecordFinal(ctx context.Context, rec runs.SnapshotRecord) (runs.Recorded, error) {
	if p.paused.Load() {
		return runs.Recorded{}, errPaused
	}
	return p.Store.RecordFinal(ctx, rec)
}

func (p *pausedStore) BeginIntervals(ctx context.Context, recs []runs.SnapshotRecord) (runs.IntervalBatch, error) {
	if p.paused.Load() {
		return nil, errPaused
	}
	return p.Store.BeginIntervals(ctx, recs)
}

// A shard whose agent finished and exited while its final snapshot still
// waits in the stream is not lost: the sweeper sees the queued snapshots
// (docs/reliability.md) and the run completes whole once they are stored.
func TestIngestWaitsForAFinalQueuedInTheStream(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	startAt := time.Now().UTC().Add(-5 * time.Second).Truncate(time.Millisecond)
	run, agents := e.plannedRun(t, openSpec(), 2, startAt, startAt.Add(time.Minute))
	e.beat(t, agents[0]) // shard 1's agent sent everything and exited
	st := &pausedStore{Store: e.st}
	st.paused.Store(true)
	// Everything is in the stream before the first sweep.
	l := makeLoad(t, run.ID, startAt, 2, 2)
	for s := range 2 {
		e.publish(t, l.shards[s].intervals[0], "")
		e.publish(t, l.shards[s].intervals[1], "")
		e.publish(t, l.shards[s].final, "")
	}
	clock := &fakeClock{now: time.Now()}
	e.start(t, func(c *ingest.Config) { c.Store, c.Now = st, clock.Now })
	calls := clock.calls()
	waitFor(t, 10*time.Second, func() error {
		if n := clock.calls(); n < calls+5 {
			return fmt.Errorf("%d sweeps so far", n-calls)
		}
		return nil
	})
	if n := e.count(t, "SELECT count(*) FROM run_shards WHERE run_id = $1 AND status = 'lost'", run.ID); n != 0 {
		t.Fatalf("%d shards lost while their snapshots wait in the stream", n)
	}
	st.paused.Store(false)
	done := e.waitStatus(t, run.ID, runs.Completed)
	if done.Degraded {
		t.Error("run is degraded although every snapshot arrived")
	}
	e.checkResult(t, run.ID, l.finals(t, 0, 1), 2, 0)
}
