package schedule_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/paging"
	"github.com/barrage-dev/barrage/services/api/internal/pgtest"
	"github.com/barrage-dev/barrage/services/api/internal/policy"
	"github.com/barrage-dev/barrage/services/api/internal/projects"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
	"github.com/barrage-dev/barrage/services/api/internal/schedule"
	"github.com/barrage-dev/barrage/services/api/internal/sealer"
	"github.com/barrage-dev/barrage/services/api/internal/store"
	"github.com/barrage-dev/barrage/services/api/internal/testdefs"
)

// clock is a fake clock shared by every scheduler of a test.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

// start is the fake clock's start: half a minute past 10:00 UTC.
func start() time.Time { return time.Date(2030, 1, 7, 10, 0, 30, 0, time.UTC) }

// ctxT returns a context that ends with the test or after a minute.
func ctxT(tb testing.TB) context.Context {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	tb.Cleanup(cancel)
	return ctx
}

// env is a migrated, bootstrapped database seen by several replicas.
type env struct {
	url     string
	project uuid.UUID
	// st is the first replica's store, used for assertions too.
	st    *store.Store
	clock *clock
}

// mustEnv returns a fresh database with the default project.
func mustEnv(tb testing.TB) *env {
	tb.Helper()
	e := &env{url: pgtest.NewDatabase(tb), clock: &clock{now: start()}}
	e.st = e.mustStore(tb)
	ctx := ctxT(tb)
	if err := e.st.MigrateUp(ctx); err != nil {
		tb.Fatalf("migrate: %v", err)
	}
	hash := sha256.Sum256([]byte("secret"))
	if _, err := e.st.Bootstrap(ctx, store.Bootstrap{AdminEmail: "admin@example.com", TokenHash: hash[:], TokenHint: "brg_x"}); err != nil {
		tb.Fatalf("bootstrap: %v", err)
	}
	p, err := e.st.GetProjectBySlug(ctx, "default")
	if err != nil {
		tb.Fatal(err)
	}
	e.project = p.ID
	return e
}

// mustStore opens another pool on the database, as another replica would.
func (e *env) mustStore(tb testing.TB) *store.Store {
	tb.Helper()
	st, err := store.Open(ctxT(tb), e.url, store.Options{MaxOpenConns: 5}, nil)
	if err != nil {
		tb.Fatalf("open store: %v", err)
	}
	tb.Cleanup(func() { _ = st.Close() })
	return st
}

// scheduler returns a replica's scheduler on a pool of its own, on the
// shared fake clock; it gives up the lead when tb ends.
func (e *env) scheduler(tb testing.TB) *schedule.Scheduler {
	tb.Helper()
	st := e.mustStore(tb)
	limits := policy.Limits{MaxQPS: 1000, MaxConnections: 100, MaxDuration: time.Hour, MaxAgents: 10, MaxHeaders: 10, MaxPayloadBytes: 1024}
	projectSvc := projects.NewService(st, limits)
	runSvc := runs.NewService(st, projectSvc, testdefs.NewService(st, projectSvc, limits), limits, sealer.Ephemeral(), runs.TargetPolicy{}, spec.Redactor{})
	s := schedule.New(schedule.Options{Store: st, Runs: runSvc, Now: e.clock.Now})
	tb.Cleanup(func() { _ = s.Close() })
	return s
}

// mustTest stores a test with schedule, its next run computed from the clock.
func (e *env) mustTest(tb testing.TB, name, cron string) testdefs.Test {
	tb.Helper()
	now := e.clock.Now()
	t := testdefs.Test{
		ID: uuid.New(), ProjectID: e.project, Name: name, Schedule: cron, Timezone: "UTC",
		Spec:       spec.Spec{URL: "http://127.0.0.1:8088/", QPS: 10, Connections: 1, Duration: spec.Duration(time.Second)},
		Thresholds: []string{"p(99) < 1s"}, Labels: map[string]string{"team": "core"}, CreatedAt: now, UpdatedAt: now,
	}
	next, err := t.NextRun(now)
	if err != nil {
		tb.Fatal(err)
	}
	t.NextRunAt = next
	created, err := e.st.CreateTest(ctxT(tb), t, auth.Actor{})
	if err != nil {
		tb.Fatalf("create test: %v", err)
	}
	return created
}

// scheduledRuns returns the runs of test with source schedule, oldest first.
func (e *env) scheduledRuns(tb testing.TB, test uuid.UUID) []runs.Run {
	tb.Helper()
	list, err := e.st.ListRuns(ctxT(tb), runs.Filter{AllProjects: true, TestID: test, Page: paging.Request{Limit: paging.MaxLimit}})
	if err != nil {
		tb.Fatal(err)
	}
	var out []runs.Run
	for i := len(list) - 1; i >= 0; i-- {
		if list[i].Source == runs.SourceSchedule {
			out = append(out, list[i])
		}
	}
	return out
}

// cancel ends a queued run, as a finished run would end.
func (e *env) cancel(tb testing.TB, run uuid.UUID) {
	tb.Helper()
	if _, err := e.st.MoveRun(ctxT(tb), runs.Move{RunID: run, To: runs.Canceled, At: e.clock.Now()}); err != nil {
		tb.Fatalf("cancel run %s: %v", run, err)
	}
}

// count returns the single integer query returns.
func (e *env) count(tb testing.TB, query string, args ...any) int64 {
	tb.Helper()
	var n int64
	if err := e.st.DB().QueryRowContext(ctxT(tb), query, args...).Scan(&n); err != nil {
		tb.Fatalf("%s: %v", query, err)
	}
	return n
}

// tickAll ticks every scheduler at once.
func tickAll(tb testing.TB, ss ...*schedule.Scheduler) {
	tb.Helper()
	var wg sync.WaitGroup
	errs := make([]error, len(ss))
	for i, s := range ss {
		wg.Go(func() { errs[i] = s.Tick(ctxT(tb)) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		tb.Fatalf("tick: %v", err)
	}
}

// leaders returns how many of ss lead.
func leaders(ss ...*schedule.Scheduler) int {
	n := 0
	for _, s := range ss {
		if s.Leading() {
			n++
		}
	}
	return n
}

// minute returns the fake time m minutes and a few seconds after 10:00.
func minute(m int) time.Time {
	return time.Date(2030, 1, 7, 10, m, 3, 0, time.UTC)
}

// checkFired advances through minutes from..to, ticking ss at each and
// checking that exactly one more run was started for that minute; each
// run is then canceled so that the next tick is not skipped.
func (e *env) checkFired(t *testing.T, test uuid.UUID, from, to int, ss ...*schedule.Scheduler) {
	t.Helper()
	for m := from; m <= to; m++ {
		e.clock.set(minute(m))
		tickAll(t, ss...)
		tickAll(t, ss...) // a second tick in the same minute starts nothing
		if n := leaders(ss...); n != 1 {
			t.Fatalf("minute %d: %d leaders, want 1", m, n)
		}
		got := e.scheduledRuns(t, test)
		if len(got) != m {
			t.Fatalf("minute %d: %d scheduled runs, want %d", m, len(got), m)
		}
		last := got[len(got)-1]
		if last.Status != runs.Queued || last.Name != "every minute" || last.CreatedBy != uuid.Nil || last.Labels["team"] != "core" {
			t.Fatalf("minute %d: run %+v", m, last)
		}
		e.cancel(t, last.ID)
	}
}

func TestSchedulerFiresOncePerTickAcrossReplicas(t *testing.T) {
	t.Parallel()
	e := mustEnv(t)
	test := e.mustTest(t, "every minute", "* * * * *")
	if want := time.Date(2030, 1, 7, 10, 1, 0, 0, time.UTC); !test.NextRunAt.Equal(want) {
		t.Fatalf("next_run_at = %v, want %v", test.NextRunAt, want)
	}
	a, b := e.scheduler(t), e.scheduler(t)

	e.checkFired(t, test.ID, 1, 5, a, b)
	keys := e.count(t, `SELECT count(DISTINCT key) FROM idempotency_keys WHERE key LIKE 'schedule:' || $1 || ':%'`, test.ID.String())
	if keys != 5 {
		t.Fatalf("%d idempotency keys, want 5", keys)
	}

	leader, other := a, b
	if !leader.Leading() {
		leader, other = b, a
	}
	if err := leader.Close(); err != nil {
		t.Fatalf("close leader: %v", err)
	}
	e.checkFired(t, test.ID, 6, 8, other)
	if !other.Leading() {
		t.Fatal("the other replica did not take over")
	}
}

func TestSchedulerLosesLeadWithItsConnection(t *testing.T) {
	t.Parallel()
	e := mustEnv(t)
	test := e.mustTest(t, "every minute", "* * * * *")
	a := e.scheduler(t)
	e.checkFired(t, test.ID, 1, 1, a)

	// End the leader's session: its lock goes with it.
	if n := e.count(t, `SELECT count(pg_terminate_backend(pid)) FROM pg_locks
		WHERE locktype = 'advisory' AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`); n != 1 {
		t.Fatalf("terminated %d lock holders, want 1", n)
	}
	b := e.scheduler(t)
	e.checkFired(t, test.ID, 2, 2, b) // b takes the free lock first
	if a.Leading() {
		// a has not noticed yet; its next tick does.
		e.checkFired(t, test.ID, 3, 3, a, b)
	}
	if !b.Leading() || a.Leading() {
		t.Fatalf("leading: a=%v b=%v, want b only", a.Leading(), b.Leading())
	}
}

func TestSchedulerSkipsWhileScheduledRunActive(t *testing.T) {
	t.Parallel()
	e := mustEnv(t)
	test := e.mustTest(t, "every minute", "* * * * *")
	s := e.scheduler(t)

	e.clock.set(minute(1))
	tickAll(t, s)
	first := e.scheduledRuns(t, test.ID)
	if len(first) != 1 {
		t.Fatalf("%d scheduled runs after the first tick, want 1", len(first))
	}
	for m := 2; m <= 3; m++ {
		e.clock.set(minute(m))
		tickAll(t, s)
		if got := e.scheduledRuns(t, test.ID); len(got) != 1 {
			t.Fatalf("minute %d: %d scheduled runs while the first is queued, want 1", m, len(got))
		}
	}
	stored, err := e.st.GetTest(ctxT(t), test.ID)
	if err != nil {
		t.Fatal(err)
	}
	if want := time.Date(2030, 1, 7, 10, 4, 0, 0, time.UTC); !stored.NextRunAt.Equal(want) {
		t.Fatalf("next_run_at after skipped ticks = %v, want %v", stored.NextRunAt, want)
	}

	e.cancel(t, first[0].ID)
	e.clock.set(minute(4))
	tickAll(t, s)
	if got := e.scheduledRuns(t, test.ID); len(got) != 2 {
		t.Fatalf("%d scheduled runs once the first ended, want 2", len(got))
	}
}

func TestCreateScheduledIsIdempotentPerTick(t *testing.T) {
	t.Parallel()
	e := mustEnv(t)
	test := e.mustTest(t, "every minute", "* * * * *")
	st := e.mustStore(t)
	limits := policy.Limits{MaxQPS: 1000, MaxConnections: 100, MaxDuration: time.Hour, MaxAgents: 10, MaxHeaders: 10, MaxPayloadBytes: 1024}
	projectSvc := projects.NewService(st, limits)
	svc := runs.NewService(st, projectSvc, testdefs.NewService(st, projectSvc, limits), limits, sealer.Ephemeral(), runs.TargetPolicy{}, spec.Redactor{})
	at := time.Date(2030, 1, 7, 10, 1, 0, 0, time.UTC)
	first, created, err := svc.CreateScheduled(ctxT(t), test, at)
	if err != nil || !created {
		t.Fatalf("first: created=%v err=%v", created, err)
	}
	again, created, err := svc.CreateScheduled(ctxT(t), test, at)
	if err != nil || created || again.ID != first.ID {
		t.Fatalf("replay: run %s created=%v err=%v, want run %s not created", again.ID, created, err, first.ID)
	}
	if first.Source != runs.SourceSchedule || first.TestID != test.ID {
		t.Fatalf("run %+v", first)
	}
	if n := e.count(t, `SELECT count(*) FROM outbox WHERE key = $1`, first.ID.String()); n != 1 {
		t.Fatalf("%d outbox rows, want 1", n)
	}
}

func TestSchedulerSkipsAtProjectLimitOfConcurrentRuns(t *testing.T) {
	t.Parallel()
	e := mustEnv(t)
	test := e.mustTest(t, "every minute", "* * * * *")
	other := e.mustTest(t, "other", "0 0 1 1 *")
	s := e.scheduler(t)
	e.exec(t, "UPDATE projects SET max_concurrent_runs = 1 WHERE id = $1", e.project)

	// Another run of the project holds its one place: the tick is skipped,
	// without an error, and the test keeps its schedule.
	at := time.Date(2030, 1, 7, 10, 0, 0, 0, time.UTC)
	blocker, _, err := e.runs(t).CreateScheduled(ctxT(t), other, at)
	if err != nil {
		t.Fatalf("blocking run: %v", err)
	}
	e.clock.set(minute(1))
	tickAll(t, s)
	if got := e.scheduledRuns(t, test.ID); len(got) != 0 {
		t.Fatalf("%d scheduled runs while the project is at its limit, want 0", len(got))
	}
	_, _, err = e.runs(t).CreateScheduled(ctxT(t), test, minute(1))
	if !apperr.Is(err, apperr.QuotaExceeded) {
		t.Fatalf("CreateScheduled at the limit: %v, want QuotaExceeded", err)
	}

	e.cancel(t, blocker.ID)
	e.clock.set(minute(2))
	tickAll(t, s)
	if got := e.scheduledRuns(t, test.ID); len(got) != 1 {
		t.Fatalf("%d scheduled runs once the place was free, want 1", len(got))
	}
}

func TestCreateScheduledHeldToProjectSpecLimits(t *testing.T) {
	t.Parallel()
	e := mustEnv(t)
	test := e.mustTest(t, "every minute", "* * * * *") // qps 10
	e.exec(t, "UPDATE projects SET max_qps = 5 WHERE id = $1", e.project)
	_, _, err := e.runs(t).CreateScheduled(ctxT(t), test, minute(1))
	var ae *apperr.Error
	if !errors.As(err, &ae) || ae.Code != apperr.Invalid || len(ae.Fields) != 1 || ae.Fields[0].Field != "spec.qps" ||
		ae.Fields[0].Message != "must be at most 5, this project's limit" {
		t.Fatalf("CreateScheduled over the project's qps = %#v, want Invalid on spec.qps naming the project's 5", err)
	}
	if n := e.count(t, "SELECT count(*) FROM runs"); n != 0 {
		t.Fatalf("%d runs stored, want 0", n)
	}
}

// runs returns a runs.Service on a pool of its own.
func (e *env) runs(tb testing.TB) *runs.Service {
	tb.Helper()
	st := e.mustStore(tb)
	limits := policy.Limits{MaxQPS: 1000, MaxConnections: 100, MaxDuration: time.Hour, MaxAgents: 10, MaxHeaders: 10, MaxPayloadBytes: 1024}
	projectSvc := projects.NewService(st, limits)
	return runs.NewService(st, projectSvc, testdefs.NewService(st, projectSvc, limits), limits, sealer.Ephemeral(), runs.TargetPolicy{}, spec.Redactor{})
}

// exec runs one statement on the database.
func (e *env) exec(tb testing.TB, stmt string, args ...any) {
	tb.Helper()
	if _, err := e.st.DB().ExecContext(ctxT(tb), stmt, args...); err != nil {
		tb.Fatalf("%s: %v", stmt, err)
	}
}
