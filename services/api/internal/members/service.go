package members

import (
	"context"
	"fmt"
	"net/mail"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/projects"
)

// Field limits of a user.
const (
	maxEmailLength = 254
	maxNameLength  = 100
)

// Service applies the rules of membership.
type Service struct {
	store    Store
	projects *projects.Service
	now      func() time.Time
}

// NewService returns a Service over store that resolves projects with
// projectSvc.
func NewService(store Store, projectSvc *projects.Service) *Service {
	return &Service{store: store, projects: projectSvc, now: time.Now}
}

// List returns the members of project ref; any member may read them.
func (s *Service) List(ctx context.Context, p *auth.Principal, ref string) ([]Member, error) {
	proj, err := s.projects.Resolve(ctx, p, ref, auth.Viewer)
	if err != nil {
		return nil, err
	}
	list, err := s.store.ListMembers(ctx, proj.ID)
	if err != nil {
		return nil, fmt.Errorf("list members of %s: %w", proj.Slug, err)
	}
	return list, nil
}

// target resolves project ref for an admin action and the user ref (an id
// or an email) in the project's organisation.
func (s *Service) target(ctx context.Context, p *auth.Principal, ref, userRef string) (projects.Project, User, error) {
	proj, err := s.projects.Resolve(ctx, p, ref, auth.Admin)
	if err != nil {
		return projects.Project{}, User{}, err
	}
	u, err := s.store.FindOrgUser(ctx, proj.OrgID, userRef)
	if apperr.Is(err, apperr.NotFound) {
		return projects.Project{}, User{}, apperr.New(apperr.NotFound, "user %q not found in the organisation", userRef)
	}
	if err != nil {
		return projects.Project{}, User{}, fmt.Errorf("find user %q: %w", userRef, err)
	}
	return proj, u, nil
}

// Put adds the user userRef to project ref with role, or changes their
// role; project admins only. Demoting the last admin is a Conflict.
func (s *Service) Put(ctx context.Context, p *auth.Principal, ref, userRef string, role auth.Role) (Member, error) {
	if !role.Valid() {
		return Member{}, apperr.Invalidf("role", "must be viewer, runner or admin")
	}
	proj, u, err := s.target(ctx, p, ref, userRef)
	if err != nil {
		return Member{}, err
	}
	m, err := s.store.PutMember(ctx, proj.ID, u.ID, role, s.now().UTC(), p.Actor())
	if err != nil {
		return Member{}, fmt.Errorf("put member: %w", err)
	}
	return m, nil
}

// Remove takes the user userRef out of project ref; project admins only.
// Removing the last admin is a Conflict.
func (s *Service) Remove(ctx context.Context, p *auth.Principal, ref, userRef string) error {
	proj, u, err := s.target(ctx, p, ref, userRef)
	if err != nil {
		return err
	}
	if err := s.store.RemoveMember(ctx, proj.ID, u.ID, p.Actor()); err != nil {
		return fmt.Errorf("remove member: %w", err)
	}
	return nil
}

// UserInput is what an org admin gives to create a user.
type UserInput struct {
	Email string
	Name  string
	// Password is the user's password; "" generates one.
	Password string
}

// validate checks in.
func (in UserInput) validate() error {
	e := &apperr.Error{Code: apperr.Invalid, Detail: "the user has invalid fields"}
	addr, err := mail.ParseAddress(in.Email)
	if err != nil || addr.Address != in.Email || len(in.Email) > maxEmailLength {
		e.Fields = append(e.Fields, apperr.FieldError{Field: "email", Message: "must be a plain email address (name@example.com)"})
	}
	if utf8.RuneCountInString(in.Name) > maxNameLength {
		e.Fields = append(e.Fields, apperr.FieldError{Field: "name", Message: fmt.Sprintf("must be at most %d characters", maxNameLength)})
	}
	if in.Password != "" && utf8.RuneCountInString(in.Password) < auth.MinPasswordLength {
		e.Fields = append(e.Fields, apperr.FieldError{Field: "password", Message: fmt.Sprintf("must be at least %d characters", auth.MinPasswordLength)})
	}
	if len(e.Fields) > 0 {
		return e
	}
	return nil
}

// CreateUser creates a user in the caller's organisation; org admins with
// unscoped credentials only. It returns the generated password when in
// has none ("" otherwise): it is shown once and stored only as a hash.
func (s *Service) CreateUser(ctx context.Context, p *auth.Principal, in UserInput) (User, string, error) {
	if !p.OrgAdmin || p.Scoped() {
		return User{}, "", apperr.New(apperr.Forbidden, "only organisation admins can create users")
	}
	in.Email, in.Name = strings.TrimSpace(in.Email), strings.TrimSpace(in.Name)
	if err := in.validate(); err != nil {
		return User{}, "", err
	}
	generated := ""
	if in.Password == "" {
		generated = auth.NewPassword()
		in.Password = generated
	}
	u := NewUser{ID: uuid.New(), Email: in.Email, Name: in.Name, PasswordHash: auth.HashPassword(in.Password), CreatedAt: s.now().UTC()}
	created, err := s.store.CreateUser(ctx, u, p.Actor())
	if err != nil {
		return User{}, "", fmt.Errorf("create user: %w", err)
	}
	return created, generated, nil
}
