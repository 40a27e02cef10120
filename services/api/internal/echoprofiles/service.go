package echoprofiles

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/pkg/echofault"
	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/paging"
	"github.com/barrage-dev/barrage/services/api/internal/projects"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// Limits of a profile.
const (
	maxName    = 100
	maxContent = 4096
	// registryTimeout bounds one use of the NATS buckets.
	registryTimeout = 5 * time.Second
)

// Options configure a Service.
type Options struct {
	Store    Store
	Projects *projects.Service
	// Registry is the NATS buckets; nil when the API runs without NATS
	// (activation answers unavailable, runs record nothing).
	Registry Registry
	// Limits are the echo's, used to check content as the echo would.
	Limits echofault.Limits
	Log    *slog.Logger
}

// Service applies the rules of echo profiles: project admins manage them,
// runners activate them, viewers read them.
type Service struct {
	o   Options
	now func() time.Time
}

// NewService returns a Service.
func NewService(o Options) *Service {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Limits.MaxDelay <= 0 {
		o.Limits.MaxDelay = 10 * time.Second
	}
	if o.Limits.MaxPayload <= 0 {
		o.Limits.MaxPayload = 10 << 20
	}
	return &Service{o: o, now: time.Now}
}

// Input is what a caller sets on a profile; nil fields of an update stay.
type Input struct {
	Project string
	Name    *string
	Content *string
}

// apply sets in's fields on p and checks the result.
func (s *Service) apply(in Input, p *Profile) error {
	if in.Name != nil {
		p.Name = strings.TrimSpace(*in.Name)
	}
	if in.Content != nil {
		p.Content = strings.TrimSpace(*in.Content)
	}
	e := &apperr.Error{Code: apperr.Invalid, Detail: "the echo profile has invalid fields"}
	bad := func(field, format string, args ...any) {
		e.Fields = append(e.Fields, apperr.FieldError{Field: field, Message: fmt.Sprintf(format, args...)})
	}
	if n := utf8.RuneCountInString(p.Name); n == 0 || n > maxName {
		bad("name", "must be 1 to %d characters, not blank", maxName)
	}
	if len(p.Content) > maxContent {
		bad("content", "must be at most %d bytes", maxContent)
	} else if _, err := echofault.ParseDefaults(p.Content, s.o.Limits); err != nil {
		var pe *echofault.ParamError
		if errors.As(err, &pe) {
			bad("content", "parameter %q: %v", pe.Name, pe.Err)
		} else {
			bad("content", "is not a query string: %v", err)
		}
	}
	if len(e.Fields) > 0 {
		return e
	}
	return nil
}

// Create adds a profile to a project; project admins only.
func (s *Service) Create(ctx context.Context, p *auth.Principal, in Input) (Profile, error) {
	proj, err := s.o.Projects.Resolve(ctx, p, in.Project, auth.Admin)
	if err != nil {
		return Profile{}, err
	}
	now := s.now().UTC()
	prof := Profile{ID: uuid.New(), ProjectID: proj.ID, CreatedBy: p.UserID, CreatedAt: now, UpdatedAt: now}
	if err := s.apply(in, &prof); err != nil {
		return Profile{}, err
	}
	created, err := s.o.Store.CreateEchoProfile(ctx, prof, p.Actor())
	if err != nil {
		return Profile{}, fmt.Errorf("create echo profile: %w", err)
	}
	return created, nil
}

// load returns a profile the caller holds need in.
func (s *Service) load(ctx context.Context, p *auth.Principal, id uuid.UUID, need auth.Role) (Profile, error) {
	prof, err := s.o.Store.GetEchoProfile(ctx, id)
	if err := p.Reach(err, prof.ProjectID, need, "echo profile", id); err != nil {
		return Profile{}, err //nolint:wrapcheck // Reach's error is the answer
	}
	return prof, nil
}

// Get returns a profile the caller can see.
func (s *Service) Get(ctx context.Context, p *auth.Principal, id uuid.UUID) (Profile, error) {
	return s.load(ctx, p, id, auth.Viewer)
}

// List returns one page of the profiles of project (every visible project
// when ""), newest first, and the next cursor.
func (s *Service) List(ctx context.Context, p *auth.Principal, project string, page paging.Request) ([]Profile, string, error) {
	ids, all, err := s.o.Projects.Scope(ctx, p, project)
	if err != nil {
		return nil, "", err
	}
	if !all && len(ids) == 0 {
		return nil, "", nil
	}
	rows, err := s.o.Store.ListEchoProfiles(ctx, ids, all, page)
	if err != nil {
		return nil, "", fmt.Errorf("list echo profiles: %w", err)
	}
	items, next := paging.Page(rows, page.Limit, Profile.Cursor)
	return items, next, nil
}

// Update changes a profile; project admins only. Echoes it is active on
// get the new content.
func (s *Service) Update(ctx context.Context, p *auth.Principal, id uuid.UUID, in Input) (Profile, error) {
	prof, err := s.load(ctx, p, id, auth.Admin)
	if err != nil {
		return Profile{}, err
	}
	if err := s.apply(in, &prof); err != nil {
		return Profile{}, err
	}
	prof.UpdatedAt = s.now().UTC()
	updated, err := s.o.Store.UpdateEchoProfile(ctx, prof, p.Actor())
	if err != nil {
		return Profile{}, fmt.Errorf("update echo profile: %w", err)
	}
	s.repush(ctx, updated, false)
	return updated, nil
}

// Delete removes a profile; project admins only. Echoes it was active on
// go back to no profile.
func (s *Service) Delete(ctx context.Context, p *auth.Principal, id uuid.UUID) error {
	prof, err := s.load(ctx, p, id, auth.Admin)
	if err != nil {
		return err
	}
	if err := s.o.Store.DeleteEchoProfile(ctx, prof, p.Actor()); err != nil {
		return fmt.Errorf("delete echo profile: %w", err)
	}
	s.repush(ctx, prof, true)
	return nil
}

// repush rewrites (or, when remove, deletes) the key of every echo prof is
// active on. Failures are logged: the stored profile is the truth, and
// activating it again repairs an echo.
func (s *Service) repush(ctx context.Context, prof Profile, remove bool) {
	if s.o.Registry == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, registryTimeout)
	defer cancel()
	active, err := s.o.Registry.ActiveAll(ctx)
	if err != nil {
		s.o.Log.Warn("read active echo profiles", slog.Any("error", err))
		return
	}
	for echo, a := range active {
		if a.ProfileID != prof.ID.String() {
			continue
		}
		if remove {
			err = s.o.Registry.Deactivate(ctx, echo)
		} else {
			err = s.o.Registry.Activate(ctx, echo, prof.wire(s.now()))
		}
		if err != nil {
			s.o.Log.Warn("update echo profile on echo", slog.String("echo", echo), slog.Any("error", err))
		}
	}
}

// Activate writes a profile to one echo (echo != "") or to every echo
// registered for the profile's project, and returns their names; project
// runners only.
func (s *Service) Activate(ctx context.Context, p *auth.Principal, id uuid.UUID, echo string) ([]string, error) {
	prof, err := s.load(ctx, p, id, auth.Runner)
	if err != nil {
		return nil, err
	}
	servers, err := s.servers(ctx, p, prof.ProjectID.String(), auth.Runner)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, sv := range servers {
		if echo == "" || sv.Name == echo {
			names = append(names, sv.Name)
		}
	}
	switch {
	case echo != "" && len(names) == 0:
		return nil, apperr.Invalidf("echo", "no echo named %q is registered for the project", echo)
	case len(names) == 0:
		return nil, apperr.New(apperr.Conflict, "no echo server is registered for the project; start barrage-echo with -nats and -project")
	}
	ctx, cancel := context.WithTimeout(ctx, registryTimeout)
	defer cancel()
	at := s.now()
	for _, name := range names {
		if err := s.o.Registry.Activate(ctx, name, prof.wire(at)); err != nil {
			return nil, s.unavailable(err, "could not write the profile to NATS")
		}
	}
	return names, nil
}

// Servers returns the echoes registered for a project (id or slug) with
// their active profile, by name.
func (s *Service) Servers(ctx context.Context, p *auth.Principal, project string) ([]Server, error) {
	return s.servers(ctx, p, project, auth.Viewer)
}

func (s *Service) servers(ctx context.Context, p *auth.Principal, project string, need auth.Role) ([]Server, error) {
	proj, err := s.o.Projects.Resolve(ctx, p, project, need)
	if err != nil {
		return nil, err
	}
	if s.o.Registry == nil {
		return nil, apperr.New(apperr.Unavailable, "the API runs without NATS; managed echoes need it")
	}
	ctx, cancel := context.WithTimeout(ctx, registryTimeout)
	defer cancel()
	regs, err := s.o.Registry.Echoes(ctx)
	if err != nil {
		return nil, s.unavailable(err, "could not read the echo registrations from NATS")
	}
	var out []Server
	for _, r := range regs {
		if !serves(r.Project, proj) {
			continue
		}
		sv := Server{EchoRegistration: r}
		a, ok, err := s.o.Registry.Active(ctx, r.Name)
		if err != nil {
			return nil, s.unavailable(err, "could not read the echo profiles from NATS")
		}
		if ok {
			sv.Active = &a
		}
		out = append(out, sv)
	}
	slices.SortFunc(out, func(a, b Server) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// serves reports whether a registration's project (id or slug) is proj.
func serves(ref string, proj projects.Project) bool {
	return ref != "" && (ref == proj.Slug || strings.EqualFold(ref, proj.ID.String()))
}

// unavailable logs err and returns an Unavailable error saying msg.
func (s *Service) unavailable(err error, msg string) error {
	s.o.Log.Warn(msg, slog.Any("error", err))
	return apperr.New(apperr.Unavailable, "%s", msg)
}

// ProfileAt returns the profile active on the echo of proj that answers on
// target's host:port, for the run about to target it; nil when no echo of
// proj answers there, it has no profile or NATS cannot be read.
func (s *Service) ProfileAt(ctx context.Context, proj projects.Project, target string) *runs.EchoProfile {
	if s.o.Registry == nil {
		return nil
	}
	addrs := hostPorts(target)
	if len(addrs) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	regs, err := s.o.Registry.Echoes(ctx)
	if err != nil {
		s.o.Log.Debug("echo registrations unreadable; the run records no echo profile", slog.Any("error", err))
		return nil
	}
	for _, r := range regs {
		if !serves(r.Project, proj) || !slices.ContainsFunc(r.Addrs, func(a string) bool { return slices.Contains(addrs, strings.ToLower(a)) }) {
			continue
		}
		a, ok, err := s.o.Registry.Active(ctx, r.Name)
		if err != nil || !ok {
			return nil
		}
		return &runs.EchoProfile{Echo: r.Name, ProfileID: a.ProfileID, Name: a.Name, Content: a.Content}
	}
	return nil
}

// hostPorts returns the host:port forms a target URL may be registered
// under: its own, with the scheme's default port, and loopback aliases of
// localhost.
func hostPorts(target string) []string {
	u, err := url.Parse(target)
	if err != nil || u.Hostname() == "" {
		return nil
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443", "h2c": "80", "grpc": "80", "grpcs": "443"}[u.Scheme]
	}
	if port == "" {
		return nil
	}
	host := strings.ToLower(u.Hostname())
	out := []string{net.JoinHostPort(host, port)}
	if host == "localhost" {
		out = append(out, net.JoinHostPort("127.0.0.1", port), net.JoinHostPort("::1", port))
	}
	return out
}
