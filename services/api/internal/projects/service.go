package projects

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/paging"
	"github.com/barrage-dev/barrage/services/api/internal/policy"
)

// Field limits of a project.
const (
	maxNameLength        = 100
	maxDescriptionLength = 2000
)

// slugPattern is 1-40 of a-z, 0-9 and inner dashes.
var slugPattern = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,38}[a-z0-9])?$`)

// Service applies the rules of projects.
type Service struct {
	store  Store
	limits policy.Limits
	now    func() time.Time
}

// NewService returns a Service over store; limits are the deployment's,
// which a project's own may only lower.
func NewService(store Store, limits policy.Limits) *Service {
	limits.Normalize()
	return &Service{store: store, limits: limits, now: time.Now}
}

// Limits returns the limits in force in p: the deployment's with p's own
// in their place.
func (s *Service) Limits(p Project) policy.Limits {
	return s.limits.Apply(p.Limits)
}

// Deployment returns the deployment's limits.
func (s *Service) Deployment() policy.Limits { return s.limits }

// Overrides returns the limits project id sets, for a caller that already
// holds the right to act in it (a run being created); NotFound when the
// project is gone.
func (s *Service) Overrides(ctx context.Context, id uuid.UUID) (policy.Overrides, error) {
	o, err := s.store.ProjectLimits(ctx, id)
	if err != nil {
		return policy.Overrides{}, fmt.Errorf("limits of project %s: %w", id, err)
	}
	return o, nil
}

// notFound is the answer for a project that does not exist or that the
// caller cannot see: the two are indistinguishable on purpose.
func notFound(ref string) error {
	return apperr.New(apperr.NotFound, "project %q not found", ref)
}

// Resolve finds the project ref (an id or a slug) and checks that the
// caller holds at least need in it. An empty ref means the caller's only
// project: the token's, the one project a user belongs to, or for an org
// admin the one project there is.
func (s *Service) Resolve(ctx context.Context, p *auth.Principal, ref string, need auth.Role) (Project, error) {
	if ref == "" {
		only, err := s.onlyProject(ctx, p)
		if err != nil {
			return Project{}, err
		}
		ref = only
	}
	var (
		proj Project
		err  error
	)
	if id, perr := uuid.Parse(ref); perr == nil {
		proj, err = s.store.GetProject(ctx, id)
	} else {
		proj, err = s.store.GetProjectBySlug(ctx, ref)
	}
	if apperr.Is(err, apperr.NotFound) || (err == nil && p.RoleIn(proj.ID) == "") {
		return Project{}, notFound(ref)
	}
	if err != nil {
		return Project{}, fmt.Errorf("resolve project %q: %w", ref, err)
	}
	if !p.Can(proj.ID, need) {
		return Project{}, apperr.New(apperr.Forbidden, "this action needs the %s role in project %q", need, proj.Slug)
	}
	return proj, nil
}

// namedInRequired is how many of the caller's projects the "project is
// required" problem lists.
const namedInRequired = 10

// onlyProject returns the id of the one project the caller can see, or the
// "project is required" problem naming the ones it can choose from.
func (s *Service) onlyProject(ctx context.Context, p *auth.Principal) (string, error) {
	if ids, all := p.VisibleProjects(); !all && len(ids) == 1 {
		return ids[0].String(), nil
	}
	list, next, err := s.List(ctx, p, paging.Request{Limit: namedInRequired})
	if err != nil {
		return "", err
	}
	if len(list) == 1 && next == "" {
		return list[0].ID.String(), nil
	}
	if len(list) == 0 {
		return "", apperr.Invalidf("project", "is required, and you are a member of no project")
	}
	slugs := make([]string, len(list))
	for i := range list {
		slugs[i] = list[i].Slug
	}
	more := ""
	if next != "" {
		more = ", …"
	}
	return "", apperr.Invalidf("project", "is required: you can reach several projects: %s%s", strings.Join(slugs, ", "), more)
}

// Lookup returns the project id without checking a caller: for work that
// nobody asked for, like the runs a test's schedule starts.
func (s *Service) Lookup(ctx context.Context, id uuid.UUID) (Project, error) {
	proj, err := s.store.GetProject(ctx, id)
	if err != nil {
		return Project{}, fmt.Errorf("look up project %s: %w", id, err)
	}
	return proj, nil
}

// Scope returns the projects a list covers: the project ref (an id or a
// slug, which the caller must see) or, when ref is "", every project the
// caller can see (all=true for an org admin).
func (s *Service) Scope(ctx context.Context, p *auth.Principal, ref string) (ids []uuid.UUID, all bool, err error) {
	if ref == "" {
		ids, all = p.VisibleProjects()
		return ids, all, nil
	}
	proj, err := s.Resolve(ctx, p, ref, auth.Viewer)
	if err != nil {
		return nil, false, err
	}
	return []uuid.UUID{proj.ID}, false, nil
}

// AdminScope is Scope narrowed to the projects the caller administers: a
// Forbidden naming what when ref names a project the caller sees but does
// not administer, and no ids (all=false) when ref is "" and the caller
// administers none.
func (s *Service) AdminScope(ctx context.Context, p *auth.Principal, ref, what string) (ids []uuid.UUID, all bool, err error) {
	ids, all, err = s.Scope(ctx, p, ref)
	if err != nil || all {
		return ids, all, err
	}
	admin := ids[:0:0]
	for _, id := range ids {
		if p.Can(id, auth.Admin) {
			admin = append(admin, id)
		}
	}
	if ref != "" && len(admin) == 0 {
		return nil, false, apperr.New(apperr.Forbidden, "%s needs the admin role in project %q", what, ref)
	}
	return admin, false, nil
}

// Input is what a caller may set on a project.
type Input struct {
	Slug        string
	Name        string
	Description string
}

// validate checks in; slug only when withSlug.
func (in Input) validate(withSlug bool) error {
	e := &apperr.Error{Code: apperr.Invalid, Detail: "the project has invalid fields"}
	if withSlug && !slugPattern.MatchString(in.Slug) {
		e.Fields = append(e.Fields, apperr.FieldError{Field: "slug", Message: "must be 1 to 40 of a-z, 0-9 and inner dashes"})
	}
	if n := utf8.RuneCountInString(in.Name); strings.TrimSpace(in.Name) == "" || n > maxNameLength {
		e.Fields = append(e.Fields, apperr.FieldError{Field: "name", Message: fmt.Sprintf("must be 1 to %d characters, not blank", maxNameLength)})
	}
	if utf8.RuneCountInString(in.Description) > maxDescriptionLength {
		e.Fields = append(e.Fields, apperr.FieldError{Field: "description", Message: fmt.Sprintf("must be at most %d characters", maxDescriptionLength)})
	}
	if len(e.Fields) > 0 {
		return e
	}
	return nil
}

// Create makes a project; only org admins using unscoped credentials may.
// The creator becomes its admin.
func (s *Service) Create(ctx context.Context, p *auth.Principal, in Input) (Project, error) {
	if !p.OrgAdmin || p.Scoped() {
		return Project{}, apperr.New(apperr.Forbidden, "only organisation admins can create projects")
	}
	if err := in.validate(true); err != nil {
		return Project{}, err
	}
	org, err := s.store.DefaultOrg(ctx)
	if err != nil {
		return Project{}, fmt.Errorf("create project: %w", err)
	}
	now := s.now().UTC()
	proj := Project{ID: uuid.New(), OrgID: org, Slug: in.Slug, Name: in.Name, Description: in.Description, CreatedAt: now, UpdatedAt: now}
	created, err := s.store.CreateProject(ctx, proj, p.UserID, p.Actor())
	if err != nil {
		return Project{}, fmt.Errorf("create project: %w", err)
	}
	return created, nil
}

// Get returns a project the caller can see.
func (s *Service) Get(ctx context.Context, p *auth.Principal, ref string) (Project, error) {
	return s.Resolve(ctx, p, ref, auth.Viewer)
}

// Update is a change to a project; nil fields stay as they are.
type Update struct {
	Name            *string
	Description     *string
	PublicResults   *bool
	TargetAllowList *[]string
	// Limits replaces all of the project's own limits when not nil; a nil
	// field in it is the deployment's limit.
	Limits *policy.Overrides
	// Retention replaces both of the project's retentions when not nil.
	Retention *Retention
}

// Update changes a project; project admins only. The allow-list must parse
// (netguard.ParseAllowList) and stay inside the organisation's target
// policy unless the caller is an org admin (policy.Targets.NarrowAllowList);
// each limit must be positive and at most the deployment's.
func (s *Service) Update(ctx context.Context, p *auth.Principal, ref string, u Update) (Project, error) {
	proj, err := s.Resolve(ctx, p, ref, auth.Admin)
	if err != nil {
		return Project{}, err
	}
	in := Input{Name: proj.Name, Description: proj.Description}
	if u.Name != nil {
		in.Name = *u.Name
	}
	if u.Description != nil {
		in.Description = *u.Description
	}
	if err := in.validate(false); err != nil {
		return Project{}, err
	}
	if u.PublicResults != nil {
		proj.PublicResults = *u.PublicResults
	}
	if u.TargetAllowList != nil {
		t, err := s.Targets(ctx, proj)
		if err != nil {
			return Project{}, err
		}
		granted, err := t.NarrowAllowList(*u.TargetAllowList, p.OrgAdmin && !p.Scoped())
		if err != nil {
			return Project{}, err
		}
		proj.TargetAllowList, proj.TargetAllowGranted = *u.TargetAllowList, granted
	}
	if u.Limits != nil {
		if fields := u.Limits.Validate(s.limits, "limits"); len(fields) > 0 {
			return Project{}, &apperr.Error{Code: apperr.Invalid, Detail: "the project's limits are invalid", Fields: fields}
		}
		proj.Limits = *u.Limits
	}
	if u.Retention != nil {
		if fields := u.Retention.Validate("retention"); len(fields) > 0 {
			return Project{}, &apperr.Error{Code: apperr.Invalid, Detail: "the project's retention is invalid", Fields: fields}
		}
		proj.Retention = *u.Retention
	}
	proj.Name, proj.Description, proj.UpdatedAt = in.Name, in.Description, s.now().UTC()
	updated, err := s.store.UpdateProject(ctx, proj, p.Actor())
	if err != nil {
		return Project{}, fmt.Errorf("update project: %w", err)
	}
	return updated, nil
}

// List returns one page of the projects the caller can see and the cursor
// of the next page.
func (s *Service) List(ctx context.Context, p *auth.Principal, page paging.Request) ([]Project, string, error) {
	ids, all := p.VisibleProjects()
	if !all && len(ids) == 0 {
		return nil, "", nil
	}
	rows, err := s.store.ListProjects(ctx, ids, all, page)
	if err != nil {
		return nil, "", fmt.Errorf("list projects: %w", err)
	}
	items, next := paging.Page(rows, page.Limit, Project.Cursor)
	return items, next, nil
}

// PublicViewer returns the caller of a read-only server's anonymous
// visitors: no user, the viewer role in every project that publishes its
// results, and in no other.
func (s *Service) PublicViewer(ctx context.Context) (*auth.Principal, error) {
	ids, err := s.store.PublicProjects(ctx)
	if err != nil {
		return nil, fmt.Errorf("public viewer: %w", err)
	}
	p := &auth.Principal{Name: auth.AnonymousName, Memberships: make(map[uuid.UUID]auth.Role, len(ids))}
	for _, id := range ids {
		p.Memberships[id] = auth.Viewer
	}
	return p, nil
}

// Roles returns each project the caller can see with their role in it, for
// /me: at most limit projects.
func (s *Service) Roles(ctx context.Context, p *auth.Principal, limit int) ([]Project, []auth.Role, error) {
	list, _, err := s.List(ctx, p, paging.Request{Limit: limit})
	if err != nil {
		return nil, nil, err
	}
	roles := make([]auth.Role, len(list))
	for i := range list {
		roles[i] = p.RoleIn(list[i].ID)
	}
	return list, roles, nil
}
