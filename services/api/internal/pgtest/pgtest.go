// Package pgtest gives integration tests a real, empty Postgres database of
// their own: NewDatabase creates one on the server named by
// TEST_DATABASE_URL (or, when that is unset, in a Postgres container that
// testcontainers starts once per test process) and drops it when the test
// ends.
//
// It is for tests only and holds no schema: callers apply the migrations.
// It never skips a test: without a database the test fails and says how to
// provide one.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	tcpostgres "github.com/testcontainers/testcontainers-go/modules/postgres"
)

// EnvVar names the variable holding the URL of the Postgres server tests
// create their databases on.
const EnvVar = "TEST_DATABASE_URL"

// Prefix starts the name of every database NewDatabase creates.
const Prefix = "barrage_test_"

// image is the Postgres image started when no server is configured.
const image = "postgres:15-alpine"

// setupTimeout bounds creating or dropping one database.
const setupTimeout = 30 * time.Second

// containerTimeout bounds starting the container, image pull included.
const containerTimeout = 5 * time.Minute

// sharedContainer starts the per-process container on first use and
// remembers its URL or error. Ryuk, testcontainers' reaper, removes the
// container when the test process exits.
//
//nolint:gochecknoglobals // one container per test process, shared by every test in it
var sharedContainer = sync.OnceValues(startContainer)

// NewDatabase creates a fresh, empty database for tb and returns its URL; the
// database is dropped (WITH (FORCE)) when tb's cleanup runs.
func NewDatabase(tb testing.TB) string {
	tb.Helper()
	base, err := serverURL()
	if err != nil {
		tb.Fatalf("pgtest: %v", err)
	}
	name := Prefix + randomHex(8)
	dbURL, err := WithDatabase(base, name)
	if err != nil {
		tb.Fatalf("pgtest: %v", err)
	}
	if err := exec(base, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		tb.Fatalf("pgtest: create database %s: %v", name, err)
	}
	tb.Cleanup(func() {
		if err := exec(base, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err != nil {
			tb.Errorf("pgtest: drop database %s: %v", name, err)
		}
	})
	return dbURL
}

// serverURL returns the URL of the server to create databases on: the
// environment's, else the shared container's.
func serverURL() (string, error) {
	if u := strings.TrimSpace(os.Getenv(EnvVar)); u != "" {
		return u, nil
	}
	u, err := sharedContainer()
	if err != nil {
		return "", fmt.Errorf("no Postgres for integration tests: %s is unset and no container could be started (%w); "+
			"set %s to a server URL whose user may create databases, e.g. "+
			"%s='postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable' (make test does), or start Docker",
			EnvVar, err, EnvVar, EnvVar)
	}
	return u, nil
}

// startContainer runs a Postgres container and returns the URL of its
// maintenance database.
func startContainer() (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), containerTimeout)
	defer cancel()
	c, err := tcpostgres.Run(ctx, image,
		tcpostgres.WithDatabase("postgres"),
		tcpostgres.WithUsername("postgres"),
		tcpostgres.WithPassword("postgres"),
		tcpostgres.BasicWaitStrategies(),
	)
	if err != nil {
		return "", fmt.Errorf("start postgres container: %w", err)
	}
	u, err := c.ConnectionString(ctx, "sslmode=disable")
	if err != nil {
		return "", fmt.Errorf("postgres container address: %w", err)
	}
	return u, nil
}

// WithDatabase returns the URL rawURL with its database set to name.
func WithDatabase(rawURL, name string) (string, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return "", errors.New(EnvVar + " must be a postgres:// URL")
	}
	u.Path = "/" + name
	u.RawPath = ""
	return u.String(), nil
}

// exec runs one statement on the server at rawURL on a connection of its own.
func exec(rawURL, stmt string) error {
	ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
	defer cancel()
	conn, err := pgx.Connect(ctx, rawURL)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer func() { _ = conn.Close(context.Background()) }()
	if _, err := conn.Exec(ctx, stmt); err != nil {
		return fmt.Errorf("exec: %w", err)
	}
	return nil
}

// randomHex returns n random bytes as hex.
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	return hex.EncodeToString(b)
}
