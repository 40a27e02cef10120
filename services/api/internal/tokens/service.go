package tokens

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/paging"
	"github.com/barrage-dev/barrage/services/api/internal/projects"
)

// maxNameLength is the longest token name.
const maxNameLength = 100

// Service applies the rules of API tokens.
type Service struct {
	store    Store
	projects *projects.Service
	now      func() time.Time
}

// NewService returns a Service over store.
func NewService(store Store, projectSvc *projects.Service) *Service {
	return &Service{store: store, projects: projectSvc, now: time.Now}
}

// Input is a request to mint a project token.
type Input struct {
	// Project is the project id or slug; "" for the caller's only project.
	Project string
	Name    string
	Role    auth.Role
	// ExpiresAt is when the token stops working; zero for never.
	ExpiresAt time.Time
}

// Create mints a project token (project admins) and returns it with its
// secret, which is not stored and cannot be shown again. The token belongs
// to the caller.
func (s *Service) Create(ctx context.Context, p *auth.Principal, in Input) (Token, string, error) {
	proj, err := s.projects.Resolve(ctx, p, in.Project, auth.Admin)
	if err != nil {
		return Token{}, "", err
	}
	now := s.now().UTC()
	e := &apperr.Error{Code: apperr.Invalid, Detail: "the token has invalid fields"}
	if strings.TrimSpace(in.Name) == "" || utf8.RuneCountInString(in.Name) > maxNameLength {
		e.Fields = append(e.Fields, apperr.FieldError{Field: "name", Message: fmt.Sprintf("must be 1 to %d characters, not blank", maxNameLength)})
	}
	if !in.Role.Valid() {
		e.Fields = append(e.Fields, apperr.FieldError{Field: "role", Message: "must be viewer, runner or admin"})
	}
	if !in.ExpiresAt.IsZero() && !in.ExpiresAt.After(now) {
		e.Fields = append(e.Fields, apperr.FieldError{Field: "expires_at", Message: "must be in the future"})
	}
	if len(e.Fields) > 0 {
		return Token{}, "", e
	}
	secret := auth.NewToken()
	t := Token{
		ID: uuid.New(), UserID: p.UserID, ProjectID: proj.ID, Role: in.Role, Name: in.Name,
		Hash: secret.Hash, Hint: secret.Hint, CreatedAt: now, ExpiresAt: in.ExpiresAt.UTC(),
	}
	created, err := s.store.CreateToken(ctx, t, p.Actor())
	if err != nil {
		return Token{}, "", fmt.Errorf("create token: %w", err)
	}
	return created, secret.Text, nil
}

// Revoke ends a token at once: a project token (admins of its project)
// or an unscoped one such as the bootstrap admin's (org admins with
// unscoped credentials; anyone else is told it does not exist).
func (s *Service) Revoke(ctx context.Context, p *auth.Principal, id uuid.UUID) error {
	t, err := s.store.GetToken(ctx, id)
	unscoped := err == nil && t.ProjectID == uuid.Nil
	hidden := err == nil && (unscoped && (!p.OrgAdmin || p.Scoped()) || !unscoped && p.RoleIn(t.ProjectID) == "")
	if apperr.Is(err, apperr.NotFound) || hidden {
		return apperr.New(apperr.NotFound, "token %s not found", id)
	}
	if err != nil {
		return fmt.Errorf("revoke token %s: %w", id, err)
	}
	if !unscoped && !p.Can(t.ProjectID, auth.Admin) {
		return apperr.New(apperr.Forbidden, "revoking tokens needs the admin role in the token's project")
	}
	if err := s.store.RevokeToken(ctx, id, s.now().UTC(), p.Actor()); err != nil {
		return fmt.Errorf("revoke token %s: %w", id, err)
	}
	return nil
}

// List returns one page of project tokens (project admins) and the next
// cursor. Without a project it lists the tokens of every project the
// caller administers.
func (s *Service) List(ctx context.Context, p *auth.Principal, project string, page paging.Request) ([]Token, string, error) {
	ids, all, err := s.projects.AdminScope(ctx, p, project, "listing tokens")
	if err != nil || (!all && len(ids) == 0) {
		return nil, "", err
	}
	rows, err := s.store.ListTokens(ctx, ids, all, page)
	if err != nil {
		return nil, "", fmt.Errorf("list tokens: %w", err)
	}
	items, next := paging.Page(rows, page.Limit, Token.Cursor)
	return items, next, nil
}
