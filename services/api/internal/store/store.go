// Package store is the API's Postgres storage: it opens the database
// (creating it when missing), applies the embedded goose migrations, maps
// table rows to and from domain types, and implements the Store interfaces
// that the domain packages (auth, projects, testdefs, tokens, runs, agents)
// declare. Every change runs in one transaction together with its audit_log
// row and, for runs, its outbox row. Errors are *apperr.Error for missing
// rows (NotFound) and clashes (Conflict); anything else is wrapped.
//
// It is not the place for rules (who may do what, which values are valid:
// the domain packages decide) nor for schema: tables are created only by
// the SQL files in /migrations, never by GORM.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"

	"github.com/jackc/pgx/v5/pgconn"
	"gorm.io/gorm"

	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/services/api/internal/agents"
	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/projects"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
	"github.com/barrage-dev/barrage/services/api/internal/sealer"
	"github.com/barrage-dev/barrage/services/api/internal/testdefs"
	"github.com/barrage-dev/barrage/services/api/internal/tokens"
)

// The domain storage interfaces Store satisfies.
var (
	_ auth.Store     = (*Store)(nil)
	_ projects.Store = (*Store)(nil)
	_ testdefs.Store = (*Store)(nil)
	_ tokens.Store   = (*Store)(nil)
	_ runs.Store     = (*Store)(nil)
	_ agents.Store   = (*Store)(nil)
)

// SQLSTATE codes the store reacts to.
const (
	codeUniqueViolation = "23505"
	codeInvalidCatalog  = "3D000" // the database does not exist
	codeDuplicateDB     = "42P04"
)

// Store is the Postgres storage of the API. It is safe for concurrent use.
type Store struct {
	db  *gorm.DB
	sql *sql.DB
	log *slog.Logger
	// seal seals the real specs of stored tests.
	seal *sealer.Sealer
	// redactor redacts the specs of stored tests.
	redactor spec.Redactor
}

// DB returns the connection pool, for migrations and pool metrics.
func (s *Store) DB() *sql.DB { return s.sql }

// Ping checks that Postgres answers.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.sql.PingContext(ctx); err != nil {
		return fmt.Errorf("ping postgres: %w", err)
	}
	return nil
}

// Close closes the connection pool.
func (s *Store) Close() error {
	if err := s.sql.Close(); err != nil {
		return fmt.Errorf("close postgres: %w", err)
	}
	return nil
}

// conn returns the GORM handle bound to ctx.
func (s *Store) conn(ctx context.Context) *gorm.DB {
	return s.db.WithContext(ctx)
}

// inTx runs fn in one transaction, committed when fn returns nil.
func (s *Store) inTx(ctx context.Context, fn func(tx *gorm.DB) error) error {
	return s.conn(ctx).Transaction(fn)
}

// pgCode returns the SQLSTATE of err, or "" when it carries none.
func pgCode(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// isUnique reports whether err is a unique violation.
func isUnique(err error) bool { return pgCode(err) == codeUniqueViolation }

// notFound returns a NotFound error for a missing kind with id.
func notFound(kind string, id any) error {
	return apperr.New(apperr.NotFound, "%s %v not found", kind, id)
}

// classify turns a "no row" error into NotFound and wraps anything else
// with what was being done.
func classify(err error, what, kind string, id any) error {
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return notFound(kind, id)
	}
	return fmt.Errorf("%s: %w", what, err)
}
