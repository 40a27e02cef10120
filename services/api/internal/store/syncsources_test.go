package store

import (
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/resultsync"
)

// mustSource stores a sync source of the fixture's project.
func mustSource(t *testing.T, f fixture, url string, interval int, next time.Time) resultsync.Source {
	t.Helper()
	src, err := f.s.CreateSource(ctxT(t), resultsync.Source{
		ID: uuid.New(), ProjectID: f.project.ID, Name: "peer", URL: url, Kind: resultsync.KindAuto,
		IntervalMinutes: interval, MaxPages: 10, MaxObjects: 100, NextRunAt: next,
	}, f.actor)
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// TestClaimDueOnce: of servers claiming due sources at the same time, each
// source goes to one, and its next run moves an interval on.
func TestClaimDueOnce(t *testing.T) {
	t.Parallel()
	f := mustFixture(t)
	now := time.Date(2031, 1, 2, 3, 4, 5, 0, time.UTC)
	due := mustSource(t, f, "http://a.test/index.tsv", 5, now.Add(-time.Minute))
	mustSource(t, f, "http://b.test/index.tsv", 5, now.Add(time.Minute)) // not due
	mustSource(t, f, "http://c.test/index.tsv", 0, time.Time{})          // on demand
	if _, err := f.s.CreateSource(ctxT(t), resultsync.Source{
		ID: uuid.New(), ProjectID: f.project.ID, Name: "dup", URL: "http://a.test/index.tsv", Kind: resultsync.KindAuto, MaxPages: 1, MaxObjects: 1,
	}, f.actor); !apperr.Is(err, apperr.Conflict) {
		t.Errorf("second source with the same URL: %v, want a conflict", err)
	}
	const servers = 8
	claimed := make([][]resultsync.Source, servers)
	var wg sync.WaitGroup
	for i := range servers {
		wg.Go(func() {
			var err error
			if claimed[i], err = f.s.ClaimDue(ctxT(t), now, 10); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	var got []uuid.UUID
	for _, c := range claimed {
		for _, s := range c {
			got = append(got, s.ID)
			if want := now.Add(5 * time.Minute); !s.NextRunAt.Equal(want) {
				t.Errorf("claimed source's next run %v, want %v", s.NextRunAt, want)
			}
		}
	}
	if len(got) != 1 || got[0] != due.ID {
		t.Errorf("claims %v, want %s once", got, due.ID)
	}
	if again, err := f.s.ClaimDue(ctxT(t), now.Add(4*time.Minute), 10); err != nil || len(again) != 1 {
		// b.test is due by then; a.test not until now+5m.
		t.Errorf("claims 4 minutes later: %d, %v; want b.test alone", len(again), err)
	}
}

// TestStartSyncOneAtATime: a source has one running sync; a stale one is
// ended as failed so the next can start; objects count on their sync.
func TestStartSyncOneAtATime(t *testing.T) {
	t.Parallel()
	f := mustFixture(t)
	ctx := ctxT(t)
	src := mustSource(t, f, "http://a.test/index.tsv", 0, time.Time{})
	past := time.Now().Add(-time.Hour)
	first, err := f.s.StartSync(ctx, src.ID, resultsync.TriggerManual, past)
	if err != nil || first.Status != resultsync.Running || first.ProjectID != f.project.ID {
		t.Fatalf("start: %+v, %v", first, err)
	}
	if _, err := f.s.StartSync(ctx, src.ID, resultsync.TriggerSchedule, past); !apperr.Is(err, apperr.Conflict) {
		t.Errorf("second start while running: %v, want a conflict", err)
	}
	for i, o := range []resultsync.Outcome{resultsync.Imported, resultsync.FailedObj, resultsync.FailedObj, resultsync.Skipped} {
		if err := f.s.AddSyncObject(ctx, first.ID, i, resultsync.Object{URL: "http://a.test/x.json", Size: -1, Outcome: o, Reason: "r"}); err != nil {
			t.Fatal(err)
		}
	}
	sync1, err := f.s.GetSync(ctx, first.ID)
	if err != nil || sync1.Imported != 1 || sync1.Failed != 2 || sync1.Skipped != 1 || len(sync1.Objects) != 4 || sync1.Objects[0].Size != -1 {
		t.Errorf("sync %+v, %v", sync1, err)
	}
	// A sync that started before staleBefore is taken for dead.
	second, err := f.s.StartSync(ctx, src.ID, resultsync.TriggerManual, time.Now().Add(time.Minute))
	if err != nil {
		t.Fatalf("start after a stale sync: %v", err)
	}
	old, err := f.s.GetSync(ctx, first.ID)
	if err != nil || old.Status != resultsync.Failed || old.EndedAt.IsZero() || second.ID == first.ID {
		t.Errorf("stale sync %+v, %v", old, err)
	}
}
