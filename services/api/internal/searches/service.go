package searches

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/paging"
	"github.com/barrage-dev/barrage/services/api/internal/projects"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// Defaults and bounds of a search's settings.
const (
	DefaultStep       = 10 * time.Second
	DefaultWarmup     = 2 * time.Second
	DefaultResolution = 0.02
	maxStep           = time.Hour
	maxWarmup         = 10 * time.Minute
	maxResolution     = 0.5
	maxNameLength     = 200
)

// Runs is what a search needs of runs: start, watch and stop the run of a
// step, and read its per-second rows.
type Runs interface {
	Create(ctx context.Context, p *auth.Principal, in runs.Input) (runs.Run, bool, error)
	Get(ctx context.Context, p *auth.Principal, id uuid.UUID) (runs.Run, error)
	Stop(ctx context.Context, p *auth.Principal, id uuid.UUID) (runs.Run, error)
}

// Intervals reads a run's per-second rows merged across its shards.
type Intervals interface {
	Intervals(ctx context.Context, p *auth.Principal, id uuid.UUID, from, limit int) ([]runs.Interval, error)
}

// Options configure a Service.
type Options struct {
	Store     Store
	Projects  *projects.Service
	Runs      Runs
	Intervals Intervals
	Log       *slog.Logger
	// Poll is how often a driver looks at its step's run; default 250 ms.
	Poll time.Duration
	// Lease is how long a driver's claim on a search lasts unless renewed;
	// a search whose lease ended is resumed by any replica's Loop. Default
	// DefaultLease.
	Lease time.Duration
}

// DefaultLease is Options.Lease when it is zero: the longest a search
// waits for another replica after its driver died.
const DefaultLease = 30 * time.Second

// claimBatch is the most searches one claim takes.
const claimBatch = 10

// Service applies the rules of searches and drives the running ones whose
// lease it holds.
type Service struct {
	opts Options
	now  func() time.Time
	// id names this process as the driver of the searches it leases.
	id uuid.UUID
	// base is the context of every driver; Close cancels it with
	// errClosing.
	base    context.Context
	stop    context.CancelCauseFunc
	drivers sync.WaitGroup
	mu      sync.Mutex
	cancels map[uuid.UUID]context.CancelCauseFunc
}

// NewService returns a Service; Close stops its drivers.
func NewService(o Options) *Service {
	if o.Poll <= 0 {
		o.Poll = 250 * time.Millisecond
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	if o.Lease <= 0 {
		o.Lease = DefaultLease
	}
	base, stop := context.WithCancelCause(context.Background())
	return &Service{opts: o, now: time.Now, id: newID(), base: base, stop: stop, cancels: map[uuid.UUID]context.CancelCauseFunc{}}
}

// errClosing is the cause of a driver's end when its process stops: the
// search and its step's run go on, resumed by whichever replica claims it.
var errClosing = errors.New("the API process is stopping")

// Close stops every driver and waits for them. Each gives up its lease,
// so another replica (or this process's next start) resumes its search.
func (s *Service) Close() {
	s.mu.Lock()
	s.stop(errClosing)
	s.mu.Unlock()
	s.drivers.Wait()
}

// renewEvery is how often a driver renews its lease and checks that its
// search still runs: a third of the lease, at most checkEvery.
func (s *Service) renewEvery() time.Duration { return min(checkEvery, s.opts.Lease/3) }

// Loop claims and resumes the searches whose lease ended, every third of
// the lease, until ctx ends. Every API replica runs it; a claim takes a
// search from the database to one replica only.
func (s *Service) Loop(ctx context.Context) {
	t := time.NewTicker(s.renewEvery())
	defer t.Stop()
	for {
		if err := s.ResumeDue(ctx); err != nil && ctx.Err() == nil {
			s.opts.Log.Error("resume searches", slog.Any("error", err))
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// ResumeDue claims the running searches whose lease ended and resumes
// them in the background.
func (s *Service) ResumeDue(ctx context.Context) error {
	if s.base.Err() != nil {
		return nil
	}
	ids, err := s.opts.Store.ClaimSearches(ctx, s.id, s.opts.Lease, claimBatch)
	if err != nil {
		return fmt.Errorf("claim searches: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range ids {
		if s.base.Err() != nil { // closed meanwhile: let another replica have it
			s.release(id)
			continue
		}
		if _, ok := s.cancels[id]; ok { // driven here already; the claim renewed its lease
			continue
		}
		s.cancels[id] = func(error) {} // until drive registers the driver's
		s.opts.Log.Info("resume search", slog.String("search", id.String()))
		s.drivers.Go(func() { s.resume(id) })
	}
	return nil
}

// staleAfter is how long a running search without a lease may go
// untouched before an API process ends it.
const staleAfter = time.Minute

// FailStale ends the running searches that cannot be resumed: those
// stored, without a lease nor a sealed spec, by an API from before
// searches were resumable, whose driver is gone.
func (s *Service) FailStale(ctx context.Context) error {
	n, err := s.opts.Store.FailStaleSearches(ctx, s.now().Add(-staleAfter).UTC(),
		"the API process driving the search stopped, and the search was started by an API version that cannot resume it")
	if err != nil {
		return fmt.Errorf("fail stale searches: %w", err)
	}
	if n > 0 {
		s.opts.Log.Warn("ended searches whose driver stopped", slog.Int("searches", n))
	}
	return nil
}

// Input is a request to start a search.
type Input struct {
	// Project is a project id or slug; optional with a project token.
	Project string
	Name    string
	// Spec is the base spec: its target, connections and request. Each
	// step runs it open-loop at the step's qps for Warmup + Step.
	Spec       spec.Spec
	Objective  string
	MinQPS     float64
	MaxQPS     float64
	Step       time.Duration
	Warmup     time.Duration
	Resolution float64
}

// normalize fills the defaults.
func (in *Input) normalize() {
	if in.Step == 0 {
		in.Step = DefaultStep
	}
	if in.Warmup == 0 {
		in.Warmup = DefaultWarmup
	}
	if in.Resolution == 0 {
		in.Resolution = DefaultResolution
	}
}

// check validates the settings other than the spec and objective.
func (in *Input) check() error {
	e := &apperr.Error{Code: apperr.Invalid, Detail: "the search has invalid fields"}
	add := func(field, format string, args ...any) {
		e.Fields = append(e.Fields, apperr.FieldError{Field: field, Message: fmt.Sprintf(format, args...)})
	}
	if utf8.RuneCountInString(in.Name) > maxNameLength {
		add("name", "must be at most %d characters", maxNameLength)
	}
	switch {
	case math.IsNaN(in.MinQPS) || in.MinQPS <= 0 || in.MinQPS > spec.MaxQPS:
		add("min_qps", "must be greater than 0 and at most %s", formatQPS(spec.MaxQPS))
	case math.IsNaN(in.MaxQPS) || in.MaxQPS < in.MinQPS || in.MaxQPS > spec.MaxQPS:
		add("max_qps", "must be at least min_qps (%s) and at most %s", formatQPS(in.MinQPS), formatQPS(spec.MaxQPS))
	}
	checkSeconds(add, "step_duration", in.Step, time.Second, maxStep, "1h")
	checkSeconds(add, "warmup", in.Warmup, 0, maxWarmup, "10m")
	if math.IsNaN(in.Resolution) || in.Resolution <= 0 || in.Resolution > maxResolution {
		add("resolution", "must be greater than 0 and at most %g", maxResolution)
	}
	checkBaseSpec(add, in.Spec)
	if len(e.Fields) > 0 {
		return e
	}
	return nil
}

// checkSeconds checks a whole number of seconds from lo to hi: steps are
// judged on per-second rows.
func checkSeconds(add func(string, string, ...any), field string, d, lo, hi time.Duration, hiText string) {
	if d < lo || d > hi || d%time.Second != 0 {
		add(field, "must be whole seconds from %s to %s", lo, hiText)
	}
}

// checkBaseSpec refuses what a search sets itself: the rate and the length.
func checkBaseSpec(add func(string, string, ...any), sp spec.Spec) {
	switch {
	case sp.Ramp != nil:
		add("spec.ramp", "a search sets the rate of each step; remove the ramp")
	case len(sp.Stages) > 0:
		add("spec.stages", "a search sets the rate of each step; remove the stages")
	case sp.Count != 0 || sp.UntilStopped:
		add("spec.count", "a search sets the length of each step; remove count and until_stopped")
	case sp.Pacing != "" && sp.Pacing != spec.PacingOpen:
		add("spec.pacing", "a search paces open-loop, so latencies count the wait of late requests")
	}
}

// stepSpec is the spec of a step at qps.
func stepSpec(base spec.Spec, qps float64, length time.Duration) spec.Spec {
	sp := base.Clone()
	sp.QPS, sp.Duration, sp.Pacing = qps, spec.Duration(length), spec.PacingOpen
	return sp
}

// Create validates in, starts the first step's run (so that what is wrong
// with the spec, its target or the project's limits is reported now), and
// drives the rest of the search in the background.
func (s *Service) Create(ctx context.Context, p *auth.Principal, in Input) (Search, error) {
	proj, err := s.opts.Projects.Resolve(ctx, p, in.Project, auth.Runner)
	if err != nil {
		return Search{}, err
	}
	in.normalize()
	if err := in.check(); err != nil {
		return Search{}, err
	}
	terms, err := ParseObjective(in.Objective)
	if err != nil {
		return Search{}, err
	}
	now := s.now().UTC()
	sr := Search{
		ID: newID(), ProjectID: proj.ID, Name: in.Name, Objective: canonical(terms),
		MinQPS: in.MinQPS, MaxQPS: in.MaxQPS, Step: in.Step, Warmup: in.Warmup, Resolution: in.Resolution,
		Status: Running, CreatedBy: p.UserID, CreatedAt: now, UpdatedAt: now,
	}
	st := newStrategy(in.MinQPS, in.MaxQPS, in.Resolution)
	d := &driver{svc: s, p: p, search: sr, real: in.Spec.Clone(), terms: terms, strategy: st}
	first, run, err := d.startRun(ctx, 0, st.first())
	if err != nil {
		return Search{}, err
	}
	d.search.Spec = run.Spec // redacted, as the run stores it
	d.search.Spec.QPS = 0    // each step sets its own
	if err := s.opts.Store.CreateSearch(ctx, d.search, d.real, s.id, s.opts.Lease); err != nil {
		s.stopRun(p, run.ID)
		return Search{}, fmt.Errorf("create search: %w", err)
	}
	if err := s.opts.Store.SaveStep(ctx, sr.ID, first); err != nil {
		s.stopRun(p, run.ID)
		return Search{}, fmt.Errorf("create search: %w", err)
	}
	out := d.search
	out.Steps = []Step{first}
	s.launch(d, first)
	return out, nil
}

// launch runs d in the background until its search ends, its lease is
// lost or Close.
func (s *Service) launch(d *driver, first Step) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.drivers.Go(func() { s.drive(d, first) })
}

// drive runs d from st until its search ends, its lease is lost or Close,
// then gives up its lease.
func (s *Service) drive(d *driver, st Step) {
	ctx, cancel := context.WithCancelCause(s.base)
	s.mu.Lock()
	s.cancels[d.search.ID] = cancel
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.cancels, d.search.ID)
		s.mu.Unlock()
		cancel(nil)
		s.release(d.search.ID)
	}()
	d.run(ctx, st)
}

// release gives up this process's lease of a search, whatever the
// driver's context: a no-op once the search ended or another holds it.
func (s *Service) release(id uuid.UUID) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.opts.Store.ReleaseSearch(ctx, id, s.id); err != nil {
		s.opts.Log.Warn("release a search's lease", slog.String("search", id.String()), slog.Any("error", err))
	}
}

// stopRun stops a step's run, best effort, whatever the caller's context.
func (s *Service) stopRun(p *auth.Principal, id uuid.UUID) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := s.opts.Runs.Stop(ctx, p, id); err != nil && !apperr.Is(err, apperr.Conflict) {
		s.opts.Log.Warn("stop a search step's run", slog.String("run", id.String()), slog.Any("error", err))
	}
}

// Get returns a search the caller can see, with its steps.
func (s *Service) Get(ctx context.Context, p *auth.Principal, id uuid.UUID) (Search, error) {
	return s.load(ctx, p, id, auth.Viewer)
}

func (s *Service) load(ctx context.Context, p *auth.Principal, id uuid.UUID, need auth.Role) (Search, error) {
	sr, err := s.opts.Store.GetSearch(ctx, id)
	if err := p.Reach(err, sr.ProjectID, need, "search", id); err != nil {
		return Search{}, err
	}
	return sr, nil
}

// Cancel ends a running search (runners) and stops its current run.
func (s *Service) Cancel(ctx context.Context, p *auth.Principal, id uuid.UUID) (Search, error) {
	sr, err := s.load(ctx, p, id, auth.Runner)
	if err != nil {
		return Search{}, err
	}
	if sr.Status != Running {
		return Search{}, apperr.New(apperr.Conflict, "search %s is %s; it cannot be canceled", id, sr.Status)
	}
	sr.Status, sr.Message, sr.FinishedAt = Canceled, "canceled", s.now().UTC()
	ok, err := s.opts.Store.EndSearch(ctx, sr)
	if err != nil {
		return Search{}, fmt.Errorf("cancel search %s: %w", id, err)
	}
	if !ok {
		return Search{}, apperr.New(apperr.Conflict, "search %s ended while being canceled", id)
	}
	s.mu.Lock()
	cancel := s.cancels[id]
	s.mu.Unlock()
	if cancel != nil {
		cancel(errEnded)
	}
	return s.load(ctx, p, id, auth.Viewer)
}

// List returns one page of the searches the caller can see, newest first.
func (s *Service) List(ctx context.Context, p *auth.Principal, project string, page paging.Request) ([]Search, string, error) {
	f := Filter{Page: page}
	var err error
	if f.ProjectIDs, f.AllProjects, err = s.opts.Projects.Scope(ctx, p, project); err != nil {
		return nil, "", err
	}
	if !f.AllProjects && len(f.ProjectIDs) == 0 {
		return nil, "", nil
	}
	rows, err := s.opts.Store.ListSearches(ctx, f)
	if err != nil {
		return nil, "", fmt.Errorf("list searches: %w", err)
	}
	items, next := paging.Page(rows, f.Page.Limit, Search.Cursor)
	return items, next, nil
}

// newID returns a time-ordered id (UUIDv7).
func newID() uuid.UUID {
	id, err := uuid.NewV7()
	if err != nil {
		return uuid.New()
	}
	return id
}
