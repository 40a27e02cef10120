package store

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

func TestMoveRun(t *testing.T) {
	t.Parallel()
	f := mustFixture(t)
	ctx := ctxT(t)
	run := f.mustRun(t, f.newRun(f.project.ID, time.Now()))
	t0 := time.Date(2030, 6, 1, 12, 0, 0, 0, time.UTC)
	steps := []struct {
		to         runs.Status
		at         time.Time
		errText    string
		control    []byte
		code       apperr.Code
		detail     string
		wantStart  time.Time
		wantEnd    time.Time
		wantStatus runs.Status
	}{
		{to: runs.Running, at: t0, code: apperr.Conflict, detail: "run is queued; it cannot become running", wantStatus: runs.Queued},
		{to: runs.Dispatching, at: t0, wantStatus: runs.Dispatching},
		{to: runs.Running, at: t0.Add(time.Second), wantStatus: runs.Running, wantStart: t0.Add(time.Second)},
		{to: runs.Stopping, at: t0.Add(time.Minute), control: []byte(`{"action":"stop"}`), wantStatus: runs.Stopping, wantStart: t0.Add(time.Second)},
		{to: runs.Failed, at: t0.Add(2 * time.Minute), errText: "agents lost", wantStatus: runs.Failed, wantStart: t0.Add(time.Second), wantEnd: t0.Add(2 * time.Minute)},
		{to: runs.Canceled, at: t0.Add(3 * time.Minute), code: apperr.Conflict, detail: "run is failed; it cannot become canceled", wantStatus: runs.Failed, wantStart: t0.Add(time.Second), wantEnd: t0.Add(2 * time.Minute)},
		{to: runs.Completed, at: t0.Add(3 * time.Minute), code: apperr.Conflict, detail: "run is failed; it cannot become completed", wantStatus: runs.Failed, wantStart: t0.Add(time.Second), wantEnd: t0.Add(2 * time.Minute)},
		{to: runs.Queued, at: t0.Add(3 * time.Minute), code: apperr.Conflict, detail: "no run can become queued", wantStatus: runs.Failed, wantStart: t0.Add(time.Second), wantEnd: t0.Add(2 * time.Minute)},
	}
	moves := 0
	for _, st := range steps {
		got, err := f.s.MoveRun(ctx, runs.Move{RunID: run.ID, To: st.to, At: st.at, Error: st.errText, Control: st.control, Actor: f.actor})
		if st.code != "" {
			if d := wantCode(t, err, st.code); d != st.detail {
				t.Errorf("move to %s: detail %q, want %q", st.to, d, st.detail)
			}
		} else {
			if err != nil {
				t.Fatalf("move to %s: %v", st.to, err)
			}
			moves++
			if got.Status != st.to || got.ID != run.ID || !got.UpdatedAt.After(run.UpdatedAt) {
				t.Errorf("move to %s returned %+v", st.to, got)
			}
		}
		now, err := f.s.GetRun(ctx, run.ID)
		if err != nil {
			t.Fatal(err)
		}
		if now.Status != st.wantStatus || !now.StartedAt.Equal(st.wantStart) || !now.EndedAt.Equal(st.wantEnd) {
			t.Errorf("after move to %s: status %s started %v ended %v; want %s %v %v",
				st.to, now.Status, now.StartedAt, now.EndedAt, st.wantStatus, st.wantStart, st.wantEnd)
		}
	}
	final, _ := f.s.GetRun(ctx, run.ID)
	if final.Error != "agents lost" {
		t.Errorf("Error = %q, want the failure's", final.Error)
	}
	if n := f.count(t, "SELECT count(*) FROM audit_log WHERE action = 'run.move' AND target_id = ?", run.ID.String()); n != int64(moves) {
		t.Errorf("run.move audit rows = %d, want %d (failed moves write none)", n, moves)
	}
	if n := f.count(t, "SELECT count(*) FROM outbox WHERE topic = 'run.control' AND key = ? AND payload = '{\"action\":\"stop\"}'::jsonb", run.ID.String()); n != 1 {
		t.Errorf("run.control outbox rows = %d, want 1", n)
	}
	_, err := f.s.MoveRun(ctx, runs.Move{RunID: uuid.New(), To: runs.Canceled, Actor: f.actor})
	wantCode(t, err, apperr.NotFound)
}

// TestMoveRunControlAtomic: a control payload that cannot be stored undoes
// the status change.
func TestMoveRunControlAtomic(t *testing.T) {
	t.Parallel()
	f := mustFixture(t)
	ctx := ctxT(t)
	run := f.mustRun(t, f.newRun(f.project.ID, time.Now()))
	_, err := f.s.MoveRun(ctx, runs.Move{RunID: run.ID, To: runs.Canceled, Control: []byte("not json"), Actor: f.actor})
	if err == nil {
		t.Fatal("MoveRun with a bad control payload succeeded")
	}
	got, _ := f.s.GetRun(ctx, run.ID)
	if got.Status != runs.Queued || !got.EndedAt.IsZero() {
		t.Errorf("after a failed move: status %s ended %v, want queued and not ended", got.Status, got.EndedAt)
	}
	if n := f.count(t, "SELECT count(*) FROM audit_log WHERE action = 'run.move'"); n != 0 {
		t.Errorf("run.move audit rows = %d, want 0", n)
	}
}

// TestMoveRunRace moves one dispatching run to running and to canceled at
// once, many times: exactly one of each pair wins.
func TestMoveRunRace(t *testing.T) {
	t.Parallel()
	f := mustFixture(t)
	for range 10 {
		run := f.mustRun(t, f.newRun(f.project.ID, time.Now()))
		if _, err := f.s.MoveRun(ctxT(t), runs.Move{RunID: run.ID, To: runs.Dispatching, Actor: f.actor}); err != nil {
			t.Fatal(err)
		}
		errs := make(chan error, 2)
		for _, to := range []runs.Status{runs.Completed, runs.Canceled} {
			go func() {
				_, err := f.s.MoveRun(ctxT(t), runs.Move{RunID: run.ID, To: to, Actor: f.actor})
				errs <- err
			}()
		}
		ok, conflicts := 0, 0
		for range 2 {
			switch err := <-errs; {
			case err == nil:
				ok++
			case apperr.Is(err, apperr.Conflict):
				conflicts++
			default:
				t.Fatal(err)
			}
		}
		if ok != 1 || conflicts != 1 {
			t.Errorf("run %s: %d moves won, %d conflicts; want 1 and 1", run.ID, ok, conflicts)
		}
	}
}

func TestRunSummary(t *testing.T) {
	t.Parallel()
	f := mustFixture(t)
	ctx := ctxT(t)
	tests := []struct {
		name string
		set  string
		want *runs.Summary
	}{
		{name: "none", set: "count = 0", want: nil},
		{name: "counted", set: "count = 1000, errors = 3, qps_actual = 99.5, min_us = 100, avg_us = 250.5, p50_us = 200, p90_us = 400, p99_us = 900, max_us = 1500",
			want: &runs.Summary{Count: 1000, Errors: 3, QPS: 99.5, MinUS: 100, AvgUS: 250.5, P50US: 200, P90US: 400, P99US: 900, MaxUS: 1500}},
		{name: "rate only", set: "qps_actual = 0", want: &runs.Summary{}},
		{name: "count only", set: "count = 5", want: &runs.Summary{Count: 5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := f.mustRun(t, f.newRun(f.project.ID, time.Now()))
			if err := f.s.conn(ctx).Exec("UPDATE runs SET "+tt.set+" WHERE id = ?", run.ID).Error; err != nil {
				t.Fatal(err)
			}
			got, err := f.s.GetRun(ctx, run.ID)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tt.want == nil && got.Summary != nil:
				t.Errorf("Summary = %+v, want nil", *got.Summary)
			case tt.want != nil && (got.Summary == nil || *got.Summary != *tt.want):
				t.Errorf("Summary = %+v, want %+v", got.Summary, *tt.want)
			}
		})
	}
}
