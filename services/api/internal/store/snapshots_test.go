package store

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

func TestRecordIntervals(t *testing.T) {
	t.Parallel()
	f := mustFixture(t)
	ctx := ctxT(t)
	startAt := time.Now().UTC().Add(-time.Minute).Truncate(time.Second)
	run, _ := f.mustPlanned(t, 2, startAt, startAt.Add(time.Hour))
	rec := func(shard int, seq int64) runs.SnapshotRecord {
		return runs.SnapshotRecord{Agent: testAgent(shard), RunID: run.ID, Shard: shard, Seq: seq, Count: 10, Errors: 1,
			IntervalStart: startAt.Add(time.Duration(seq-1) * time.Second)}
	}
	var merges [][]int
	merge := func(cur runs.Interval, fresh []int) (runs.Interval, error) {
		merges = append(merges, fresh)
		cur.Count += 10 * int64(len(fresh))
		cur.Snapshots += len(fresh)
		return cur, nil
	}
	// Shards 0 and 1 in second 0, shard 0 twice in the batch, shard 0 in
	// second 1.
	batch := []runs.SnapshotRecord{rec(0, 1), rec(1, 1), rec(0, 1), rec(0, 2)}
	out, err := f.recordIntervals(ctx, batch, merge)
	if err != nil {
		t.Fatal(err)
	}
	want := []runs.Recorded{{Second: 0}, {Second: 0}, {Duplicate: true}, {Second: 1}}
	for i := range want {
		if out[i] != want[i] {
			t.Errorf("out[%d] = %+v, want %+v", i, out[i], want[i])
		}
	}
	if len(merges) != 2 || len(merges[0]) != 2 || len(merges[1]) != 1 {
		t.Errorf("merges = %v, want one of two snapshots and one of one", merges)
	}

	// A redelivered batch changes nothing.
	merges = nil
	out, err = f.recordIntervals(ctx, batch[:2], merge)
	if err != nil || !out[0].Duplicate || !out[1].Duplicate || len(merges) != 0 {
		t.Errorf("redelivery: out %+v, merges %v, err %v", out, merges, err)
	}
	ivs, err := f.s.RunIntervals(ctx, run.ID, 0, 10)
	if err != nil || len(ivs) != 2 || ivs[0].Count != 20 || ivs[1].Count != 10 {
		t.Errorf("intervals %+v, err %v; want 20 then 10 requests", ivs, err)
	}
	if st := f.shardState(t, run.ID, 0); st.Count != 20 || st.Errors != 2 || st.LastSeq != 2 || st.Status != runs.ShardRunning {
		t.Errorf("shard 0 = %+v, want 20 requests, 2 errors, last seq 2, running", st)
	}

	// A shard that does not exist fails the whole batch.
	_, err = f.recordIntervals(ctx, []runs.SnapshotRecord{rec(1, 3), rec(7, 1)}, merge)
	if !apperr.Is(err, apperr.NotFound) {
		t.Errorf("unknown shard: err %v, want NotFound", err)
	}
	forged := rec(0, 3)
	forged.Agent = testAgent(1) // shard 0 is agent 0's
	if _, err := f.recordIntervals(ctx, []runs.SnapshotRecord{forged}, merge); !apperr.Is(err, apperr.NotFound) {
		t.Errorf("another agent's snapshot: err %v, want NotFound", err)
	}
	other := rec(0, 1)
	other.RunID = uuid.New()
	if _, err := f.recordIntervals(ctx, []runs.SnapshotRecord{other}, merge); !apperr.Is(err, apperr.NotFound) {
		t.Errorf("unknown run: err %v, want NotFound", err)
	}
	if st := f.shardState(t, run.ID, 1); st.LastSeq != 1 {
		t.Errorf("shard 1 last seq %d after a failed batch, want 1", st.LastSeq)
	}
}

func TestIntervalBatchRollback(t *testing.T) {
	t.Parallel()
	f := mustFixture(t)
	ctx := ctxT(t)
	startAt := time.Now().UTC().Add(-time.Minute).Truncate(time.Second)
	run, _ := f.mustPlanned(t, 1, startAt, startAt.Add(time.Hour))
	rec := runs.SnapshotRecord{Agent: testAgent(0), RunID: run.ID, Shard: 0, Seq: 1, Count: 4, IntervalStart: startAt.Add(1500 * time.Millisecond)}

	// A batch rolled back, and one whose commit is refused, store nothing.
	b, err := f.s.BeginIntervals(ctx, []runs.SnapshotRecord{rec})
	if err != nil {
		t.Fatal(err)
	}
	if secs := b.Seconds(); len(secs) != 1 || secs[0].Stored.Second != 1 || secs[0].Stored.Count != 0 || len(secs[0].Fresh) != 1 {
		t.Fatalf("seconds %+v, want second 1, empty, with the one snapshot", secs)
	}
	b.Rollback()
	b.Rollback() // a second rollback does nothing
	b, err = f.s.BeginIntervals(ctx, []runs.SnapshotRecord{rec})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(nil); err == nil {
		t.Error("a commit without the merged second succeeded")
	}
	if err := b.Commit([]runs.Interval{{}}); err == nil {
		t.Error("a second commit succeeded")
	}
	if n := f.count(t, "SELECT count(*) FROM run_snapshots WHERE run_id = ?", run.ID); n != 0 {
		t.Errorf("run_snapshots rows = %d after a rollback, want 0", n)
	}
	if st := f.shardState(t, run.ID, 0); st.LastSeq != 0 || st.Count != 0 {
		t.Errorf("shard 0 = %+v after a rollback, want untouched", st)
	}

	// The same snapshot then stores as new; RecordFinal refuses it.
	out, err := f.recordIntervals(ctx, []runs.SnapshotRecord{rec}, countMerge(rec, new(int)))
	if err != nil || out[0] != (runs.Recorded{Second: 1}) {
		t.Errorf("after the rollback: %+v, %v; want stored in second 1", out, err)
	}
	if _, err := f.s.RecordFinal(ctx, rec); err == nil {
		t.Error("RecordFinal stored an interval snapshot")
	}
}
