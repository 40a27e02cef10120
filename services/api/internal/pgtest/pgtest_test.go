package pgtest

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

func TestNewDatabase(t *testing.T) {
	t.Parallel()
	var name string
	t.Run("create", func(t *testing.T) {
		u := NewDatabase(t)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, u)
		if err != nil {
			t.Fatalf("connect to the new database: %v", err)
		}
		defer func() { _ = conn.Close(context.Background()) }()
		var tables int
		if err := conn.QueryRow(ctx, "SELECT current_database(), (SELECT count(*) FROM pg_tables WHERE schemaname = 'public')").Scan(&name, &tables); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(name, Prefix) || len(name) != len(Prefix)+16 {
			t.Errorf("database name = %q, want %s<16 hex>", name, Prefix)
		}
		if tables != 0 {
			t.Errorf("new database has %d tables, want 0", tables)
		}
	})
	if name == "" {
		t.Fatal("the subtest did not report the database name")
	}
	base, err := serverURL()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close(context.Background()) }()
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		t.Fatal(err)
	}
	if exists {
		t.Errorf("database %s still exists after the test's cleanup", name)
	}
}

func TestNewDatabaseDistinct(t *testing.T) {
	t.Parallel()
	a, b := NewDatabase(t), NewDatabase(t)
	if a == b {
		t.Errorf("two calls returned the same database %s", a)
	}
}

func TestWithDatabase(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
		wantErr        bool
	}{
		{name: "replaces path", in: "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable", want: "postgres://postgres@127.0.0.1:5432/x?sslmode=disable"},
		{name: "adds path", in: "postgresql://u:p@h", want: "postgresql://u:p@h/x"},
		{name: "keyword DSN", in: "host=127.0.0.1 dbname=postgres", wantErr: true},
		{name: "other scheme", in: "mysql://h/db", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := WithDatabase(tt.in, "x")
			if (err != nil) != tt.wantErr {
				t.Fatalf("WithDatabase(%q) error = %v, wantErr %v", tt.in, err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("WithDatabase(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// fatalTB records the first Fatalf and ends the goroutine, as testing does.
type fatalTB struct {
	testing.TB
	msg string
}

func (f *fatalTB) Helper() {}

func (f *fatalTB) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func (f *fatalTB) Cleanup(func()) {}

// TestNewDatabaseWithoutServer runs without TEST_DATABASE_URL and with no
// reachable Docker engine: the test must fail and say how to fix it.
func TestNewDatabaseWithoutServer(t *testing.T) {
	t.Setenv(EnvVar, "")
	t.Setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
	t.Setenv("TESTCONTAINERS_RYUK_DISABLED", "true")
	if os.Getenv(EnvVar) != "" {
		t.Fatal("could not unset " + EnvVar)
	}
	tb := &fatalTB{TB: t}
	done := make(chan string)
	go func() {
		defer func() { done <- tb.msg }()
		NewDatabase(tb)
	}()
	msg := <-done
	for _, want := range []string{"pgtest: ", EnvVar, "postgres://postgres@127.0.0.1:5432/postgres"} {
		if !strings.Contains(msg, want) {
			t.Errorf("Fatalf message %q does not contain %q", msg, want)
		}
	}
}
