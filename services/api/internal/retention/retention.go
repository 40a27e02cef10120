// Package retention applies each project's retention (migration 00020):
// it drops the per-second intervals and shard snapshots (with the
// per-shard seconds they hold, migration 00027) of runs older than the
// project's interval_retention_days, keeping their summary and merged
// result, and whole runs older than its run_retention_days. Pinned runs
// keep everything; runs that are a baseline are not dropped. Each pass also
// prunes the dispatch outbox of messages published more than OutboxKeep
// ago, in every project: they carry sealed specs and are never read again.
//
// One API replica applies it: the one that leads the scheduler (package
// schedule), whose lease it shares. It deletes in small transactions with
// a pause between them, so that it never holds locks ingest waits on for
// long.
//
// It is not the place for deleting one run on request (package runs) or
// for the SQL (package store implements Store).
package retention

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"
)

// Policy is one project's retention.
type Policy struct {
	ProjectID uuid.UUID
	// IntervalDays and RunDays are 0 for forever.
	IntervalDays int
	RunDays      int
}

// Counts says what one pass dropped.
type Counts struct {
	// Runs whose per-second rows were dropped (their result stays).
	IntervalRuns int64
	// Runs dropped whole.
	Runs int64
	// Rows of run_intervals, run_snapshots and run_written_urls deleted.
	Rows int64
	// Batches is the number of transactions that deleted something.
	Batches int64
	// OutboxRows is the published outbox messages pruned.
	OutboxRows int64
}

// add sums c and o.
func (c Counts) add(o Counts) Counts {
	return Counts{IntervalRuns: c.IntervalRuns + o.IntervalRuns, Runs: c.Runs + o.Runs, Rows: c.Rows + o.Rows,
		Batches: c.Batches + o.Batches, OutboxRows: c.OutboxRows + o.OutboxRows}
}

// Store is the storage retention needs. Each call is one short
// transaction.
type Store interface {
	// RetentionPolicies returns the projects that set a retention.
	RetentionPolicies(ctx context.Context) ([]Policy, error)
	// IntervalCandidates returns up to limit terminal, unpinned runs of the
	// project created before cutoff whose per-second rows remain, oldest
	// first.
	IntervalCandidates(ctx context.Context, project uuid.UUID, cutoff time.Time, limit int) ([]uuid.UUID, error)
	// RunCandidates returns up to limit terminal, unpinned runs of the
	// project created before cutoff that are no baseline: of no pinned run
	// nor run created at or after cutoff (baseline_run_id or
	// baseline_request), and not the newest passing run of their test.
	RunCandidates(ctx context.Context, project uuid.UUID, cutoff time.Time, limit int) ([]uuid.UUID, error)
	// DeleteRunRows deletes up to limit rows of table (run_intervals,
	// run_snapshots or run_written_urls) of the runs and returns how many.
	DeleteRunRows(ctx context.Context, table string, runs []uuid.UUID, limit int) (int64, error)
	// MarkIntervalsDropped clears the runs' shard final snapshots and
	// sets their intervals_dropped_at.
	MarkIntervalsDropped(ctx context.Context, runs []uuid.UUID, at time.Time) error
	// DeleteRuns deletes the runs (whose large child rows are gone) if
	// they are still candidates as of cutoff, and returns how many.
	DeleteRuns(ctx context.Context, project uuid.UUID, runs []uuid.UUID, cutoff time.Time) (int64, error)
	// AuditRetention writes an audit entry of a pass over a project.
	AuditRetention(ctx context.Context, project uuid.UUID, details map[string]any) error
	// PruneOutbox deletes up to limit outbox messages published before
	// before, oldest first, and returns how many.
	PruneOutbox(ctx context.Context, before time.Time, limit int) (int64, error)
}

// Leader takes or checks the lease that lets one replica apply retention;
// schedule.Scheduler is one.
type Leader interface {
	Lead(ctx context.Context) (bool, error)
}

// Options configure a Job.
type Options struct {
	Store  Store
	Leader Leader
	// Log receives each pass's counts; default discards.
	Log *slog.Logger
	// Interval is the time between passes; default 1h.
	Interval time.Duration
	// Batch is the most per-second rows one transaction deletes; default
	// 500.
	Batch int
	// RunBatch is the most runs one transaction deletes or marks; default
	// 50.
	RunBatch int
	// Pause is the wait after each transaction; default 20ms.
	Pause time.Duration
	// OutboxKeep is how long published outbox messages are kept; default
	// 7 days.
	OutboxKeep time.Duration
	// Now is the clock; default time.Now.
	Now func() time.Time
}

// normalize fills the defaults.
func (o *Options) normalize() {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Interval <= 0 {
		o.Interval = time.Hour
	}
	if o.Batch <= 0 {
		o.Batch = 500
	}
	if o.RunBatch <= 0 {
		o.RunBatch = 50
	}
	if o.Pause < 0 {
		o.Pause = 0
	} else if o.Pause == 0 {
		o.Pause = 20 * time.Millisecond
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.OutboxKeep <= 0 {
		o.OutboxKeep = 7 * 24 * time.Hour
	}
}

// Job applies the retention of every project.
type Job struct{ opts Options }

// New returns a Job.
func New(opts Options) *Job {
	opts.normalize()
	return &Job{opts: opts}
}

// Loop runs a pass every Options.Interval, while it leads, until ctx ends.
func (j *Job) Loop(ctx context.Context) {
	t := time.NewTicker(j.opts.Interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			lead, err := j.opts.Leader.Lead(ctx)
			if err != nil || !lead {
				if err != nil && ctx.Err() == nil {
					j.opts.Log.WarnContext(ctx, "retention: leader lease", slog.Any("err", err))
				}
				continue
			}
			if _, err := j.Pass(ctx); err != nil && ctx.Err() == nil {
				j.opts.Log.ErrorContext(ctx, "retention pass", slog.Any("err", err))
			}
		}
	}
}

// Pass applies every project's retention once, whether or not this
// replica leads (Loop checks), and returns the sum of what it dropped.
func (j *Job) Pass(ctx context.Context) (Counts, error) {
	start := j.opts.Now()
	policies, err := j.opts.Store.RetentionPolicies(ctx)
	if err != nil {
		return Counts{}, fmt.Errorf("retention: %w", err)
	}
	var total Counts
	for _, p := range policies {
		c, err := j.project(ctx, p, start)
		total = total.add(c)
		if c != (Counts{}) {
			j.opts.Log.InfoContext(ctx, "retention: project done", slog.String("project", p.ProjectID.String()),
				slog.Int64("interval_runs", c.IntervalRuns), slog.Int64("runs", c.Runs), slog.Int64("rows", c.Rows),
				slog.Int64("batches", c.Batches))
			details := map[string]any{
				"interval_retention_days": p.IntervalDays, "run_retention_days": p.RunDays,
				"interval_runs": c.IntervalRuns, "runs": c.Runs, "rows": c.Rows, "batches": c.Batches,
			}
			if aerr := j.opts.Store.AuditRetention(ctx, p.ProjectID, details); aerr != nil && err == nil {
				err = aerr
			}
		}
		if err != nil {
			return total, fmt.Errorf("retention of project %s: %w", p.ProjectID, err)
		}
	}
	if err := j.pruneOutbox(ctx, start.Add(-j.opts.OutboxKeep), &total); err != nil {
		return total, fmt.Errorf("retention of the outbox: %w", err)
	}
	j.opts.Log.InfoContext(ctx, "retention: pass done", slog.Int("projects", len(policies)),
		slog.Int64("interval_runs", total.IntervalRuns), slog.Int64("runs", total.Runs), slog.Int64("rows", total.Rows),
		slog.Int64("outbox_rows", total.OutboxRows), slog.Int64("batches", total.Batches),
		slog.Duration("took", j.opts.Now().Sub(start)))
	return total, nil
}

// pruneOutbox deletes the outbox messages published before cutoff, Batch
// per transaction.
func (j *Job) pruneOutbox(ctx context.Context, cutoff time.Time, c *Counts) error {
	for {
		n, err := j.opts.Store.PruneOutbox(ctx, cutoff, j.opts.Batch)
		if err != nil || n == 0 {
			return err
		}
		c.OutboxRows += n
		c.Batches++
		if n < int64(j.opts.Batch) {
			return nil
		}
		if err := j.pause(ctx); err != nil {
			return err
		}
	}
}

// project applies one project's retention: whole runs first, so that their
// rows are not dropped twice, then intervals.
func (j *Job) project(ctx context.Context, p Policy, now time.Time) (Counts, error) {
	var c Counts
	if p.RunDays > 0 {
		if err := j.dropRuns(ctx, p.ProjectID, now.Add(-days(p.RunDays)), &c); err != nil {
			return c, err
		}
	}
	if p.IntervalDays > 0 {
		if err := j.dropIntervals(ctx, p.ProjectID, now.Add(-days(p.IntervalDays)), &c); err != nil {
			return c, err
		}
	}
	return c, nil
}

// dropRuns deletes the project's runs created before cutoff that are
// neither pinned nor a baseline, RunBatch at a time, their per-second
// rows first in batches of their own.
func (j *Job) dropRuns(ctx context.Context, project uuid.UUID, cutoff time.Time, c *Counts) error {
	for {
		ids, err := j.opts.Store.RunCandidates(ctx, project, cutoff, j.opts.RunBatch)
		if err != nil || len(ids) == 0 {
			return err
		}
		n, err := j.dropRows(ctx, ids, c, "run_intervals", "run_snapshots", "run_written_urls")
		if err != nil {
			return err
		}
		deleted, err := j.opts.Store.DeleteRuns(ctx, project, ids, cutoff)
		if err != nil {
			return err
		}
		c.Runs += deleted
		c.Batches++
		if deleted == 0 && n == 0 {
			return nil // every candidate became a baseline meanwhile
		}
		if err := j.pause(ctx); err != nil {
			return err
		}
	}
}

// dropIntervals drops the per-second rows of the project's runs created
// before cutoff that are not pinned, RunBatch runs at a time.
func (j *Job) dropIntervals(ctx context.Context, project uuid.UUID, cutoff time.Time, c *Counts) error {
	for {
		ids, err := j.opts.Store.IntervalCandidates(ctx, project, cutoff, j.opts.RunBatch)
		if err != nil || len(ids) == 0 {
			return err
		}
		if _, err := j.dropRows(ctx, ids, c, "run_intervals", "run_snapshots"); err != nil {
			return err
		}
		if err := j.opts.Store.MarkIntervalsDropped(ctx, ids, j.opts.Now().UTC()); err != nil {
			return err
		}
		c.IntervalRuns += int64(len(ids))
		c.Batches++
		if err := j.pause(ctx); err != nil {
			return err
		}
	}
}

// dropRows deletes the runs' rows of each table, Batch rows per
// transaction, and returns how many it deleted.
func (j *Job) dropRows(ctx context.Context, ids []uuid.UUID, c *Counts, tables ...string) (int64, error) {
	var total int64
	for _, table := range tables {
		for {
			n, err := j.opts.Store.DeleteRunRows(ctx, table, ids, j.opts.Batch)
			if err != nil {
				return total, err
			}
			if n == 0 {
				break
			}
			total += n
			c.Rows += n
			c.Batches++
			if err := j.pause(ctx); err != nil {
				return total, err
			}
			if n < int64(j.opts.Batch) {
				break
			}
		}
	}
	return total, nil
}

// pause waits Options.Pause, or until ctx ends.
func (j *Job) pause(ctx context.Context) error {
	t := time.NewTimer(j.opts.Pause)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return fmt.Errorf("retention: %w", ctx.Err())
	case <-t.C:
		return nil
	}
}

// days is n days.
func days(n int) time.Duration { return time.Duration(n) * 24 * time.Hour }
