package members

import (
	"context"
	"fmt"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
)

// UserPatch is an org admin's change to a user; nil fields stay.
type UserPatch struct {
	// Disabled, when true, stops the user's sign-in, sessions and tokens;
	// false enables them again (their ended sessions stay ended).
	Disabled *bool
	// OrgAdmin grants or takes the org admin role.
	OrgAdmin *bool
}

// UpdateUser applies patch to the user userRef (an id or an email) of the
// caller's organisation; org admins with unscoped credentials only. The
// organisation always keeps one enabled org admin: a change that would
// leave none is a Conflict (so the last admin can neither demote nor
// disable themselves).
func (s *Service) UpdateUser(ctx context.Context, p *auth.Principal, userRef string, patch UserPatch) (User, error) {
	if !p.OrgAdmin || p.Scoped() {
		return User{}, apperr.New(apperr.Forbidden, "only organisation admins can change users")
	}
	org, err := s.store.OrgOf(ctx, p.UserID)
	if err != nil {
		return User{}, fmt.Errorf("the caller's organisation: %w", err)
	}
	u, err := s.store.FindOrgUser(ctx, org, userRef)
	if apperr.Is(err, apperr.NotFound) {
		return User{}, apperr.New(apperr.NotFound, "user %q not found in the organisation", userRef)
	}
	if err != nil {
		return User{}, fmt.Errorf("find user %q: %w", userRef, err)
	}
	if patch.Disabled == nil && patch.OrgAdmin == nil {
		return u, nil
	}
	updated, err := s.store.UpdateUser(ctx, org, u.ID, patch, p.Actor())
	if err != nil {
		return User{}, fmt.Errorf("update user %s: %w", u.ID, err)
	}
	return updated, nil
}
