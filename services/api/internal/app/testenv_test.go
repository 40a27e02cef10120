package app

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/netip"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx", to count rows

	"github.com/barrage-dev/barrage/pkg/dnstest"
	"github.com/barrage-dev/barrage/services/api/client"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/httpapi"
	"github.com/barrage-dev/barrage/services/api/internal/pgtest"
)

// testAdminEmail and testAdminPassword sign in the bootstrap admin of every
// startAPI server.
const (
	testAdminEmail    = "admin@barrage.test"
	testAdminPassword = "correct horse battery staple"
)

// testTimeout bounds one request, one query and the server's shutdown.
const testTimeout = 30 * time.Second

// apiEnv is a barrage-api running in this process on a fresh database.
type apiEnv struct {
	// URL is the server's base URL, http://127.0.0.1:port.
	URL string
	// DBURL is the URL of the server's database.
	DBURL string
	// AdminToken is the bootstrap admin's unscoped token: an org admin.
	AdminToken string
	// Out is what the server printed at start (the bootstrap notice).
	Out string
	// NATSURL is the server's NATS (the embedded one), for agents.
	NATSURL string
	// Handler is the server's HTTP handler (its gin engine).
	Handler http.Handler
	// db is a database/sql pool on DBURL, for checking rows.
	db     *sql.DB
	client *http.Client
	// logTo, when set before serveAPI, also gets the server's logs.
	logTo io.Writer
	// clock, when set before serveAPI, is the server's clock of sign-in
	// and sessions.
	clock func() time.Time
	// hashHold, when set before serveAPI, runs while a sign-in's password
	// check holds its slot (Config.HashHold).
	hashHold func()
	// DNS resolves run targets' names for the server (serveAPI starts it
	// with target.test at 127.0.0.1, which the default project's loopback
	// allow-list opens); a test may change its answers.
	DNS *dnstest.Server
}

// testLogWriter is where servers under test log: the test log with
// BARRAGE_TEST_LOG=1, nowhere otherwise.
func testLogWriter(t testing.TB) io.Writer {
	if os.Getenv("BARRAGE_TEST_LOG") == "1" {
		return t.Output()
	}
	return io.Discard
}

// startAPI boots barrage-api on 127.0.0.1:0 with a fresh database, a known
// admin token and password and no rate limit; extraEnv ("NAME=value")
// overrides any setting. With DATABASE_URL in extraEnv the server uses
// that database, and AdminToken works only if it was not bootstrapped
// before. The server stops, and Run must have returned, when t ends.
func startAPI(t testing.TB, extraEnv ...string) *apiEnv {
	t.Helper()
	return startAPILogged(t, nil, extraEnv...)
}

// startAPILogged is startAPI with the server's logs also written to logTo
// (when not nil), which must be safe for concurrent writes.
func startAPILogged(t testing.TB, logTo io.Writer, extraEnv ...string) *apiEnv {
	t.Helper()
	return bootAPI(t, &apiEnv{AdminToken: auth.NewToken().Text, logTo: logTo}, extraEnv)
}

// startAPIClock is startAPI with clock as the server's clock of sign-in
// lockout and session rotation.
func startAPIClock(t testing.TB, clock func() time.Time, extraEnv ...string) *apiEnv {
	t.Helper()
	return bootAPI(t, &apiEnv{AdminToken: auth.NewToken().Text, clock: clock}, extraEnv)
}

// bootAPI is startAPI for a prepared e.
func bootAPI(t testing.TB, e *apiEnv, extraEnv []string) *apiEnv {
	t.Helper()
	for _, kv := range extraEnv {
		if u, ok := strings.CutPrefix(kv, "DATABASE_URL="); ok {
			e.DBURL = u
		}
	}
	if e.DBURL == "" {
		e.DBURL = pgtest.NewDatabase(t)
	}
	environ := append(append(baseEnv(e.AdminToken),
		"DATABASE_URL="+e.DBURL,
		"BARRAGE_NATS_LISTEN=127.0.0.1:0",
		"BARRAGE_NATS_DATA_DIR="+t.TempDir(),
		// No agent runs in these tests: runs stay queued rather than fail.
		"BARRAGE_DISPATCH_WAIT=1h",
	), extraEnv...)
	serveAPI(t, e, environ)
	return e
}

// baseEnv is what every test server runs with: a free port, a small
// pool, the known admin and no rate limits (of requests or of sign-ins).
func baseEnv(token string) []string {
	return []string{
		"BARRAGE_LISTEN=127.0.0.1:0",
		// Parallel tests keep their servers while their subtests run, so
		// a dozen may be up at once on Postgres's 100 connections.
		"BARRAGE_DB_MAX_CONNS=5",
		"BARRAGE_ADMIN_TOKEN=" + token,
		"BARRAGE_ADMIN_EMAIL=" + testAdminEmail,
		"BARRAGE_ADMIN_PASSWORD=" + testAdminPassword,
		"BARRAGE_RATE_LIMIT=0",
		"BARRAGE_LOGIN_RATE_LIMIT=0",
		"BARRAGE_SHUTDOWN_TIMEOUT=5s",
	}
}

// serveAPI boots barrage-api in this process with environ, fills e (URL,
// start-up output, NATS URL, database URL) and connects it. It returns a
// graceful stop (cancel, then wait for Run), which also runs when tb ends.
func serveAPI(tb testing.TB, e *apiEnv, environ []string) func() {
	tb.Helper()
	cfg, err := ParseConfig(nil, environ, io.Discard)
	if err != nil {
		tb.Fatalf("config: %v", err)
	}
	e.DBURL = cfg.DatabaseURL
	cfg.Clock = e.clock
	cfg.HashHold = e.hashHold
	if e.DNS == nil {
		e.DNS = dnstest.Start(tb)
		e.DNS.Set("target.test", netip.MustParseAddr("127.0.0.1"))
	}
	cfg.TargetResolver = e.DNS.Resolver()
	logTo := testLogWriter(tb)
	if e.logTo != nil {
		logTo = io.MultiWriter(logTo, e.logTo)
	}
	log := slog.New(slog.NewTextHandler(logTo, &slog.HandlerOptions{Level: slog.LevelDebug}))
	ctx, cancel := context.WithCancel(context.Background())
	var out bytes.Buffer
	a, err := New(ctx, cfg, log, &out)
	if err != nil {
		cancel()
		tb.Fatalf("New: %v", err)
	}
	e.URL, e.Out, e.NATSURL, e.Handler = "http://"+a.Addr(), out.String(), a.NATSURL(), a.Handler()
	e.connect(tb)
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	stop := sync.OnceFunc(func() {
		e.client.CloseIdleConnections()
		cancel()
		select {
		case err := <-done:
			if err != nil {
				tb.Errorf("Run returned %v after a clean shutdown", err)
			}
		case <-time.After(testTimeout):
			tb.Errorf("Run did not return within %v of cancel", testTimeout)
		}
	})
	tb.Cleanup(stop)
	return stop
}

// connect opens e's database pool and HTTP client; both close when t ends.
func (e *apiEnv) connect(t testing.TB) {
	t.Helper()
	db, err := sql.Open("pgx", e.DBURL)
	if err != nil {
		t.Fatalf("open %s: %v", e.DBURL, err)
	}
	t.Cleanup(func() { _ = db.Close() })
	db.SetMaxOpenConns(3)
	db.SetMaxIdleConns(1)
	e.db = db
	e.client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}, Timeout: testTimeout}
	t.Cleanup(e.client.CloseIdleConnections)
}

// apiPath returns the URL path of path: paths under /api/ and the ops
// endpoints as they are, anything else relative to /api/v1.
func apiPath(path string) string {
	for _, p := range []string{"/api/", "/healthz", "/readyz", "/metrics", "/fortio/"} {
		if strings.HasPrefix(path, p) {
			return path
		}
	}
	return client.BasePath + path
}

// request sends one request; body is nil (none), []byte or string (sent
// as is), an io.Reader (sent chunked) or any other value (sent as JSON). A body is labelled
// application/json unless headers ("Name", "value" pairs) say otherwise; a
// non-empty token goes in "Authorization: Bearer". Safe for goroutines.
func (e *apiEnv) request(ctx context.Context, method, path, token string, body any, headers ...string) (int, http.Header, []byte, error) {
	if len(headers)%2 != 0 {
		return 0, nil, nil, fmt.Errorf("headers %q: want name, value pairs", headers)
	}
	var rd io.Reader = http.NoBody
	switch b := body.(type) {
	case nil:
	case []byte:
		rd = bytes.NewReader(b)
	case string:
		rd = strings.NewReader(b)
	case io.Reader: // of unknown length: sent chunked
		rd = b
	default:
		data, err := json.Marshal(b)
		if err != nil {
			return 0, nil, nil, fmt.Errorf("encode body: %w", err)
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, e.URL+apiPath(path), rd)
	if err != nil {
		return 0, nil, nil, fmt.Errorf("new request: %w", err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := e.client.Do(req)
	if err != nil {
		return 0, nil, nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, nil, nil, fmt.Errorf("%s %s: read body: %w", method, path, err)
	}
	return resp.StatusCode, resp.Header, raw, nil
}

// do is request for the test goroutine: it fails t when the request
// cannot be made at all.
func (e *apiEnv) do(t testing.TB, method, path, token string, body any, headers ...string) (status int, header http.Header, raw []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	status, header, raw, err := e.request(ctx, method, path, token, body, headers...)
	if err != nil {
		t.Fatal(err)
	}
	return status, header, raw
}

// mustDo sends a request that must answer want, and returns the body.
func (e *apiEnv) mustDo(t testing.TB, want int, method, path, token string, body any, headers ...string) []byte {
	t.Helper()
	status, _, raw := e.do(t, method, path, token, body, headers...)
	if status != want {
		t.Fatalf("%s %s = %d, want %d; body: %s", method, path, status, want, raw)
	}
	return raw
}

// decode unmarshals raw as T, failing t when it does not fit.
func decode[T any](t testing.TB, raw []byte) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("decode %T: %v; body: %s", v, err, raw)
	}
	return v
}

// wantProblem checks that a response is problem details of status and
// type slug (the part after ProblemBase), and returns them.
func wantProblem(t testing.TB, status int, header http.Header, raw []byte, wantStatus int, wantSlug string) client.Problem {
	t.Helper()
	if status != wantStatus {
		t.Fatalf("status = %d, want %d; body: %s", status, wantStatus, raw)
	}
	if mt, _, _ := mime.ParseMediaType(header.Get("Content-Type")); mt != "application/problem+json" {
		t.Errorf("Content-Type = %q, want application/problem+json", header.Get("Content-Type"))
	}
	p := decode[client.Problem](t, raw)
	if want := httpapi.ProblemBase + wantSlug; p.Type != want {
		t.Errorf("problem type = %q, want %q; body: %s", p.Type, want, raw)
	}
	if p.Status != wantStatus {
		t.Errorf("problem status = %d, want %d", p.Status, wantStatus)
	}
	return p
}

// problemFields returns the field names of a validation problem, sorted.
func problemFields(p client.Problem) []string {
	if p.Errors == nil {
		return nil
	}
	out := make([]string, 0, len(*p.Errors))
	for _, f := range *p.Errors {
		out = append(out, f.Field)
	}
	slices.Sort(out)
	return out
}

// fieldMessage returns the message of field in a validation problem.
func fieldMessage(p client.Problem, field string) (string, bool) {
	if p.Errors == nil {
		return "", false
	}
	for _, f := range *p.Errors {
		if f.Field == field {
			return f.Message, true
		}
	}
	return "", false
}

// mustTokenCreated mints a token of role in project as the bootstrap admin.
func (e *apiEnv) mustTokenCreated(t testing.TB, project string, role auth.Role) client.TokenCreated {
	t.Helper()
	body := map[string]any{"project": project, "name": fmt.Sprintf("%s of %s", role, project), "role": role}
	tok := decode[client.TokenCreated](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/tokens", e.AdminToken, body))
	if tok.Secret == "" || tok.Role != client.Role(role) {
		t.Fatalf("created token = %+v, want a secret and role %s", tok, role)
	}
	return tok
}

// mustToken mints a token of role in project and returns its secret.
func (e *apiEnv) mustToken(t testing.TB, project string, role auth.Role) string {
	t.Helper()
	return e.mustTokenCreated(t, project, role).Secret
}

// mustUser creates a user of the organisation with the admin token; its
// email is key@barrage.test and its password is generated.
func (e *apiEnv) mustUser(t testing.TB, key string) client.User {
	t.Helper()
	body := map[string]any{"email": key + "@barrage.test", "name": "User " + key}
	return decode[client.UserCreated](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/users", e.AdminToken, body)).User
}

// mustProject creates a project as the bootstrap admin.
func (e *apiEnv) mustProject(t testing.TB, slug string) client.Project {
	t.Helper()
	body := map[string]any{"slug": slug, "name": "Project " + slug}
	e.mustDo(t, http.StatusCreated, http.MethodPost, "/projects", e.AdminToken, body)
	// Runs of the project may reach loopback, as the default project's.
	allow := map[string]any{"target_allow_list": []string{"127.0.0.0/8", "::1", "localhost"}}
	return decode[client.Project](t, e.mustDo(t, http.StatusOK, http.MethodPatch, "/projects/"+slug, e.AdminToken, allow))
}

// testSpec is a small valid inline spec.
func testSpec() map[string]any {
	return map[string]any{"url": "http://target.test/path", "qps": 50, "duration": "10s", "connections": 4}
}

// mustRun starts a run from an inline spec in project as token's holder.
func (e *apiEnv) mustRun(t testing.TB, token, project, name string, labels map[string]string) client.Run {
	t.Helper()
	body := map[string]any{"project": project, "name": name, "spec": testSpec()}
	if labels != nil {
		body["labels"] = labels
	}
	return decode[client.Run](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/runs", token, body))
}

// mustTest stores a test in project as token's holder.
func (e *apiEnv) mustTest(t testing.TB, token, project, name string) client.Test {
	t.Helper()
	body := map[string]any{
		"project": project, "name": name, "spec": testSpec(),
		"thresholds": []string{"p(99) < 250ms"}, "labels": map[string]string{"team": "web"},
	}
	return decode[client.Test](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/tests", token, body))
}

// count returns the single integer query returns.
func (e *apiEnv) count(t testing.TB, query string, args ...any) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	var n int
	if err := e.db.QueryRowContext(ctx, query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// exec runs one statement on the server's database.
func (e *apiEnv) exec(t testing.TB, stmt string, args ...any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	if _, err := e.db.ExecContext(ctx, stmt, args...); err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
}

// ids returns the ids of items, in order.
func ids[T any](items []T, id func(T) uuid.UUID) []uuid.UUID {
	out := make([]uuid.UUID, len(items))
	for i, v := range items {
		out[i] = id(v)
	}
	return out
}

// waitFor polls f until it returns nil or timeout passes.
func waitFor(t testing.TB, timeout time.Duration, f func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := f()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %v: %v", timeout, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// errNotYet is what a waitFor condition returns while it waits.
var errNotYet = errors.New("not yet")
