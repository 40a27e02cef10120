package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/migrations"
	"github.com/barrage-dev/barrage/services/api/client"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/pgtest"
	"github.com/barrage-dev/barrage/services/api/internal/sealer"
)

// runMain runs Main to completion and returns its exit code and output.
func runMain(t *testing.T, environ []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	var out, errOut bytes.Buffer
	code = Main(ctx, append([]string{"barrage-api"}, args...), environ, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestMainUnreachablePostgres(t *testing.T) {
	t.Parallel()
	environ := []string{"DATABASE_URL=postgres://postgres:hunter2@127.0.0.1:1/x?sslmode=disable", "BARRAGE_LISTEN=127.0.0.1:0"}
	for _, args := range [][]string{
		nil,
		{"serve"},
		{"migrate", "status"},
		{"token", "create", "-project", "default"},
	} {
		t.Run(strings.Join(append([]string{"barrage-api"}, args...), " "), func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := runMain(t, environ, args...)
			if code != 1 {
				t.Errorf("exit code = %d, want 1", code)
			}
			if strings.Count(stderr, "\n") != 1 || !strings.HasSuffix(stderr, "\n") {
				t.Errorf("stderr is not exactly one line: %q", stderr)
			}
			if !strings.Contains(stderr, "127.0.0.1:1") || strings.Contains(stderr, "hunter2") {
				t.Errorf("stderr = %q, want the address and no password", stderr)
			}
			if stdout != "" {
				t.Errorf("stdout = %q, want nothing", stdout)
			}
		})
	}
}

func TestMainUsage(t *testing.T) {
	t.Parallel()
	environ := []string{"DATABASE_URL=postgres://postgres@127.0.0.1:1/x?sslmode=disable"}
	tests := []struct {
		args       []string
		wantCode   int
		wantStderr string
	}{
		{[]string{"-no-such-flag"}, 2, "flag provided but not defined: -no-such-flag"},
		{[]string{"serve", "-listen"}, 2, "flag needs an argument: -listen"},
		{[]string{"serve", "-max-qps", "0"}, 2, "max qps 0"},
		{[]string{"serve", "extra"}, 2, `unexpected argument "extra"`},
		{[]string{"launch"}, 2, `unknown command "launch"`},
		{[]string{"migrate"}, 2, "migrate needs up, down or status"},
		{[]string{"migrate", "sideways"}, 2, `migrate "sideways": must be up, down or status`},
		{[]string{"migrate", "up", "-bogus"}, 2, "flag provided but not defined: -bogus"},
		{[]string{"token"}, 2, "token needs create, revoke or new"},
		{[]string{"token", "revoke"}, 2, "token revoke needs exactly one token ID"},
		{[]string{"token", "revoke", "not-a-uuid"}, 2, `token revoke: "not-a-uuid" is not a token ID`},
		{[]string{"admin"}, 2, "admin needs reset-password EMAIL"},
		{[]string{"admin", "reset-password"}, 2, "admin reset-password needs exactly one EMAIL"},
		{[]string{"serve", "-admin-token-ttl", "10m"}, 2, "-admin-token-ttl 10m0s: must be at least 1h"},
		{[]string{"key"}, 2, "key needs new or rotate"},
		{[]string{"key", "rotate"}, 2, "key rotate needs the new key in BARRAGE_SECRET_KEY"},
		{[]string{"serve", "-secret-key", "c2hvcnQ="}, 2, "-secret-key: secret key: decodes to 5 bytes, want 32"},
		{[]string{"serve", "-secret-headers", "X-Ok, Bad Name"}, 2, `-secret-headers: "Bad Name" is not a header name`},
		{[]string{"serve", "-secret-keys-previous", "c2hvcnQ="}, 2, "-secret-keys-previous needs -secret-key"},
		{[]string{"serve", "-secret-key", "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=", "-secret-keys-previous", "c2hvcnQ="}, 2,
			"-secret-keys-previous: key 1: secret key: decodes to 5 bytes, want 32"},
		{[]string{"token", "create", "-project", "default", "-role", "owner"}, 2, `-role: role "owner": must be viewer, runner or admin`},
		{[]string{"token", "create", "-role", "viewer"}, 2, "-project is required"},
		{[]string{"token", "create", "-project", "default", "-expires", "-1h"}, 2, "-expires must not be negative"},
		{[]string{"serve", "-h"}, 0, "-max-qps"},
		{[]string{"help"}, 0, ""},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := runMain(t, environ, tt.args...)
			if code != tt.wantCode {
				t.Errorf("exit code = %d, want %d; stderr: %s", code, tt.wantCode, stderr)
			}
			if !strings.Contains(stderr, tt.wantStderr) {
				t.Errorf("stderr = %q, want it to contain %q", stderr, tt.wantStderr)
			}
			if tt.wantCode == 2 && !strings.Contains(stderr, "usage:") {
				t.Errorf("stderr of a usage error lacks the usage: %q", stderr)
			}
			if tt.args[0] == "help" && !strings.HasPrefix(stdout, "usage:") {
				t.Errorf("help printed %q, want the usage", stdout)
			}
		})
	}
}

func TestMainMigrate(t *testing.T) {
	t.Parallel()
	e := &apiEnv{DBURL: pgtest.NewDatabase(t)}
	e.connect(t)
	environ := []string{"DATABASE_URL=" + e.DBURL}
	tables := func() int {
		return e.count(t, `SELECT count(*) FROM unnest(ARRAY['orgs', 'users', 'projects', 'api_tokens', 'runs', 'outbox', 'audit_log']) AS t (name)
			WHERE to_regclass('public.' || t.name) IS NOT NULL`)
	}
	migrate := func(sub string, wantOut *regexp.Regexp, wantTables int) {
		t.Helper()
		code, stdout, stderr := runMain(t, environ, "migrate", sub)
		if code != 0 {
			t.Fatalf("migrate %s: exit code %d; stderr: %s", sub, code, stderr)
		}
		if !wantOut.MatchString(stdout) {
			t.Errorf("migrate %s printed %q, want %s", sub, stdout, wantOut)
		}
		if got := tables(); got != wantTables {
			t.Errorf("after migrate %s, %d of 7 tables exist, want %d", sub, got, wantTables)
		}
	}
	// Every migration the binary embeds, in order: the test follows new ones.
	names, err := fs.Glob(migrations.FS, "*.sql")
	if err != nil || len(names) < 17 {
		t.Fatalf("embedded migrations %v (%v)", names, err)
	}
	sort.Strings(names)
	var pendingRE, appliedRE strings.Builder
	for _, n := range names {
		fmt.Fprintf(&pendingRE, `pending\s+%s\n`, regexp.QuoteMeta(n))
		fmt.Fprintf(&appliedRE, `applied %s \(\d+ms\)\n`, regexp.QuoteMeta(n))
	}
	pending := regexp.MustCompile("^" + pendingRE.String() + "$")
	migrate("status", pending, 0)
	migrate("up", regexp.MustCompile("^"+appliedRE.String()+"$"), 7)
	migrate("status", regexp.MustCompile(`^applied\s+00001_init\.sql at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\napplied\s+00002_distributed\.sql at `), 7)
	migrate("up", regexp.MustCompile(`^no pending migrations\n$`), 7)
	for i := len(names) - 1; i >= 0; i-- {
		left := 7
		if i == 0 {
			left = 0
		}
		migrate("down", regexp.MustCompile(`^rolled back `+regexp.QuoteMeta(names[i])+` \(\d+ms\)\n$`), left)
	}
	migrate("status", pending, 0)
	migrate("up", regexp.MustCompile(`^applied 00001_init\.sql`), 7)
}

// bootstrapDB creates a database and bootstraps it as a first start of
// the server does, without serving.
func bootstrapDB(t *testing.T) string {
	t.Helper()
	dbURL := pgtest.NewDatabase(t)
	cfg, err := ParseConfig(nil, []string{"DATABASE_URL=" + dbURL, "BARRAGE_LISTEN=127.0.0.1:0", "BARRAGE_ADMIN_PASSWORD=" + testAdminPassword, "BARRAGE_NATS_LISTEN=127.0.0.1:0", "BARRAGE_NATS_DATA_DIR=" + t.TempDir(),
		"BARRAGE_ADMIN_CREDENTIALS_FILE=" + filepath.Join(t.TempDir(), "admin-credentials")}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	a, err := New(ctx, cfg, slog.New(slog.DiscardHandler), io.Discard)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if err := a.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	return dbURL
}

func TestMainTokenCreate(t *testing.T) {
	t.Parallel()
	dbURL := bootstrapDB(t)
	environ := []string{"DATABASE_URL=" + dbURL}
	code, stdout, stderr := runMain(t, environ, "token", "create", "-project", "default", "-role", "runner", "-name", "ci", "-expires", "720h")
	if code != 0 {
		t.Fatalf("token create: exit code %d; stderr: %s", code, stderr)
	}
	secret, ok := strings.CutSuffix(stdout, "\n")
	if !ok || strings.Contains(secret, "\n") {
		t.Fatalf("token create printed %q, want one line", stdout)
	}
	if _, err := auth.ParseToken(secret); err != nil {
		t.Fatalf("token create printed %q: %v", secret, err)
	}
	if !strings.Contains(stderr, "(runner in project default) created") {
		t.Errorf("stderr = %q, want a note of what was created", stderr)
	}

	e := startAPI(t, "DATABASE_URL="+dbURL)
	if n := e.count(t, `SELECT count(*) FROM api_tokens WHERE name = 'ci' AND role = 'runner'
		AND expires_at BETWEEN now() + interval '719 hours' AND now() + interval '721 hours'`); n != 1 {
		t.Errorf("%d runner tokens named ci expiring in 720h, want 1", n)
	}
	me := decode[client.Me](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/me", secret, nil))
	if me.Token == nil || me.Token.Role == nil || *me.Token.Role != client.Runner || me.User.Email != "admin@barrage.local" {
		t.Fatalf("GET /me with the CLI token = %+v, token %+v; want the admin's runner token", me.User, me.Token)
	}
	if len(me.Projects) != 1 || me.Projects[0].Project.Slug != "default" || *me.Token.ProjectId != me.Projects[0].Project.Id {
		t.Errorf("GET /me projects = %+v, want default only", me.Projects)
	}
	run := e.mustRun(t, secret, "", "from the CLI token", nil) // a project token needs no project
	if run.ProjectId != me.Projects[0].Project.Id {
		t.Errorf("run in project %s, want default", run.ProjectId)
	}
	status, header, raw := e.do(t, http.MethodPost, "/tokens", secret, map[string]any{"name": "escalate", "role": "admin"})
	wantProblem(t, status, header, raw, http.StatusForbidden, "forbidden")

	t.Run("unknown project", func(t *testing.T) {
		code, stdout, stderr := runMain(t, environ, "token", "create", "-project", "nope")
		if code != 1 || stdout != "" || !strings.Contains(stderr, `project "nope" not found`) {
			t.Errorf("exit code %d, stdout %q, stderr %q; want 1, nothing and not found", code, stdout, stderr)
		}
	})
}

func TestMainTokenCreateBeforeFirstStart(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := runMain(t, []string{"DATABASE_URL=" + pgtest.NewDatabase(t)}, "token", "create", "-project", "default")
	if code != 1 || stdout != "" || !strings.Contains(stderr, "start barrage-api once first") {
		t.Errorf("exit code %d, stdout %q, stderr %q; want 1, nothing and a hint to start the server", code, stdout, stderr)
	}
}

func TestMainTokenNew(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for range 3 {
		code, stdout, stderr := runMain(t, nil, "token", "new")
		if code != 0 || stderr != "" {
			t.Fatalf("token new: exit code %d, stderr %q", code, stderr)
		}
		tok := strings.TrimSuffix(stdout, "\n")
		if tok+"\n" != stdout || len(tok) != auth.TokenLength {
			t.Fatalf("token new printed %q, want one token line", stdout)
		}
		if _, err := auth.ParseToken(tok); err != nil {
			t.Errorf("token new printed %q: %v", tok, err)
		}
		if seen[tok] {
			t.Errorf("token new printed %q twice", tok)
		}
		seen[tok] = true
		if _, err := ParseConfig(nil, []string{"BARRAGE_ADMIN_TOKEN=" + tok}, io.Discard); err != nil {
			t.Errorf("BARRAGE_ADMIN_TOKEN=%s: %v", tok, err)
		}
	}
}

func TestMainKeyNew(t *testing.T) {
	t.Parallel()
	code, first, stderr := runMain(t, nil, "key", "new")
	if code != 0 || stderr != "" {
		t.Fatalf("key new: exit code %d, stderr %q", code, stderr)
	}
	key := strings.TrimSuffix(first, "\n")
	if _, err := sealer.Parse(key); err != nil || key+"\n" != first {
		t.Fatalf("key new printed %q, want one key line: %v", first, err)
	}
	if _, err := ParseConfig(nil, []string{"BARRAGE_SECRET_KEY=" + key}, io.Discard); err != nil {
		t.Errorf("BARRAGE_SECRET_KEY=%s: %v", key, err)
	}
	if _, second, _ := runMain(t, nil, "key", "new"); second == first {
		t.Errorf("key new printed %q twice", first)
	}
}

// syncBuffer is a bytes.Buffer that a server goroutine writes while the
// test reads.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p.
func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns what was written so far.
func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// serveMain runs `barrage-api serve` on dbURL with extra settings until
// stop is called, which returns the exit code; it waits until the server
// listens and returns its address, what it printed and what it logged.
func serveMain(t *testing.T, dbURL string, extra ...string) (addr string, stdout, stderr *syncBuffer, stop func() int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	stdout, stderr = &syncBuffer{}, &syncBuffer{}
	environ := append([]string{"DATABASE_URL=" + dbURL, "BARRAGE_LISTEN=127.0.0.1:0", "BARRAGE_RATE_LIMIT=0", "BARRAGE_NATS_LISTEN=127.0.0.1:0",
		"BARRAGE_NATS_DATA_DIR=" + t.TempDir()}, extra...)
	done := make(chan int, 1)
	go func() { done <- Main(ctx, []string{"barrage-api", "serve"}, environ, stdout, stderr) }()
	var once sync.Once
	code := -1
	stop = func() int {
		once.Do(func() {
			cancel()
			select {
			case code = <-done:
			case <-time.After(testTimeout):
				t.Errorf("serve did not return within %v of cancel", testTimeout)
			}
		})
		return code
	}
	t.Cleanup(func() { stop() })
	waitFor(t, testTimeout, func() error {
		select {
		case code := <-done:
			done <- code
			return fmt.Errorf("serve exited with %d: %s", code, stderr.String())
		default:
		}
		for _, line := range strings.Split(stderr.String(), "\n") {
			var entry struct{ Msg, Addr string }
			if json.Unmarshal([]byte(line), &entry) == nil && entry.Msg == "barrage-api listening" {
				addr = entry.Addr
				return nil
			}
		}
		return errNotYet
	})
	return addr, stdout, stderr, stop
}

func TestMainServeWithAdminTokenFromEnvironment(t *testing.T) {
	t.Parallel()
	e := startAPI(t)
	if !strings.Contains(e.Out, "(from BARRAGE_ADMIN_TOKEN)") || !strings.Contains(e.Out, "(from BARRAGE_ADMIN_PASSWORD)") ||
		strings.Contains(e.Out, e.AdminToken) || strings.Contains(e.Out, testAdminPassword) {
		t.Errorf("first start printed %q; want it to name the environment, not repeat the secrets", e.Out)
	}
}
