package ingest_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/pkg/wire"
	"github.com/barrage-dev/barrage/services/api/internal/ingest"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// gatedStore is the real store storing snapshots only as permits are
// given, one call (a batch) per permit: an ingest that drains a backlog
// slowly, or not at all.
type gatedStore struct {
	ingest.Store
	permits atomic.Int64
}

func (g *gatedStore) take() bool {
	for {
		n := g.permits.Load()
		if n <= 0 {
			return false
		}
		if g.permits.CompareAndSwap(n, n-1) {
			return true
		}
	}
}

func (g *gatedStore) RecordFinal(ctx context.Context, rec runs.SnapshotRecord) (runs.Recorded, error) {
	if !g.take() {
		return runs.Recorded{}, errPaused
	}
	return g.Store.RecordFinal(ctx, rec)
}

func (g *gatedStore) BeginIntervals(ctx context.Context, recs []runs.SnapshotRecord) (runs.IntervalBatch, error) {
	if !g.take() {
		return nil, errPaused
	}
	return g.Store.BeginIntervals(ctx, recs)
}

// backlogRun plans a 2-shard run that ended, its agents gone, with every
// snapshot of it (6 seconds and the final, per shard) waiting in the
// stream, and starts an ingester storing only as the returned store is
// given permits, on the returned clock set to at(deadline).
func backlogRun(t *testing.T, e *env, at func(deadline time.Time) time.Time) (runs.Run, *load, *gatedStore, *fakeClock) {
	t.Helper()
	startAt := time.Now().UTC().Add(-10 * time.Second).Truncate(time.Millisecond)
	run, _ := e.plannedRun(t, openSpec(), 2, startAt, startAt.Add(8*time.Second))
	l := makeLoad(t, run.ID, startAt, 2, 6)
	for s := range 2 {
		for _, iv := range l.shards[s].intervals {
			e.publish(t, iv, "")
		}
		e.publish(t, l.shards[s].final, "")
	}
	st := &gatedStore{Store: e.st}
	clock := &fakeClock{now: at(run.Deadline)}
	e.start(t, func(c *ingest.Config) { c.Store, c.Now = st, clock.Now })
	return run, l, st, clock
}

// streamMsgs returns how many snapshots wait in the stream.
func (e *env) streamMsgs(t *testing.T) uint64 {
	t.Helper()
	st, err := e.js.Stream(ctxT(t), wire.SnapStream)
	if err != nil {
		t.Fatal(err)
	}
	info, err := st.Info(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	return info.State.Msgs
}

// sweeps waits until the sweeper has swept n more times on clock (each
// sweep reads the clock at least twice).
func sweeps(t *testing.T, clock *fakeClock, n int) {
	t.Helper()
	from := clock.calls()
	waitFor(t, 10*time.Second, func() error {
		if got := clock.calls() - from; got < 2*n {
			return fmt.Errorf("%d clock reads so far", got)
		}
		return nil
	})
}

func (e *env) lostShards(t *testing.T, id uuid.UUID) int64 {
	t.Helper()
	return e.count(t, "SELECT count(*) FROM run_shards WHERE run_id = $1 AND status = 'lost'", id)
}

// A backlog that drains slowly keeps its shards pending long past the
// deadline, the final grace and ingest.BacklogGrace: each stored batch
// shows the ingest alive, and the run completes whole.
func TestIngestKeepsShardsWhileTheBacklogDrains(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	run, l, st, clock := backlogRun(t, e, func(deadline time.Time) time.Time {
		return deadline.Add(wire.FinalGrace + ingest.BacklogGrace + 5*time.Minute)
	})
	sweeps(t, clock, 5)
	for step := 0; ; step++ {
		if n := e.lostShards(t, run.ID); n != 0 {
			t.Fatalf("step %d: %d shards lost while the backlog drains (%d snapshots wait)", step, n, e.streamMsgs(t))
		}
		waiting := e.streamMsgs(t)
		if waiting == 0 {
			break
		}
		// Less than BacklogGrace passes between two stored batches.
		clock.set(clock.Now().Add(ingest.BacklogGrace * 2 / 3))
		sweeps(t, clock, 3)
		st.permits.Add(1)
		waitFor(t, 10*time.Second, func() error {
			if n := e.streamMsgs(t); n >= waiting {
				return fmt.Errorf("%d snapshots wait, as before the permit", n)
			}
			return nil
		})
		sweeps(t, clock, 3)
	}
	done := e.waitStatus(t, run.ID, runs.Completed)
	if done.Degraded {
		t.Error("run is degraded although every snapshot arrived")
	}
	e.checkResult(t, run.ID, l.finals(t, 0, 1), 2, 0)
}

// An ingest that stores nothing for ingest.BacklogGrace no longer holds
// the queued shards: past the deadline, grace and BacklogGrace, they are
// lost, and the run ends.
func TestIngestLosesShardsOnceTheBacklogStalls(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	run, _, _, clock := backlogRun(t, e, func(deadline time.Time) time.Time {
		return deadline.Add(wire.FinalGrace + ingest.BacklogGrace/2)
	})
	sweeps(t, clock, 5)
	if n := e.lostShards(t, run.ID); n != 0 {
		t.Fatalf("%d shards lost within the backlog grace", n)
	}
	clock.set(clock.Now().Add(ingest.BacklogGrace + time.Second))
	waitFor(t, 10*time.Second, func() error {
		if n := e.lostShards(t, run.ID); n != 2 {
			return fmt.Errorf("%d shards lost, want 2", n)
		}
		return nil
	})
	e.waitStatus(t, run.ID, runs.Failed)
}
