package auth

import (
	"context"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
)

// ChangePassword sets the caller's password to next once current is
// checked against the stored one, and ends every other session of the
// user; the session in use stays. It needs a dashboard session: an API
// token may not change its owner's password (Forbidden). A wrong current
// password, or a user without one (single sign-on only), is Invalid on
// current_password. It returns how many sessions it ended.
func (a *Authenticator) ChangePassword(ctx context.Context, p *Principal, current, next string) (int, error) {
	if p.SessionID == uuid.Nil {
		return 0, apperr.New(apperr.Forbidden, "changing a password needs a dashboard session, not an API token")
	}
	if utf8.RuneCountInString(next) < MinPasswordLength {
		return 0, apperr.Invalidf("new_password", "must be at least %d characters", MinPasswordLength)
	}
	login, err := a.store.LoginByEmail(ctx, p.Email)
	if err != nil {
		return 0, fmt.Errorf("change password: %w", err)
	}
	if login.PasswordHash == "" {
		return 0, apperr.Invalidf("current_password", "this account has no password; it signs in with single sign-on")
	}
	switch err := CheckPassword(login.PasswordHash, current); {
	case errors.Is(err, ErrBadPassword):
		return 0, apperr.Invalidf("current_password", "is not the current password")
	case err != nil:
		return 0, fmt.Errorf("change password: %w", err)
	}
	n, err := a.store.SetPassword(ctx, p.UserID, HashPassword(next), p.SessionID, "user.password_change", p.Actor())
	if err != nil {
		return 0, fmt.Errorf("change password: %w", err)
	}
	return n, nil
}
