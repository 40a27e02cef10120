package members

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
)

// PasswordReset is the outcome of an org admin's password reset.
type PasswordReset struct {
	// User is the user whose password was reset.
	User User
	// Password is the new password, to show once; only its hash is stored.
	Password string
	// SessionsEnded is how many sessions of the user ended.
	SessionsEnded int
}

// ResetPassword gives the user userRef (an id or an email) of the
// caller's organisation a new random password and ends every session of
// theirs; their API tokens keep working. It needs an org admin's dashboard
// session: an API token, even an org admin's unscoped one, is Forbidden,
// since the answer carries the password and a leaked token must not take
// over accounts (as a token may not change its owner's password,
// auth/password_change.go). A disabled user is a Conflict, the caller's
// own account Invalid on "user" (they change theirs at /me/password).
func (s *Service) ResetPassword(ctx context.Context, p *auth.Principal, userRef string) (PasswordReset, error) {
	if err := orgAdminOnly(p, "reset passwords"); err != nil {
		return PasswordReset{}, err
	}
	if p.SessionID == uuid.Nil {
		return PasswordReset{}, apperr.New(apperr.Forbidden, "resetting a password needs a dashboard session, not an API token")
	}
	org, err := s.store.OrgOf(ctx, p.UserID)
	if err != nil {
		return PasswordReset{}, fmt.Errorf("the caller's organisation: %w", err)
	}
	u, err := s.store.FindOrgUser(ctx, org, userRef)
	if apperr.Is(err, apperr.NotFound) {
		return PasswordReset{}, apperr.New(apperr.NotFound, "user %q not found in the organisation", userRef)
	}
	if err != nil {
		return PasswordReset{}, fmt.Errorf("find user %q: %w", userRef, err)
	}
	if u.Disabled {
		return PasswordReset{}, DisabledUser(u.Email)
	}
	if u.ID == p.UserID {
		return PasswordReset{}, apperr.Invalidf("user", "is your own account: change your password with your current one (POST /me/password)")
	}
	password := auth.NewPassword()
	ended, err := s.store.ResetPassword(ctx, org, u.ID, auth.HashPassword(password), p.Actor())
	if err != nil {
		return PasswordReset{}, fmt.Errorf("reset the password of %s: %w", u.ID, err)
	}
	return PasswordReset{User: u, Password: password, SessionsEnded: ended}, nil
}
