package store

import (
	"encoding/json"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

func TestCreateRun(t *testing.T) {
	t.Parallel()
	f := mustFixture(t)
	ctx := ctxT(t)
	n := f.newRun(f.project.ID, time.Now().UTC())
	run, created, err := f.s.CreateRun(ctx, n)
	if err != nil || !created {
		t.Fatalf("CreateRun: created=%v err=%v", created, err)
	}
	want := n.Run
	want.CreatedAt, want.UpdatedAt = want.CreatedAt.Truncate(time.Microsecond), want.UpdatedAt.Truncate(time.Microsecond)
	if run.Seq < 1 {
		t.Errorf("CreateRun gave run number %d, want one from 1", run.Seq)
	}
	want.Seq = run.Seq
	if !reflect.DeepEqual(run, want) {
		t.Errorf("CreateRun = %+v\nwant %+v", run, want)
	}
	got, err := f.s.GetRun(ctx, run.ID)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("GetRun = %+v, %v\nwant %+v", got, err, want)
	}
	if got.Summary != nil {
		t.Errorf("a new run has a summary: %+v", got.Summary)
	}
	var payload []byte
	if err := f.s.DB().QueryRowContext(ctx, "SELECT payload FROM outbox WHERE topic = $1 AND key = $2 AND published_at IS NULL", runs.TopicRunDispatch, run.ID.String()).Scan(&payload); err != nil {
		t.Fatal(err)
	}
	if !jsonEqual(t, payload, n.Dispatch) {
		t.Errorf("outbox payload = %s, want %s", payload, n.Dispatch)
	}
	if c := f.count(t, "SELECT count(*) FROM audit_log WHERE action = 'run.create' AND target_kind = 'run' AND target_id = ? AND project_id = ? AND user_id = ? AND token_id IS NULL",
		run.ID.String(), f.project.ID, f.admin); c != 1 {
		t.Errorf("run.create audit rows = %d, want 1", c)
	}
	if _, err := f.s.GetRun(ctx, uuid.New()); !apperr.Is(err, apperr.NotFound) {
		t.Errorf("GetRun(missing) err = %v", err)
	}
}

// jsonEqual compares two JSON documents by value.
func jsonEqual(tb testing.TB, a, b []byte) bool {
	tb.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		tb.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		tb.Fatal(err)
	}
	return reflect.DeepEqual(x, y)
}

func TestCreateRunIdempotency(t *testing.T) {
	t.Parallel()
	f := mustFixture(t)
	ctx := ctxT(t)
	key := runs.Idempotency{Key: "key-1", RequestHash: []byte("hash-a")}
	n := f.newRun(f.project.ID, time.Now())
	n.Idempotency = key
	first := f.mustRun(t, n)

	again := f.newRun(f.project.ID, time.Now()) // a retry builds a new run id
	again.Idempotency = key
	run, created, err := f.s.CreateRun(ctx, again)
	if err != nil || created || run.ID != first.ID {
		t.Errorf("same key, same hash: run %s created=%v err=%v; want run %s, created=false", run.ID, created, err, first.ID)
	}

	other := f.newRun(f.project.ID, time.Now())
	other.Idempotency = runs.Idempotency{Key: "key-1", RequestHash: []byte("hash-b")}
	_, _, err = f.s.CreateRun(ctx, other)
	if d := wantCode(t, err, apperr.Conflict); d != `Idempotency-Key "key-1" was used with a different request` {
		t.Errorf("detail = %q", d)
	}

	elsewhere := f.mustProject(t, "elsewhere")
	inOther := f.newRun(elsewhere.ID, time.Now())
	inOther.Idempotency = key
	if r := f.mustRun(t, inOther); r.ID == first.ID {
		t.Error("a key is per project, yet another project got the first run")
	}

	for q, want := range map[string]int64{
		"SELECT count(*) FROM runs WHERE project_id = ?":                                         1,
		"SELECT count(*) FROM outbox o JOIN runs r ON r.id::text = o.key WHERE r.project_id = ?": 1,
		"SELECT count(*) FROM idempotency_keys WHERE project_id = ?":                             1,
		"SELECT count(*) FROM audit_log WHERE action = 'run.create' AND project_id = ?":          1,
	} {
		if got := f.count(t, q, f.project.ID); got != want {
			t.Errorf("%s = %d, want %d", q, got, want)
		}
	}
}

// TestCreateRunConcurrentKey sends the same keyed request from 8 goroutines
// at once: exactly one run, one outbox row and one key row result.
func TestCreateRunConcurrentKey(t *testing.T) {
	t.Parallel()
	f := mustFixture(t)
	const workers = 8
	var (
		wg      sync.WaitGroup
		start   = make(chan struct{})
		got     [workers]runs.Run
		created [workers]bool
		errs    [workers]error
	)
	for i := range workers {
		n := f.newRun(f.project.ID, time.Now())
		n.Idempotency = runs.Idempotency{Key: "same", RequestHash: []byte("same-hash")}
		wg.Go(func() {
			<-start
			got[i], created[i], errs[i] = f.s.CreateRun(ctxT(t), n)
		})
	}
	close(start)
	wg.Wait()
	winners := 0
	for i := range workers {
		if errs[i] != nil {
			t.Fatalf("worker %d: %v", i, errs[i])
		}
		if created[i] {
			winners++
		}
		if got[i].ID != got[0].ID {
			t.Errorf("worker %d got run %s, worker 0 got %s", i, got[i].ID, got[0].ID)
		}
	}
	if winners != 1 {
		t.Errorf("%d workers created the run, want 1", winners)
	}
	for q, want := range map[string]int64{
		"SELECT count(*) FROM runs":                                  1,
		"SELECT count(*) FROM outbox WHERE topic = 'run.dispatch'":   1,
		"SELECT count(*) FROM idempotency_keys":                      1,
		"SELECT count(*) FROM audit_log WHERE action = 'run.create'": 1,
	} {
		if n := f.count(t, q); n != want {
			t.Errorf("%s = %d, want %d", q, n, want)
		}
	}
	if n := f.count(t, "SELECT count(*) FROM runs WHERE id = ?", got[0].ID); n != 1 {
		t.Errorf("the returned run is not the stored one")
	}
}

// TestCreateRunAtomic makes each later step of CreateRun fail and checks
// that nothing of the run was written.
func TestCreateRunAtomic(t *testing.T) {
	t.Parallel()
	f := mustFixture(t)
	tests := []struct {
		name  string
		spoil func(n *runs.NewRun)
	}{
		{name: "bad outbox payload", spoil: func(n *runs.NewRun) { n.Dispatch = []byte("not json") }},
		{name: "no outbox payload", spoil: func(n *runs.NewRun) { n.Dispatch = nil }},
		{name: "audit actor unknown", spoil: func(n *runs.NewRun) { n.Actor = auth.Actor{UserID: uuid.New()} }},
		{name: "unknown project", spoil: func(n *runs.NewRun) { n.Run.ProjectID = uuid.New() }},
		{name: "keyed, bad payload", spoil: func(n *runs.NewRun) {
			n.Idempotency = runs.Idempotency{Key: "k", RequestHash: []byte("h")}
			n.Dispatch = []byte("{")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := f.newRun(f.project.ID, time.Now())
			tt.spoil(&n)
			if _, _, err := f.s.CreateRun(ctxT(t), n); err == nil {
				t.Fatal("CreateRun succeeded")
			} else if apperr.CodeOf(err) != "" {
				t.Errorf("err = %v, want an internal error", err)
			}
			id := n.Run.ID
			for q, arg := range map[string]any{
				"SELECT count(*) FROM runs WHERE id = ?":                 id,
				"SELECT count(*) FROM outbox WHERE key = ?":              id.String(),
				"SELECT count(*) FROM audit_log WHERE target_id = ?":     id.String(),
				"SELECT count(*) FROM idempotency_keys WHERE run_id = ?": id,
			} {
				if got := f.count(t, q, arg); got != 0 {
					t.Errorf("%s = %d after a failed CreateRun", q, got)
				}
			}
		})
	}
	// The key of a failed keyed request stays free.
	n := f.newRun(f.project.ID, time.Now())
	n.Idempotency = runs.Idempotency{Key: "k", RequestHash: []byte("h")}
	f.mustRun(t, n)
}
