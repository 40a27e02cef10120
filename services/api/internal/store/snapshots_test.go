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
	out, err := f.s.RecordIntervals(ctx, batch, merge)
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
	out, err = f.s.RecordIntervals(ctx, batch[:2], merge)
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
	_, err = f.s.RecordIntervals(ctx, []runs.SnapshotRecord{rec(1, 3), rec(7, 1)}, merge)
	if !apperr.Is(err, apperr.NotFound) {
		t.Errorf("unknown shard: err %v, want NotFound", err)
	}
	forged := rec(0, 3)
	forged.Agent = testAgent(1) // shard 0 is agent 0's
	if _, err := f.s.RecordIntervals(ctx, []runs.SnapshotRecord{forged}, merge); !apperr.Is(err, apperr.NotFound) {
		t.Errorf("another agent's snapshot: err %v, want NotFound", err)
	}
	other := rec(0, 1)
	other.RunID = uuid.New()
	if _, err := f.s.RecordIntervals(ctx, []runs.SnapshotRecord{other}, merge); !apperr.Is(err, apperr.NotFound) {
		t.Errorf("unknown run: err %v, want NotFound", err)
	}
	if st := f.shardState(t, run.ID, 1); st.LastSeq != 1 {
		t.Errorf("shard 1 last seq %d after a failed batch, want 1", st.LastSeq)
	}
}
