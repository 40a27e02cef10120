package app

import (
	"context"
	"fmt"
	"io"

	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/store"
)

// bootstrap creates the first admin, the default project and an admin
// token when the database has no users, and prints the credentials to out
// once. Generated secrets are never logged.
func bootstrap(ctx context.Context, cfg Config, st *store.Store, out io.Writer) error {
	token := auth.NewToken()
	if cfg.AdminToken != "" {
		hash, err := auth.ParseToken(cfg.AdminToken)
		if err != nil {
			return fmt.Errorf("admin token: %w", err)
		}
		token = auth.Secret{Text: cfg.AdminToken, Hash: hash, Hint: cfg.AdminToken[:len(auth.TokenPrefix)+6]}
	}
	password := cfg.AdminPassword
	if password == "" {
		password = auth.NewPassword()
	}
	created, err := st.Bootstrap(ctx, store.Bootstrap{
		OrgSlug: "default", OrgName: "Default",
		ProjectSlug: "default", ProjectName: "Default",
		AdminEmail: cfg.AdminEmail, AdminPasswordHash: auth.HashPassword(password),
		TokenName: "bootstrap admin", TokenHash: token.Hash, TokenHint: token.Hint,
	})
	if err != nil {
		return fmt.Errorf("bootstrap: %w", err)
	}
	if !created {
		return nil
	}
	shownToken, shownPassword := token.Text, password
	if cfg.AdminToken != "" {
		shownToken = "(from BARRAGE_ADMIN_TOKEN)" //nolint:gosec // a label shown instead of the token, not a credential
	}
	if cfg.AdminPassword != "" {
		shownPassword = "(from BARRAGE_ADMIN_PASSWORD)" //nolint:gosec // a label shown instead of the password, not a credential
	}
	_, err = fmt.Fprintf(out, `
  Barrage is set up. These credentials are shown once; keep them.
    dashboard sign-in: %s / %s
    admin API token:   %s
    project:           default

`, cfg.AdminEmail, shownPassword, shownToken)
	if err != nil {
		return fmt.Errorf("print admin credentials: %w", err)
	}
	return nil
}
