package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
)

// admin runs `admin reset-password EMAIL`.
func admin(ctx context.Context, args, environ []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "reset-password" {
		return usageError{errors.New("admin needs reset-password EMAIL")}
	}
	cfg, rest, err := dbConfig("admin reset-password", args[1:], environ, stderr, nil)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return usageError{errors.New("admin reset-password needs exactly one EMAIL")}
	}
	email := rest[0]
	st, err := openStore(ctx, cfg, quietLog(stderr), nil)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := st.MigrateUp(ctx); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	login, err := st.LoginByEmail(ctx, email)
	if apperr.Is(err, apperr.NotFound) {
		return fmt.Errorf("no user has the email %q", email)
	}
	if err != nil {
		return fmt.Errorf("find %s: %w", email, err)
	}
	password := auth.NewPassword()
	ended, err := st.SetPassword(ctx, login.UserID, auth.HashPassword(password), uuid.Nil, "user.password_reset", auth.Actor{})
	if err != nil {
		return err //nolint:wrapcheck // the store's message names the user
	}
	fmt.Fprintf(stderr, "password of %s reset; %d session(s) ended; the new password is shown only now\n", email, ended)
	_, err = fmt.Fprintln(stdout, password)
	return err //nolint:wrapcheck // a write to stdout
}

// tokenRevoke runs `token revoke ID`: any token, project or unscoped,
// with the authority of the operator who holds the database.
func tokenRevoke(ctx context.Context, args, environ []string, stderr io.Writer) error {
	cfg, rest, err := dbConfig("token revoke", args, environ, stderr, nil)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return usageError{errors.New("token revoke needs exactly one token ID")}
	}
	id, err := uuid.Parse(rest[0])
	if err != nil {
		return usageError{fmt.Errorf("token revoke: %q is not a token ID (a UUID, as GET /tokens and /me show)", rest[0])}
	}
	st, err := openStore(ctx, cfg, quietLog(stderr), nil)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := st.MigrateUp(ctx); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	if err := st.RevokeToken(ctx, id, time.Now(), auth.Actor{}); err != nil {
		if apperr.Is(err, apperr.NotFound) {
			return fmt.Errorf("no token has the ID %s", id)
		}
		return err //nolint:wrapcheck // the store's message names the token
	}
	fmt.Fprintf(stderr, "token %s revoked\n", id)
	return nil
}
