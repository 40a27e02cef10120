package remotewrite

import (
	"context"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/projects"
	"github.com/barrage-dev/barrage/services/api/internal/promwrite"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// ExportStore is what the Exporter reads.
type ExportStore interface {
	RemoteWrites(ctx context.Context) ([]Config, error)
	GetProject(ctx context.Context, id uuid.UUID) (projects.Project, error)
	RunsToExport(ctx context.Context, projects []uuid.UUID, endedSince time.Time, limit int) ([]runs.Run, error)
	RunIntervalsChanged(ctx context.Context, run uuid.UUID, after time.Time) ([]runs.Interval, error)
	RunResult(ctx context.Context, run uuid.UUID) (runs.Result, error)
}

// Exporter bounds.
const (
	// maxRuns bounds the runs exported at once.
	maxRuns = 500
	// finalWindow is how long after its end a run's final figures may
	// still be sent (its result is stored a moment after it ends).
	finalWindow = time.Minute
	// reread is how far back changed seconds are read again: a second's
	// update time is its transaction's start, which can commit after a
	// read that began later.
	reread = 10 * time.Second
)

// Exporter sends, each tick, the figures of the running runs of every
// project with an enabled remote-write endpoint, and once more the final
// figures of those that ended.
type Exporter struct {
	store   ExportStore
	service *Service
	log     *slog.Logger
	now     func() time.Time

	// mu guards senders and stats against Stats: only the exporter's
	// goroutine changes them.
	mu      sync.Mutex
	senders map[uuid.UUID]*projectSender
	stats   promwrite.Stats // of senders replaced or stopped
	runs    map[uuid.UUID]*runState
}

// projectSender is a project's running sender.
type projectSender struct {
	cfg    Config
	labels map[string]string // project label
	sender *promwrite.Sender
	stop   context.CancelFunc
	done   chan struct{}
}

// NewExporter returns an Exporter; service gives the projects' target
// policies. log may be nil.
func NewExporter(st ExportStore, service *Service, log *slog.Logger) *Exporter {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Exporter{store: st, service: service, log: log, now: time.Now,
		senders: map[uuid.UUID]*projectSender{}, runs: map[uuid.UUID]*runState{}}
}

// Loop exports every period until ctx is done, then stops the senders.
func (e *Exporter) Loop(ctx context.Context, period time.Duration) {
	t := time.NewTicker(period)
	defer t.Stop()
	defer e.stopAll()
	for {
		e.Tick(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Stats adds up what the senders did, those stopped included.
func (e *Exporter) Stats() promwrite.Stats {
	e.mu.Lock()
	defer e.mu.Unlock()
	st := e.stats
	for _, s := range e.senders {
		add(&st, s.sender.Stats())
	}
	return st
}

func add(to *promwrite.Stats, s promwrite.Stats) {
	to.Sent += s.Sent
	to.Dropped += s.Dropped
	to.Rejected += s.Rejected
	to.Retries += s.Retries
}

// Flush sends what every sender holds now (for tests and shutdown).
func (e *Exporter) Flush(ctx context.Context) error {
	for _, s := range e.senders {
		if err := s.sender.Flush(ctx); err != nil {
			return err
		}
	}
	return nil
}

// Tick exports once: it refreshes the senders from the configurations,
// then queues the samples of each run to export.
func (e *Exporter) Tick(ctx context.Context) {
	cfgs, err := e.store.RemoteWrites(ctx)
	if err != nil {
		e.log.Warn("remote write: read the configurations", slog.Any("error", err))
	}
	e.refresh(ctx, cfgs)
	if len(e.senders) == 0 {
		clear(e.runs)
		return
	}
	now := e.now()
	list, err := e.store.RunsToExport(ctx, slices.Collect(maps.Keys(e.senders)), now.Add(-finalWindow), maxRuns)
	if err != nil {
		e.log.Warn("remote write: list the runs", slog.Any("error", err))
		return
	}
	seen := make(map[uuid.UUID]bool, len(list))
	for i := range list {
		r := &list[i]
		seen[r.ID] = true
		s := e.senders[r.ProjectID]
		st := e.runs[r.ID]
		if st == nil {
			st = newRunState(r, s.labels)
			e.runs[r.ID] = st
		}
		if st.final {
			continue
		}
		samples, err := e.samples(ctx, r, st, now)
		if err != nil {
			e.log.Warn("remote write: read a run's figures", slog.String("run", r.ID.String()), slog.Any("error", err))
			continue
		}
		s.sender.Enqueue(samples...)
	}
	for id := range e.runs {
		if !seen[id] {
			delete(e.runs, id)
		}
	}
}

// samples reads a run's new figures and returns its samples: live ones
// from its stored seconds while it runs, its result's once it ended (none
// until the result is stored).
func (e *Exporter) samples(ctx context.Context, r *runs.Run, st *runState, now time.Time) ([]promwrite.Sample, error) {
	if r.Status.Terminal() {
		res, err := e.store.RunResult(ctx, r.ID)
		if apperr.Is(err, apperr.NotFound) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		st.final = true
		return st.finalSamples(r, &res, now)
	}
	changed, err := e.store.RunIntervalsChanged(ctx, r.ID, st.mark.Add(-reread))
	if err != nil {
		return nil, err
	}
	if err := st.merge(changed); err != nil {
		return nil, err
	}
	return st.liveSamples(r, now), nil
}

// refresh starts a sender for each new or changed configuration and stops
// those of configurations gone.
func (e *Exporter) refresh(ctx context.Context, cfgs []Config) {
	e.mu.Lock()
	defer e.mu.Unlock()
	want := make(map[uuid.UUID]Config, len(cfgs))
	for i := range cfgs {
		want[cfgs[i].ProjectID] = cfgs[i]
	}
	for id, s := range e.senders {
		if c, ok := want[id]; !ok || !c.UpdatedAt.Equal(s.cfg.UpdatedAt) {
			e.stopSender(id, s)
		}
	}
	for id := range want {
		if e.senders[id] != nil {
			continue
		}
		s, err := e.startSender(ctx, want[id])
		if err != nil {
			e.log.Warn("remote write: start a sender", slog.String("project", id.String()), slog.Any("error", err))
			continue
		}
		e.senders[id] = s
	}
}

func (e *Exporter) startSender(ctx context.Context, c Config) (*projectSender, error) {
	proj, err := e.store.GetProject(ctx, c.ProjectID)
	if err != nil {
		return nil, err
	}
	guard, err := e.service.Guard(ctx, proj)
	if err != nil {
		return nil, err
	}
	sender, err := promwrite.New(promwrite.Options{
		URL: c.URL, Client: guard.Client(10*time.Second, 0),
		Auth: promwrite.Auth{Headers: c.Headers, Username: c.Username, Password: c.Password, BearerToken: c.BearerToken},
		Log:  e.log.With(slog.String("project", proj.Slug)),
	})
	if err != nil {
		return nil, err
	}
	sctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	s := &projectSender{cfg: c, labels: map[string]string{"project": proj.Slug}, sender: sender, stop: stop, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		sender.Run(sctx)
	}()
	return s, nil
}

func (e *Exporter) stopSender(id uuid.UUID, s *projectSender) {
	s.stop()
	<-s.done
	add(&e.stats, s.sender.Stats())
	delete(e.senders, id)
	for rid, st := range e.runs {
		if st.projectID == id {
			delete(e.runs, rid)
		}
	}
}

func (e *Exporter) stopAll() {
	e.mu.Lock()
	defer e.mu.Unlock()
	for id, s := range e.senders {
		e.stopSender(id, s)
	}
}
