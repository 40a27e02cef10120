package app

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/store"
)

// bootstrap creates the first admin, the default project and an admin
// token when the database has no users. The password and token it
// generates go to cfg.AdminCredentialsFile (mode 0600), and out is told
// only that file's path (or, when it cannot be written, how to set a
// password with the CLI): no secret is ever printed or logged
// (docs/security.md, "Accounts, tokens and sign-in"). The token expires
// after cfg.AdminTokenTTL and can be revoked like any other.
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
	// All-in-one is one machine with its echo on loopback: there project
	// admins may list loopback too (docs/security.md, "Target policy").
	var orgPolicy []string
	if cfg.AllInOne {
		orgPolicy = []string{"*", "127.0.0.0/8", "::1", "localhost"}
	}
	ttl := cfg.AdminTokenTTL
	if ttl <= 0 {
		ttl = 30 * 24 * time.Hour
	}
	expires := time.Now().Add(ttl).UTC().Truncate(time.Second)
	b := store.Bootstrap{
		OrgSlug: "default", OrgName: "Default", OrgTargetPolicy: orgPolicy,
		ProjectSlug: "default", ProjectName: "Default",
		AdminEmail: cfg.AdminEmail, AdminPasswordHash: auth.HashPassword(password),
		TokenID: uuid.New(), TokenName: "bootstrap admin", TokenHash: token.Hash, TokenHint: token.Hint, TokenExpiresAt: expires,
	}
	created, err := st.Bootstrap(ctx, b)
	if err != nil {
		return fmt.Errorf("bootstrap: %w", err)
	}
	if !created {
		return reminder(cfg, out)
	}
	creds := firstCredentials{Email: cfg.AdminEmail, TokenID: b.TokenID, TokenExpires: expires}
	if cfg.AdminPassword == "" {
		creds.Password = password
	}
	if cfg.AdminToken == "" {
		creds.Token = token.Text
	}
	password, tokenAt, note := "(from BARRAGE_ADMIN_PASSWORD)", "(from BARRAGE_ADMIN_TOKEN)", "" //nolint:gosec // labels shown instead of the secrets, not credentials
	if creds.Password != "" || creds.Token != "" {
		path, err := creds.write(cfg.AdminCredentialsFile)
		switch {
		case err != nil:
			// The admin exists; a read-only file system must not stop the
			// server. The generated secrets are dropped, never shown: the
			// operator sets a password with the CLI.
			password, tokenAt = "password not saved", "not saved"
			note = fmt.Sprintf("  The credentials could not be saved (%v):\n  set a password with `barrage-api admin reset-password %s`,\n"+
				"  then mint tokens with POST /tokens or `barrage-api token create`.\n", err, cfg.AdminEmail)
		default:
			if creds.Password != "" {
				password = "password in " + path
			}
			if creds.Token != "" {
				tokenAt = "in " + path
			}
			note = "  " + path + " is readable by this user only: keep its secrets elsewhere, then delete it.\n"
		}
	}
	_, err = fmt.Fprintf(out, `
  Barrage is set up.
    dashboard sign-in: %s, %s
    admin API token:   %s (id %s, expires %s)
    project:           default
%s
`, cfg.AdminEmail, password, tokenAt, b.TokenID, expires.Format(time.RFC3339), note)
	if err != nil {
		return fmt.Errorf("print where the admin credentials are: %w", err)
	}
	return nil
}

// reminder tells a make run user whose install already has its admin
// where the first start put the credentials, and how to get a new password
// when that file is gone (a first start that failed later, say).
func reminder(cfg Config, out io.Writer) error {
	if !cfg.AllInOne {
		return nil
	}
	where := "were printed on the first start"
	if _, err := os.Stat(cfg.AdminCredentialsFile); err == nil {
		where = "are in " + cfg.AdminCredentialsFile
	}
	_, err := fmt.Fprintf(out, "\n  The admin exists: its credentials %s.\n"+
		"  Lost them? `bin/barrage-api admin reset-password %s` prints a new password.\n", where, cfg.AdminEmail)
	if err != nil {
		return fmt.Errorf("print where the admin credentials are: %w", err)
	}
	return nil
}

// firstCredentials are what the first start generated; a field given by
// the environment is left empty.
type firstCredentials struct {
	Email        string
	Password     string
	Token        string
	TokenID      uuid.UUID
	TokenExpires time.Time
}

// write stores c in path as key=value lines, readable by the owner only,
// and returns the file's absolute path.
func (c firstCredentials) write(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("credentials file %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return "", fmt.Errorf("credentials file %s: %w", abs, err)
	}
	var b strings.Builder
	b.WriteString("# Barrage: the first admin's credentials, written once at the first start.\n")
	fmt.Fprintf(&b, "email=%s\n", c.Email)
	if c.Password != "" {
		fmt.Fprintf(&b, "password=%s\n", c.Password)
	}
	if c.Token != "" {
		fmt.Fprintf(&b, "token=%s\n", c.Token)
	}
	fmt.Fprintf(&b, "token_id=%s\ntoken_expires_at=%s\n", c.TokenID, c.TokenExpires.Format(time.RFC3339))
	f, err := os.OpenFile(abs, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600) //nolint:gosec // the path is the operator's setting
	if err != nil {
		return "", fmt.Errorf("credentials file: %w", err)
	}
	// An existing file keeps its mode through O_TRUNC: narrow it first.
	if err := f.Chmod(0o600); err != nil {
		_ = f.Close()
		return "", fmt.Errorf("credentials file %s: %w", abs, err)
	}
	if _, err := f.WriteString(b.String()); err != nil {
		_ = f.Close()
		return "", fmt.Errorf("credentials file %s: %w", abs, err)
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("credentials file %s: %w", abs, err)
	}
	return abs, nil
}
