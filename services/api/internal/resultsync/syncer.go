package resultsync

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/policy"
)

// Options tune a Syncer. Zero fields take the defaults of Normalize.
type Options struct {
	// Log receives a line per sync.
	Log *slog.Logger
	// RequestTimeout bounds each HTTP request.
	RequestTimeout time.Duration
	// RunTimeout bounds one whole sync.
	RunTimeout time.Duration
	// MaxListingBytes caps one listing page or index.tsv.
	MaxListingBytes int64
	// MaxRedirects is the most redirects one request follows.
	MaxRedirects int
	// Redactor names the deployment's extra secret headers for the
	// documents a sync imports; the zero value knows the built-in ones.
	Redactor spec.Redactor
	// Deny returns the control plane's back ends, its Postgres and NATS
	// (netguard allow-list entries), refused to every fetch whatever any
	// policy says; read at each sync, so a refreshed list applies. Nil
	// denies nothing.
	Deny func() []string
	// Resolver resolves the names a sync fetches from; nil means
	// net.DefaultResolver.
	Resolver *net.Resolver
}

// Defaults of Options.
const (
	DefaultRequestTimeout  = 30 * time.Second
	DefaultRunTimeout      = 10 * time.Minute
	DefaultMaxListingBytes = 16 << 20
	DefaultMaxRedirects    = 3
)

// Normalize fills zero fields with the defaults.
func (o *Options) Normalize() {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.RequestTimeout <= 0 {
		o.RequestTimeout = DefaultRequestTimeout
	}
	if o.RunTimeout <= 0 {
		o.RunTimeout = DefaultRunTimeout
	}
	if o.MaxListingBytes <= 0 {
		o.MaxListingBytes = DefaultMaxListingBytes
	}
	if o.MaxRedirects <= 0 {
		o.MaxRedirects = DefaultMaxRedirects
	}
}

// Syncer runs syncs: in the background for callers (Start), in line for the
// scheduler (Sync). Close stops the background ones and waits for them.
type Syncer struct {
	store  Store
	opts   Options
	now    func() time.Time
	ctx    context.Context //nolint:containedctx // the lifetime of background syncs, ended by Close
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// NewSyncer returns a Syncer over st.
func NewSyncer(st Store, o Options) *Syncer {
	o.Normalize()
	ctx, cancel := context.WithCancel(context.Background())
	return &Syncer{store: st, opts: o, now: time.Now, ctx: ctx, cancel: cancel}
}

// Close cancels the running background syncs and waits for them to record
// how they ended.
func (s *Syncer) Close() {
	s.cancel()
	s.wg.Wait()
}

// staleBefore is the start time before which a sync still marked running
// cannot be alive: it outlived the run timeout by a margin.
func (s *Syncer) staleBefore() time.Time {
	return s.now().Add(-s.opts.RunTimeout - time.Minute)
}

// Start records a sync of src and runs it in the background; Conflict
// while another sync of src runs.
func (s *Syncer) Start(ctx context.Context, src Source, trigger string) (Run, error) {
	if s.ctx.Err() != nil {
		return Run{}, apperr.New(apperr.Unavailable, "the server is shutting down")
	}
	run, err := s.store.StartSync(ctx, src.ID, trigger, s.staleBefore())
	if err != nil {
		return Run{}, fmt.Errorf("start sync of %s: %w", src.ID, err)
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.execute(s.ctx, src, run)
	}()
	return run, nil
}

// Sync runs one sync of src in line and returns how it ended.
func (s *Syncer) Sync(ctx context.Context, src Source, trigger string) (Run, error) {
	run, err := s.store.StartSync(ctx, src.ID, trigger, s.staleBefore())
	if err != nil {
		return Run{}, fmt.Errorf("start sync of %s: %w", src.ID, err)
	}
	return s.execute(ctx, src, run), nil
}

// execute lists src, handles each object and records the outcome in run.
func (s *Syncer) execute(ctx context.Context, src Source, run Run) Run {
	ctx, cancel := context.WithTimeout(ctx, s.opts.RunTimeout)
	defer cancel()
	log := s.opts.Log.With(slog.String("source", src.ID.String()), slog.String("sync", run.ID.String()))
	run = s.walk(ctx, log, src, run)
	run.EndedAt = s.now().UTC()
	// Record the end even when ctx is done (shutdown): the sync must not
	// stay "running".
	end, cancelEnd := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancelEnd()
	if err := s.store.EndSync(end, run); err != nil {
		log.ErrorContext(ctx, "record end of sync", slog.Any("err", err))
	}
	log.InfoContext(ctx, "sync ended", slog.String("status", string(run.Status)), slog.Int("pages", run.Pages),
		slog.Int("imported", run.Imported), slog.Int("unchanged", run.Unchanged),
		slog.Int("skipped", run.Skipped), slog.Int("failed", run.Failed))
	return run
}

// walk does the work of one sync and returns run with its figures.
func (s *Syncer) walk(ctx context.Context, log *slog.Logger, src Source, run Run) Run {
	proj, err := s.store.GetProject(ctx, src.ProjectID)
	if err != nil {
		return failed(run, fmt.Sprintf("read the project: %v", err))
	}
	var deny []string
	if s.opts.Deny != nil {
		deny = s.opts.Deny()
	}
	org, err := s.store.OrgTargetPolicy(ctx, proj.OrgID)
	if err != nil {
		return failed(run, fmt.Sprintf("read the organisation's target policy: %v", err))
	}
	// The same policy as the project's runs (docs/security.md, "Target
	// policy"): listed, inside the organisation's bound, never the control
	// plane.
	t := policy.Targets{Allow: proj.TargetAllowList, Org: org, Granted: proj.TargetAllowGranted}
	guard, err := t.Guard(deny)
	if err != nil {
		return failed(run, fmt.Sprintf("the project's target policy is invalid: %v", err))
	}
	guard.Resolver = s.opts.Resolver
	f := fetcher{client: guard.Client(s.opts.RequestTimeout, s.opts.MaxRedirects)}
	list, err := f.list(ctx, src, s.opts.MaxListingBytes)
	run.Kind, run.Pages = list.kind, list.pages
	if err != nil && len(list.objects) == 0 {
		return failed(run, err.Error())
	}
	if err != nil {
		run.Error = err.Error()
	}
	imp := importer{store: s.store, fetch: f, src: src, now: s.now, redactor: s.opts.Redactor}
	for i, obj := range list.objects {
		o := imp.object(ctx, obj)
		if errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(ctx.Err(), context.Canceled) {
			run.Error = "the sync was interrupted: " + ctx.Err().Error()
			break
		}
		if err := s.store.AddSyncObject(ctx, run.ID, i, o); err != nil {
			log.ErrorContext(ctx, "record sync object", slog.Any("err", err))
			return failed(run, "could not record the objects' outcomes")
		}
		count(&run, o.Outcome)
	}
	run.Status = Succeeded
	if run.Failed > 0 || run.Error != "" {
		run.Status = Partial
	}
	return run
}

// failed returns run ended as failed with reason.
func failed(run Run, reason string) Run {
	run.Status, run.Error = Failed, reason
	return run
}

// count adds one outcome to run's figures.
func count(run *Run, o Outcome) {
	switch o {
	case Imported:
		run.Imported++
	case Unchanged:
		run.Unchanged++
	case Skipped:
		run.Skipped++
	default:
		run.Failed++
	}
}
