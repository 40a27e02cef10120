package store

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"

	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"

	"github.com/barrage-dev/barrage/migrations"
)

// Migration commands accepted by Migrate.
const (
	// MigrateCmdUp applies every pending migration.
	MigrateCmdUp = "up"
	// MigrateCmdDown rolls back the last applied migration.
	MigrateCmdDown = "down"
	// MigrateCmdStatus prints each migration and whether it is applied.
	MigrateCmdStatus = "status"
)

// Migrate runs a migration command (up, down or status) on db with the
// embedded migrations and writes what it did to out. A Postgres session
// advisory lock serialises concurrent callers, so API replicas that start
// together apply each migration once.
func Migrate(ctx context.Context, db *sql.DB, cmd string, out io.Writer) error {
	locker, err := lock.NewPostgresSessionLocker()
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	p, err := goose.NewProvider(goose.DialectPostgres, db, migrations.FS, goose.WithSessionLocker(locker))
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	switch cmd {
	case MigrateCmdUp:
		results, err := p.Up(ctx)
		for _, r := range results {
			_, _ = fmt.Fprintf(out, "applied %s (%dms)\n", r.Source.Path, r.Duration.Milliseconds())
		}
		if err != nil {
			return fmt.Errorf("migrate up: %w", err)
		}
		if len(results) == 0 {
			_, _ = fmt.Fprintln(out, "no pending migrations")
		}
	case MigrateCmdDown:
		r, err := p.Down(ctx)
		if err != nil {
			return fmt.Errorf("migrate down: %w", err)
		}
		_, _ = fmt.Fprintf(out, "rolled back %s (%dms)\n", r.Source.Path, r.Duration.Milliseconds())
	case MigrateCmdStatus:
		statuses, err := p.Status(ctx)
		if err != nil {
			return fmt.Errorf("migrate status: %w", err)
		}
		for _, st := range statuses {
			at := ""
			if st.State == goose.StateApplied {
				at = " at " + st.AppliedAt.UTC().Format("2006-01-02T15:04:05Z")
			}
			_, _ = fmt.Fprintf(out, "%-8s %s%s\n", st.State, st.Source.Path, at)
		}
	default:
		return fmt.Errorf("migrate: unknown command %q: want up, down or status", cmd)
	}
	return nil
}

// Migrate runs a migration command (up, down or status) on the store's
// database; see the function Migrate.
func (s *Store) Migrate(ctx context.Context, cmd string, out io.Writer) error {
	return Migrate(ctx, s.sql, cmd, out)
}

// MigrateUp applies every pending migration and logs each one; the API
// calls it at start.
func (s *Store) MigrateUp(ctx context.Context) error {
	w := &logWriter{ctx: ctx, log: s.log}
	return Migrate(ctx, s.sql, MigrateCmdUp, w)
}

// logWriter logs each line written to it at info.
type logWriter struct {
	ctx context.Context
	log *slog.Logger
}

// Write logs p as one message.
func (w *logWriter) Write(p []byte) (int, error) {
	msg := string(p)
	if n := len(msg); n > 0 && msg[n-1] == '\n' {
		msg = msg[:n-1]
	}
	w.log.InfoContext(w.ctx, "migrations: "+msg)
	return len(p), nil
}
