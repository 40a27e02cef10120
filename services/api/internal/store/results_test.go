package store

import (
	"errors"
	"maps"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// final stores a final snapshot for a shard.
func (f fixture) final(tb testing.TB, runID uuid.UUID, shard int, count int64, encoded string) {
	tb.Helper()
	rec := runs.SnapshotRecord{Agent: testAgent(shard), RunID: runID, Shard: shard, Seq: 1, Final: true, Count: count, Encoded: []byte(encoded)}
	if _, err := f.s.RecordFinal(ctxT(tb), rec); err != nil {
		tb.Fatal(err)
	}
}

func TestFinishRun(t *testing.T) {
	t.Parallel()
	f := mustFixture(t)
	ctx := ctxT(t)
	start := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	run, _ := f.mustPlanned(t, 3, start, start.Add(time.Minute))
	calls := 0
	var seen runs.Settlement
	end := start.Add(70 * time.Second)
	want := runs.Finish{
		Status: runs.Completed, At: end, StartedAt: start.Add(time.Second), Degraded: true,
		Summary: &runs.Summary{Count: 300, Errors: 3, QPS: 5, MinUS: 10, AvgUS: 20.5, P50US: 20, P90US: 30, P99US: 40, MaxUS: 50},
		Result: &runs.Result{
			Response: []byte("resp"), Service: []byte("svc"), Lag: []byte("lag"), RetCodes: map[string]int64{"200": 297, "-1": 3},
			Count: 300, Errors: 3, BytesSent: 3000, BytesReceived: 6000, Duration: 60 * time.Second, Shards: 2, LostShards: 1,
		},
	}
	decide := func(s runs.Settlement) (runs.Finish, error) {
		calls++
		seen = s
		return want, nil
	}

	f.final(t, run.ID, 0, 100, "final-0")
	if _, done, err := f.s.FinishRun(ctx, run.ID, decide); err != nil || done || calls != 0 {
		t.Fatalf("FinishRun with pending shards: done=%v err=%v calls=%d; want nothing done", done, err, calls)
	}
	f.final(t, run.ID, 2, 200, "final-2")
	if _, err := f.s.SweepShards(ctx, runs.Sweep{Now: start.Add(2 * time.Minute), Grace: 10 * time.Second, Limit: 10}); err != nil {
		t.Fatal(err)
	}
	got, done, err := f.s.FinishRun(ctx, run.ID, decide)
	if err != nil || !done || calls != 1 {
		t.Fatalf("FinishRun of a settled run: done=%v err=%v calls=%d", done, err, calls)
	}
	if seen.Run.ID != run.ID || seen.Run.Status != runs.Dispatching || len(seen.Shards) != 3 ||
		string(seen.Shards[0].Final) != "final-0" || seen.Shards[1].Status != runs.ShardLost || seen.Shards[1].Final != nil ||
		string(seen.Shards[2].Final) != "final-2" || seen.Shards[2].Count != 200 {
		t.Errorf("decide saw %+v", seen)
	}
	if got.Status != runs.Completed || !got.EndedAt.Equal(end) || !got.StartedAt.Equal(want.StartedAt) || !got.Degraded ||
		got.Summary == nil || *got.Summary != *want.Summary {
		t.Errorf("finished run = %+v (summary %+v)", got, got.Summary)
	}
	if again, err := f.s.GetRun(ctx, run.ID); err != nil || again.Status != runs.Completed || *again.Summary != *want.Summary {
		t.Errorf("GetRun after finish = %+v, %v", again, err)
	}
	res, err := f.s.RunResult(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	w := *want.Result
	w.RunID, w.CreatedAt = run.ID, res.CreatedAt
	if string(res.Response) != "resp" || string(res.Service) != "svc" || string(res.Lag) != "lag" || !maps.Equal(res.RetCodes, w.RetCodes) ||
		res.Count != w.Count || res.Errors != w.Errors || res.BytesSent != w.BytesSent || res.BytesReceived != w.BytesReceived ||
		res.Duration != w.Duration || res.Shards != 2 || res.LostShards != 1 || res.RunID != run.ID {
		t.Errorf("RunResult = %+v, want %+v", res, w)
	}
	if n := f.count(t, "SELECT count(*) FROM audit_log WHERE action = 'run.move' AND target_id = ? AND details->>'to' = 'completed'", run.ID.String()); n != 1 {
		t.Errorf("audit rows for the finish = %d, want 1", n)
	}

	if _, done, err := f.s.FinishRun(ctx, run.ID, decide); err != nil || done || calls != 1 {
		t.Errorf("FinishRun of an ended run: done=%v err=%v calls=%d; want a no-op", done, err, calls)
	}
	if _, _, err := f.s.FinishRun(ctx, uuid.New(), decide); !apperr.Is(err, apperr.NotFound) {
		t.Errorf("FinishRun(missing run) err = %v, want NotFound", err)
	}
	if _, err := f.s.RunResult(ctx, uuid.New()); !apperr.Is(err, apperr.NotFound) {
		t.Errorf("RunResult(missing) err = %v, want NotFound", err)
	}
}

func TestFinishRunRefusals(t *testing.T) {
	t.Parallel()
	f := mustFixture(t)
	ctx := ctxT(t)
	start := time.Now().UTC()
	tests := []struct {
		name   string
		decide func(runs.Settlement) (runs.Finish, error)
		code   apperr.Code
	}{
		{"status not terminal", func(runs.Settlement) (runs.Finish, error) { return runs.Finish{Status: runs.Running}, nil }, apperr.Conflict},
		{"status unreachable", func(runs.Settlement) (runs.Finish, error) { return runs.Finish{Status: runs.Queued}, nil }, apperr.Conflict},
		{"decide fails", func(runs.Settlement) (runs.Finish, error) { return runs.Finish{}, errors.New("boom") }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run, _ := f.mustPlanned(t, 1, start, start.Add(time.Minute))
			f.final(t, run.ID, 0, 1, "f")
			_, done, err := f.s.FinishRun(ctx, run.ID, tt.decide)
			if err == nil || done || (tt.code != "" && !apperr.Is(err, tt.code)) {
				t.Fatalf("FinishRun: done=%v err=%v, want an error with code %q", done, err, tt.code)
			}
			after, err := f.s.GetRun(ctx, run.ID)
			if err != nil || after.Status != runs.Dispatching || after.Summary != nil {
				t.Errorf("run after a refused finish = %+v, %v; want it untouched", after, err)
			}
			if _, err := f.s.RunResult(ctx, run.ID); !apperr.Is(err, apperr.NotFound) {
				t.Errorf("result after a refused finish: err = %v, want NotFound", err)
			}
		})
	}
}

func TestFinishRunFailedWithoutResult(t *testing.T) {
	t.Parallel()
	f := mustFixture(t)
	ctx := ctxT(t)
	start := time.Now().UTC().Add(-time.Hour)
	run, _ := f.mustPlanned(t, 2, start, start.Add(time.Minute))
	if _, err := f.s.SweepShards(ctx, runs.Sweep{Now: time.Now(), Grace: 10 * time.Second, Limit: 10}); err != nil {
		t.Fatal(err)
	}
	got, done, err := f.s.FinishRun(ctx, run.ID, func(s runs.Settlement) (runs.Finish, error) {
		return runs.Finish{Status: runs.Failed, Error: "all 2 shards lost", Degraded: true}, nil
	})
	if err != nil || !done || got.Status != runs.Failed || got.Error != "all 2 shards lost" || got.EndedAt.IsZero() || got.Summary != nil {
		t.Errorf("FinishRun = %+v, %v, %v", got, done, err)
	}
	if _, err := f.s.RunResult(ctx, run.ID); !apperr.Is(err, apperr.NotFound) {
		t.Errorf("result of a failed run: err = %v, want NotFound", err)
	}
}
