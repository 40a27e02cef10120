package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/services/api/internal/sealer"
)

// Options tunes the connection pool. Zero fields take the defaults that
// Normalize fills.
type Options struct {
	// MaxOpenConns caps open connections; default 20.
	MaxOpenConns int
	// MaxIdleConns caps idle connections kept for reuse; default 10.
	MaxIdleConns int
	// ConnMaxLifetime closes connections older than this; default 30m.
	ConnMaxLifetime time.Duration
	// SlowQuery is the duration over which a statement is logged at warn;
	// default 500ms.
	SlowQuery time.Duration
	// Sealer seals the secrets of stored tests; nil means a key of this
	// process only (sealer.Ephemeral), enough for tools that do not read
	// tests.
	Sealer *sealer.Sealer
	// Redactor redacts the specs of stored tests; the zero value knows the
	// built-in secret names only.
	Redactor spec.Redactor
}

// Normalize fills the zero fields of o with the defaults.
func (o *Options) Normalize() {
	if o.MaxOpenConns <= 0 {
		o.MaxOpenConns = 20
	}
	if o.MaxIdleConns <= 0 {
		o.MaxIdleConns = 10
	}
	o.MaxIdleConns = min(o.MaxIdleConns, o.MaxOpenConns)
	if o.ConnMaxLifetime <= 0 {
		o.ConnMaxLifetime = 30 * time.Minute
	}
	if o.SlowQuery <= 0 {
		o.SlowQuery = 500 * time.Millisecond
	}
}

// Open connects to the database at databaseURL, creating the database
// first when the server says it does not exist. It does not migrate: call
// MigrateUp. An unreachable server gives a one-line error naming the URL
// without its password.
func Open(ctx context.Context, databaseURL string, opts Options, log *slog.Logger) (*Store, error) {
	opts.Normalize()
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s, err := open(ctx, databaseURL, opts, log)
	if pgCode(err) == codeInvalidCatalog {
		if cerr := createDatabase(ctx, databaseURL, log); cerr != nil {
			return nil, cerr
		}
		s, err = open(ctx, databaseURL, opts, log)
	}
	if err != nil {
		return nil, &unreachableError{url: RedactURL(databaseURL), err: err}
	}
	return s, nil
}

// open makes the pool and checks that the database answers.
func open(ctx context.Context, databaseURL string, opts Options, log *slog.Logger) (*Store, error) {
	db, err := gorm.Open(postgres.Open(databaseURL), &gorm.Config{
		Logger:                 &slowLogger{log: log, threshold: opts.SlowQuery},
		SkipDefaultTransaction: true, // every change opens its own transaction
		DisableAutomaticPing:   true, // pinged below, with ctx
		NowFunc:                func() time.Time { return time.Now().UTC() },
	})
	if err != nil {
		return nil, fmt.Errorf("open: %w", err)
	}
	sqlDB, err := db.DB()
	if err != nil {
		return nil, fmt.Errorf("open: %w", err)
	}
	sqlDB.SetMaxOpenConns(opts.MaxOpenConns)
	sqlDB.SetMaxIdleConns(opts.MaxIdleConns)
	sqlDB.SetConnMaxLifetime(opts.ConnMaxLifetime)
	if err := sqlDB.PingContext(ctx); err != nil {
		_ = sqlDB.Close()
		return nil, err
	}
	seal := opts.Sealer
	if seal == nil {
		seal = sealer.Ephemeral()
	}
	return &Store{db: db, sql: sqlDB, log: log, seal: seal, redactor: opts.Redactor}, nil
}

// createDatabase connects to the maintenance database "postgres" of the
// same server and creates the database that databaseURL names. A database
// created meanwhile by someone else is fine.
func createDatabase(ctx context.Context, databaseURL string, log *slog.Logger) error {
	cfg, err := pgx.ParseConfig(databaseURL)
	if err != nil {
		return fmt.Errorf("create database: %w", err)
	}
	name := cfg.Database
	cfg.Database = "postgres"
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return &unreachableError{url: RedactURL(databaseURL), err: err}
	}
	defer func() { _ = conn.Close(context.WithoutCancel(ctx)) }()
	_, err = conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
	if err != nil && pgCode(err) != codeDuplicateDB {
		return fmt.Errorf("create database %q: %w", name, err)
	}
	log.InfoContext(ctx, "created the database", slog.String("database", name))
	return nil
}

// unreachableError is a failed connection, printed on one line with the
// URL redacted.
type unreachableError struct {
	url string
	err error
}

// Error returns "cannot reach Postgres at <url>: <cause>" on one line.
func (e *unreachableError) Error() string {
	cause := strings.Join(strings.Fields(e.err.Error()), " ")
	return "cannot reach Postgres at " + e.url + ": " + cause
}

// Unwrap returns the cause.
func (e *unreachableError) Unwrap() error { return e.err }

// dsnPassword matches password=... in a keyword/value connection string.
var dsnPassword = regexp.MustCompile(`(?i)\bpassword\s*=\s*('(?:[^'\\]|\\.)*'|\S*)`)

// RedactURL returns databaseURL without its password, for logs and
// errors. It accepts URLs (postgres://user:pass@host/db?password=...) and
// keyword/value strings (host=h password=p); what it cannot parse becomes
// "<unparsable database URL>".
func RedactURL(databaseURL string) string {
	if !strings.Contains(databaseURL, "://") {
		return dsnPassword.ReplaceAllString(databaseURL, "password=xxxxx")
	}
	u, err := url.Parse(databaseURL)
	if err != nil {
		return "<unparsable database URL>"
	}
	if u.User != nil {
		u.User = url.User(u.User.Username())
	}
	if q := u.Query(); q.Has("password") {
		q.Del("password")
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// slowLogger is the GORM logger: it logs statements slower than threshold
// and nothing else. Errors are returned to callers, who log them once with
// their context.
type slowLogger struct {
	log       *slog.Logger
	threshold time.Duration
}

// LogMode returns l; the level is fixed.
func (l *slowLogger) LogMode(logger.LogLevel) logger.Interface { return l }

// Info drops GORM's informational messages.
func (l *slowLogger) Info(context.Context, string, ...any) {}

// Warn logs GORM's warnings.
func (l *slowLogger) Warn(ctx context.Context, msg string, args ...any) {
	l.log.WarnContext(ctx, "gorm: "+fmt.Sprintf(msg, args...))
}

// Error logs GORM's own errors (not failed statements).
func (l *slowLogger) Error(ctx context.Context, msg string, args ...any) {
	l.log.ErrorContext(ctx, "gorm: "+fmt.Sprintf(msg, args...))
}

// Trace logs a statement that took longer than the threshold, without
// its parameters.
func (l *slowLogger) Trace(ctx context.Context, begin time.Time, fc func() (string, int64), err error) {
	elapsed := time.Since(begin)
	if elapsed < l.threshold || errors.Is(err, context.Canceled) {
		return
	}
	q, rows := fc()
	l.log.WarnContext(ctx, "slow query", slog.Duration("elapsed", elapsed), slog.String("sql", q), slog.Int64("rows", rows))
}

// ParamsFilter keeps parameters (token hashes, passwords) out of logged SQL.
func (l *slowLogger) ParamsFilter(_ context.Context, q string, _ ...any) (string, []any) {
	return q, nil
}
