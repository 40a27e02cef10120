package members

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
)

// OrgUser is a user as an org admin's list of users shows them.
type OrgUser struct {
	User
	// CreatedAt is when the user was created.
	CreatedAt time.Time
	// LastSignInAt is the user's last sign-in (password or single
	// sign-on; session renewals do not count); zero when they never
	// signed in.
	LastSignInAt time.Time
	// Projects are the user's memberships, by slug.
	Projects []ProjectRole
}

// Cursor is the user's position in the list: newest first.
func (u OrgUser) Cursor() paging.Cursor {
	return paging.Cursor{CreatedAt: u.CreatedAt, ID: u.ID}
}

// ProjectRole is a user's role in one project.
type ProjectRole struct {
	ProjectID uuid.UUID
	Slug      string
	Name      string
	Role      auth.Role
}

// UserQuery selects one page of an organisation's users.
type UserQuery struct {
	// Org is the organisation.
	Org uuid.UUID
	// Text, when not "", keeps the users whose email or name contains it,
	// in any case.
	Text string
	// Page is the page; the store returns up to Page.Limit+1 users.
	Page paging.Request
}

// orgAdminOnly refuses a caller who is not an org admin with unscoped
// credentials; what names the refused action.
func orgAdminOnly(p *auth.Principal, what string) error {
	if !p.OrgAdmin || p.Scoped() {
		return apperr.New(apperr.Forbidden, "only organisation admins can %s", what)
	}
	return nil
}

// ListUsers returns one page of the users of the caller's organisation,
// newest first, and the cursor of the next page ("" on the last); text
// keeps those whose email or name contains it. Org admins with unscoped
// credentials only.
func (s *Service) ListUsers(ctx context.Context, p *auth.Principal, text string, page paging.Request) ([]OrgUser, string, error) {
	if err := orgAdminOnly(p, "list users"); err != nil {
		return nil, "", err
	}
	text = strings.TrimSpace(text)
	if utf8.RuneCountInString(text) > maxEmailLength {
		return nil, "", apperr.Invalidf("q", "must be at most %d characters", maxEmailLength)
	}
	org, err := s.store.OrgOf(ctx, p.UserID)
	if err != nil {
		return nil, "", fmt.Errorf("the caller's organisation: %w", err)
	}
	rows, err := s.store.ListOrgUsers(ctx, UserQuery{Org: org, Text: text, Page: page})
	if err != nil {
		return nil, "", fmt.Errorf("list users: %w", err)
	}
	items, next := paging.Page(rows, page.Limit, OrgUser.Cursor)
	return items, next, nil
}
