// Package schedule starts the runs of stored tests whose cron schedule is
// due. Of several API replicas only one schedules at a time: the one that
// holds a Postgres advisory lock on a connection of its own. Claiming a
// due test moves its next_run_at on in the same transaction, and every
// run it starts carries an Idempotency-Key of the test and the tick, so
// even two leaders could not start a tick twice.
//
// It is not the place for parsing schedules (package testdefs) or for the
// rules of a run (package runs).
package schedule

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
	"github.com/barrage-dev/barrage/services/api/internal/testdefs"
)

// LockKey is the Postgres advisory lock the leader holds ("brg_schd").
const LockKey int64 = 0x6272675f73636864

// claimBatch is the most due tests one tick claims.
const claimBatch = 100

// Due is a test whose schedule fired.
type Due struct {
	Test testdefs.Test
	// At is the fire time claimed: the test's next_run_at before the claim.
	At time.Time
}

// Store is the storage the scheduler needs.
type Store interface {
	// DB is the pool the leader's lock connection comes from.
	DB() *sql.DB
	// ClaimDueTests returns up to limit tests whose next_run_at is at or
	// before now, each one's next_run_at moved to next(test) (NULL for
	// zero) in the same transaction, and only if it still held the value
	// read, so that one fire time is claimed once.
	ClaimDueTests(ctx context.Context, now time.Time, limit int, next func(testdefs.Test) time.Time) ([]Due, error)
	// ScheduledRunActive reports whether a run of the test with source
	// schedule is queued, dispatching, running or stopping.
	ScheduledRunActive(ctx context.Context, testID uuid.UUID) (bool, error)
}

// Starter starts the run of a fired schedule; runs.Service is one.
type Starter interface {
	// CreateScheduled starts the run of t for the tick at; created is false
	// when that tick's run already existed.
	CreateScheduled(ctx context.Context, t testdefs.Test, at time.Time) (run runs.Run, created bool, err error)
}

// Options configure a Scheduler.
type Options struct {
	// Store claims due tests and holds the lock connection's pool.
	Store Store
	// Runs starts the runs.
	Runs Starter
	// Log receives leadership changes, started and skipped runs; default
	// discards.
	Log *slog.Logger
	// Now is the clock; default time.Now.
	Now func() time.Time
	// Tick is how often Loop looks for due tests (and tries to lead);
	// default 15s.
	Tick time.Duration
}

// normalize fills the defaults.
func (o *Options) normalize() {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Tick <= 0 {
		o.Tick = 15 * time.Second
	}
}

// Scheduler starts the runs of due schedules while it leads.
type Scheduler struct {
	opts Options
	// mu serializes Tick and Close and guards conn.
	mu sync.Mutex
	// conn holds the advisory lock; nil when not leading.
	conn *sql.Conn
}

// New returns a Scheduler; it leads only once a Tick wins the lock.
func New(opts Options) *Scheduler {
	opts.normalize()
	return &Scheduler{opts: opts}
}

// Loop ticks every Options.Tick until ctx ends, then gives up the lead.
func (s *Scheduler) Loop(ctx context.Context) {
	t := time.NewTicker(s.opts.Tick)
	defer t.Stop()
	defer func() {
		if err := s.Close(); err != nil {
			s.opts.Log.Warn("schedule: release leader lock", slog.Any("err", err))
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := s.Tick(ctx); err != nil && ctx.Err() == nil {
				s.opts.Log.ErrorContext(ctx, "schedule tick", slog.Any("err", err))
			}
		}
	}
}

// Lead reports whether s holds the leader lock, taking it when it is free:
// other jobs that must run on one replica only (package retention) share
// the scheduler's lease this way rather than holding a second one.
func (s *Scheduler) Lead(ctx context.Context) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lead(ctx)
}

// Leading reports whether the scheduler held the lock at its last tick.
func (s *Scheduler) Leading() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conn != nil
}

// Tick leads (checking that the lock connection is alive, or trying to
// take the lock) and, when leading, starts the runs of the tests due at
// the clock's now. A test whose previous scheduled run is still active
// skips the tick, and so does one whose project is at its limit of
// concurrent runs.
func (s *Scheduler) Tick(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	leading, err := s.lead(ctx)
	if err != nil || !leading {
		return err
	}
	now := s.opts.Now().UTC()
	due, err := s.opts.Store.ClaimDueTests(ctx, now, claimBatch, s.next(ctx, now))
	if err != nil {
		return fmt.Errorf("claim due tests: %w", err)
	}
	var errs []error
	for i := range due {
		if err := s.start(ctx, due[i]); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// next returns the function that moves a claimed test's next_run_at: its
// next fire after now, or none when its schedule no longer parses.
func (s *Scheduler) next(ctx context.Context, now time.Time) func(testdefs.Test) time.Time {
	return func(t testdefs.Test) time.Time {
		next, err := t.NextRun(now)
		if err != nil {
			s.opts.Log.ErrorContext(ctx, "schedule: unschedule test with a bad schedule", slog.String("test", t.ID.String()), slog.Any("err", err))
			return time.Time{}
		}
		return next
	}
}

// start starts the run of one due test unless its previous scheduled run
// is still active.
func (s *Scheduler) start(ctx context.Context, d Due) error {
	log := s.opts.Log.With(slog.String("test", d.Test.ID.String()), slog.Time("tick", d.At))
	active, err := s.opts.Store.ScheduledRunActive(ctx, d.Test.ID)
	if err != nil {
		return fmt.Errorf("scheduled run of test %s: %w", d.Test.ID, err)
	}
	if active {
		log.InfoContext(ctx, "schedule: tick skipped, the previous scheduled run is still active", slog.Bool("skipped", true))
		return nil
	}
	run, created, err := s.opts.Runs.CreateScheduled(ctx, d.Test, d.At)
	if apperr.Is(err, apperr.QuotaExceeded) {
		log.WarnContext(ctx, "schedule: tick skipped, the project is at its limit of concurrent runs",
			slog.Bool("skipped", true), slog.Any("err", err))
		return nil
	}
	if err != nil {
		return fmt.Errorf("scheduled run of test %s at %s: %w", d.Test.ID, d.At.Format(time.RFC3339), err)
	}
	log.InfoContext(ctx, "schedule: run started", slog.String("run", run.ID.String()), slog.Bool("created", created))
	return nil
}

// lead reports whether s holds the lock: it checks the connection that
// holds it (a broken one loses the lead) or tries to take it on a new one.
func (s *Scheduler) lead(ctx context.Context) (bool, error) {
	if s.conn != nil {
		if _, err := s.conn.ExecContext(ctx, "SELECT 1"); err == nil {
			return true, nil
		}
		s.opts.Log.WarnContext(ctx, "schedule: lost the leader lock connection")
		s.discard()
	}
	conn, err := s.opts.Store.DB().Conn(ctx)
	if err != nil {
		return false, fmt.Errorf("schedule: lock connection: %w", err)
	}
	var won bool
	if err := conn.QueryRowContext(ctx, "SELECT pg_try_advisory_lock($1)", LockKey).Scan(&won); err != nil {
		_ = conn.Close()
		return false, fmt.Errorf("schedule: try leader lock: %w", err)
	}
	if !won {
		_ = conn.Close()
		return false, nil
	}
	s.conn = conn
	s.opts.Log.InfoContext(ctx, "schedule: leading")
	return true, nil
}

// discard drops the lock connection from the pool, so that its session,
// and any lock it still holds, ends.
func (s *Scheduler) discard() {
	_ = s.conn.Raw(func(any) error { return driver.ErrBadConn })
	_ = s.conn.Close()
	s.conn = nil
}

// Close gives up the lead: it releases the lock and returns the
// connection to the pool, or drops the connection when it cannot.
func (s *Scheduler) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var released bool
	err := s.conn.QueryRowContext(ctx, "SELECT pg_advisory_unlock($1)", LockKey).Scan(&released)
	if err != nil || !released {
		s.discard()
		if err != nil {
			return fmt.Errorf("schedule: release leader lock: %w", err)
		}
		return nil
	}
	err = s.conn.Close()
	s.conn = nil
	if err != nil {
		return fmt.Errorf("schedule: close lock connection: %w", err)
	}
	return nil
}
