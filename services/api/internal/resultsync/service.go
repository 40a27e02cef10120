package resultsync

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/paging"
	"github.com/barrage-dev/barrage/services/api/internal/projects"
)

// Limits of a source.
const (
	maxName         = 100
	maxURL          = 2048
	maxInterval     = 7 * 24 * 60
	defaultPages    = 100
	maxPages        = 1000
	defaultObjects  = 1000
	maxObjects      = 10000
	defaultListSync = 20
	maxListSync     = 100
)

// Service applies the rules of sync sources for callers: project admins
// manage sources, runners start syncs, viewers read them.
type Service struct {
	projects *projects.Service
	store    Store
	syncer   *Syncer
	now      func() time.Time
}

// NewService returns a Service that starts syncs on syncer.
func NewService(projectSvc *projects.Service, st Store, syncer *Syncer) *Service {
	return &Service{projects: projectSvc, store: st, syncer: syncer, now: time.Now}
}

// Input is what a caller sets on a source; nil fields of an update stay.
type Input struct {
	Project         string
	Name            *string
	URL             *string
	IntervalMinutes *int
	MaxPages        *int
	MaxObjects      *int
}

// apply sets in's fields on src and checks the result.
func (in Input) apply(src *Source) error {
	if in.Name != nil {
		src.Name = strings.TrimSpace(*in.Name)
	}
	if in.URL != nil {
		src.URL = strings.TrimSpace(*in.URL)
	}
	if in.IntervalMinutes != nil {
		src.IntervalMinutes = *in.IntervalMinutes
	}
	if in.MaxPages != nil {
		src.MaxPages = *in.MaxPages
	}
	if in.MaxObjects != nil {
		src.MaxObjects = *in.MaxObjects
	}
	e := &apperr.Error{Code: apperr.Invalid, Detail: "the sync source has invalid fields"}
	bad := func(field, format string, args ...any) {
		e.Fields = append(e.Fields, apperr.FieldError{Field: field, Message: fmt.Sprintf(format, args...)})
	}
	if n := utf8.RuneCountInString(src.Name); n == 0 || n > maxName {
		bad("name", "must be 1 to %d characters, not blank", maxName)
	}
	if msg := checkURL(src.URL); msg != "" {
		bad("url", "%s", msg)
	}
	if src.IntervalMinutes < 0 || src.IntervalMinutes > maxInterval {
		bad("interval_minutes", "must be from 0 (on demand) to %d", maxInterval)
	}
	if src.MaxPages < 1 || src.MaxPages > maxPages {
		bad("max_pages", "must be from 1 to %d", maxPages)
	}
	if src.MaxObjects < 1 || src.MaxObjects > maxObjects {
		bad("max_objects", "must be from 1 to %d", maxObjects)
	}
	if len(e.Fields) > 0 {
		return e
	}
	return nil
}

// checkURL returns what is wrong with a source URL, or "".
func checkURL(raw string) string {
	if raw == "" || len(raw) > maxURL {
		return fmt.Sprintf("must be an http or https URL of at most %d characters", maxURL)
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return "is not a URL"
	case u.Scheme != "http" && u.Scheme != "https":
		return "must be an http or https URL (an index.tsv or a bucket listing)"
	case u.Host == "":
		return "has no host"
	case u.User != nil:
		return "must not carry credentials; make the listing readable or use a signed URL"
	}
	return ""
}

// schedule sets when src is next due: an interval after now, or never.
func schedule(src *Source, now time.Time) {
	src.NextRunAt = time.Time{}
	if src.IntervalMinutes > 0 {
		src.NextRunAt = now.Add(time.Duration(src.IntervalMinutes) * time.Minute).UTC()
	}
}

// Create adds a source to a project; project admins only.
func (s *Service) Create(ctx context.Context, p *auth.Principal, in Input) (Source, error) {
	proj, err := s.projects.Resolve(ctx, p, in.Project, auth.Admin)
	if err != nil {
		return Source{}, err
	}
	now := s.now().UTC()
	src := Source{
		ID: uuid.New(), ProjectID: proj.ID, Kind: KindAuto, MaxPages: defaultPages, MaxObjects: defaultObjects,
		CreatedBy: p.UserID, CreatedAt: now, UpdatedAt: now,
	}
	if err := in.apply(&src); err != nil {
		return Source{}, err
	}
	schedule(&src, now)
	created, err := s.store.CreateSource(ctx, src, p.Actor())
	if err != nil {
		return Source{}, fmt.Errorf("create sync source: %w", err)
	}
	return created, nil
}

// load returns a source the caller holds need in.
func (s *Service) load(ctx context.Context, p *auth.Principal, id uuid.UUID, need auth.Role) (Source, error) {
	src, err := s.store.GetSource(ctx, id)
	if err := p.Reach(err, src.ProjectID, need, "sync source", id); err != nil {
		return Source{}, err
	}
	return src, nil
}

// Get returns a source the caller can see.
func (s *Service) Get(ctx context.Context, p *auth.Principal, id uuid.UUID) (Source, error) {
	return s.load(ctx, p, id, auth.Viewer)
}

// List returns one page of the sources of project (every visible project
// when ""), newest first, and the next cursor.
func (s *Service) List(ctx context.Context, p *auth.Principal, project string, page paging.Request) ([]Source, string, error) {
	ids, all, err := s.projects.Scope(ctx, p, project)
	if err != nil {
		return nil, "", err
	}
	if !all && len(ids) == 0 {
		return nil, "", nil
	}
	rows, err := s.store.ListSources(ctx, ids, all, page)
	if err != nil {
		return nil, "", fmt.Errorf("list sync sources: %w", err)
	}
	items, next := paging.Page(rows, page.Limit, Source.Cursor)
	return items, next, nil
}

// Update changes a source; project admins only.
func (s *Service) Update(ctx context.Context, p *auth.Principal, id uuid.UUID, in Input) (Source, error) {
	src, err := s.load(ctx, p, id, auth.Admin)
	if err != nil {
		return Source{}, err
	}
	oldURL, oldInterval := src.URL, src.IntervalMinutes
	if err := in.apply(&src); err != nil {
		return Source{}, err
	}
	now := s.now().UTC()
	if src.URL != oldURL {
		src.Kind = KindAuto
	}
	if src.IntervalMinutes != oldInterval {
		schedule(&src, now)
	}
	src.UpdatedAt = now
	updated, err := s.store.UpdateSource(ctx, src, p.Actor())
	if err != nil {
		return Source{}, fmt.Errorf("update sync source: %w", err)
	}
	return updated, nil
}

// Delete removes a source and its history; project admins only. The runs
// it imported stay.
func (s *Service) Delete(ctx context.Context, p *auth.Principal, id uuid.UUID) error {
	src, err := s.load(ctx, p, id, auth.Admin)
	if err != nil {
		return err
	}
	if err := s.store.DeleteSource(ctx, src, p.Actor()); err != nil {
		return fmt.Errorf("delete sync source: %w", err)
	}
	return nil
}

// RunNow starts a sync of a source in the background and returns it;
// project runners only. Conflict while one runs.
func (s *Service) RunNow(ctx context.Context, p *auth.Principal, id uuid.UUID) (Run, error) {
	src, err := s.load(ctx, p, id, auth.Runner)
	if err != nil {
		return Run{}, err
	}
	return s.syncer.Start(ctx, src, TriggerManual)
}

// Runs returns a source's latest syncs, newest first.
func (s *Service) Runs(ctx context.Context, p *auth.Principal, id uuid.UUID, limit int) ([]Run, error) {
	if _, err := s.load(ctx, p, id, auth.Viewer); err != nil {
		return nil, err
	}
	if limit <= 0 {
		limit = defaultListSync
	}
	list, err := s.store.ListSyncs(ctx, id, min(limit, maxListSync))
	if err != nil {
		return nil, fmt.Errorf("list syncs: %w", err)
	}
	return list, nil
}

// GetRun returns one sync with its objects.
func (s *Service) GetRun(ctx context.Context, p *auth.Principal, id uuid.UUID) (Run, error) {
	r, err := s.store.GetSync(ctx, id)
	if err := p.Reach(err, r.ProjectID, auth.Viewer, "sync", id); err != nil {
		return Run{}, err
	}
	return r, nil
}
