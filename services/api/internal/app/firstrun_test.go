package app

import (
	"bufio"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/barrage-dev/barrage/services/api/client"
	"github.com/barrage-dev/barrage/services/api/internal/pgtest"
)

// readCredentials reads the key=value lines of a first-run credentials file.
func readCredentials(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok && !strings.HasPrefix(k, "#") {
			out[k] = v
		}
	}
	return out
}

// TestMainFirstStartWritesCredentialsFile: the first start writes the
// generated password and token to a mode-0600 file and prints only its
// path; neither secret is in what it printed or logged. The file's
// credentials sign in; the token expires in 30 days; a second start
// changes nothing.
func TestMainFirstStartWritesCredentialsFile(t *testing.T) {
	t.Parallel()
	dbURL := pgtest.NewDatabase(t)
	path := filepath.Join(t.TempDir(), "state", "admin-credentials")
	_, stdout, stderr, stop := serveMain(t, dbURL, "BARRAGE_ADMIN_CREDENTIALS_FILE="+path)
	info, err := os.Stat(path)
	if err != nil {
		t.Fatalf("no credentials file: %v; printed %q", err, stdout.String())
	}
	if mode := info.Mode().Perm(); mode != 0o600 {
		t.Errorf("credentials file mode %o, want 600", mode)
	}
	creds := readCredentials(t, path)
	if creds["email"] != "admin@barrage.local" || len(creds["password"]) < 12 || !strings.HasPrefix(creds["token"], "brg_") || creds["token_id"] == "" {
		t.Fatalf("credentials file holds %v, want email, password, token and token_id", creds)
	}
	if code := stop(); code != 0 {
		t.Errorf("serve exited with %d after cancel, want 0", code)
	}
	printed, logged := stdout.String(), stderr.String()
	if !strings.Contains(printed, path) {
		t.Errorf("first start printed %q, want the credentials file's path", printed)
	}
	for name, secret := range map[string]string{"password": creds["password"], "token": creds["token"]} {
		if strings.Contains(printed, secret) || strings.Contains(logged, secret) {
			t.Errorf("the generated %s is in the start-up output or the log", name)
		}
	}
	if strings.Contains(printed+logged, "brg_") {
		t.Errorf("a token appears in the start-up output or the log: %q", printed+logged)
	}

	addr, stdout, _, stop := serveMain(t, dbURL, "BARRAGE_ADMIN_CREDENTIALS_FILE="+path)
	e := &apiEnv{URL: "http://" + addr, DBURL: dbURL}
	e.connect(t)
	me := decode[client.Me](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/me", creds["token"], nil))
	if me.User.Email != "admin@barrage.local" || !me.User.IsAdmin || me.Token == nil || me.Token.Id.String() != creds["token_id"] {
		t.Errorf("the file's token belongs to %+v (token %+v), want the admin and token %s", me.User, me.Token, creds["token_id"])
	}
	e.mustSignIn(t, creds["email"], creds["password"])
	if n := e.count(t, `SELECT count(*) FROM api_tokens WHERE id = $1::uuid AND project_id IS NULL
		AND expires_at BETWEEN now() + interval '719 hours' AND now() + interval '721 hours'`, creds["token_id"]); n != 1 {
		t.Errorf("%d unscoped bootstrap tokens expiring in 30 days, want 1", n)
	}
	if code := stop(); code != 0 || stdout.String() != "" {
		t.Errorf("second start: exit code %d, printed %q; want 0 and nothing", code, stdout.String())
	}
	if after := readCredentials(t, path); after["password"] != creds["password"] || after["token"] != creds["token"] {
		t.Error("the second start rewrote the credentials file")
	}
	if n := e.count(t, "SELECT count(*) FROM users"); n != 1 {
		t.Errorf("%d users after two starts, want 1", n)
	}
}

// TestBootstrapTokenExpiresAndIsRevocable: the bootstrap admin token
// expires after BARRAGE_ADMIN_TOKEN_TTL, and an org admin revokes it
// through the API; a project admin cannot even see it.
func TestBootstrapTokenExpiresAndIsRevocable(t *testing.T) {
	t.Parallel()
	e := startAPI(t, "BARRAGE_ADMIN_TOKEN_TTL=2h")
	me := decode[client.Me](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/me", e.AdminToken, nil))
	if me.Token == nil {
		t.Fatal("GET /me with the bootstrap token shows no token")
	}
	id := me.Token.Id.String()
	if n := e.count(t, "SELECT count(*) FROM api_tokens WHERE id = $1::uuid AND expires_at BETWEEN now() + interval '119 minutes' AND now() + interval '2 hours'", id); n != 1 {
		t.Errorf("%d bootstrap tokens expiring in 2h, want 1", n)
	}
	projectAdmin := e.mustMemberToken(t, "pa", "default", "admin").Secret
	status, header, raw := e.do(t, http.MethodDelete, "/tokens/"+id, projectAdmin, nil)
	wantProblem(t, status, header, raw, http.StatusNotFound, "not-found")
	admin := withCookie(e.mustSignIn(t, testAdminEmail, testAdminPassword), "Sec-Fetch-Site", "same-origin")
	e.mustDo(t, http.StatusNoContent, http.MethodDelete, "/tokens/"+id, "", nil, admin...)
	status, header, raw = e.do(t, http.MethodGet, "/me", e.AdminToken, nil)
	wantProblem(t, status, header, raw, http.StatusUnauthorized, "unauthenticated")
	if n := e.count(t, "SELECT count(*) FROM audit_log WHERE action = 'token.revoke' AND target_id = $1", id); n != 1 {
		t.Errorf("%d token.revoke entries for the bootstrap token, want 1", n)
	}

	// Expired: a server whose bootstrap token's time has come.
	x := startAPI(t)
	x.exec(t, "UPDATE api_tokens SET expires_at = now() - interval '1 second' WHERE project_id IS NULL")
	x.mustDo(t, http.StatusUnauthorized, http.MethodGet, "/me", x.AdminToken, nil)
}

// TestMainAdminResetPassword: `admin reset-password EMAIL` against the
// real database prints a new password that signs in, while the old one and
// the user's sessions stop working; an unknown email exits 1.
func TestMainAdminResetPassword(t *testing.T) {
	t.Parallel()
	dbURL := bootstrapDB(t)
	e := startAPI(t, "DATABASE_URL="+dbURL)
	old := e.mustSignIn(t, "admin@barrage.local", testAdminPassword)
	code, stdout, stderr := runMain(t, []string{"DATABASE_URL=" + dbURL}, "admin", "reset-password", "ADMIN@barrage.local")
	if code != 0 {
		t.Fatalf("admin reset-password: exit code %d; stderr: %s", code, stderr)
	}
	password := strings.TrimSpace(stdout)
	if len(password) < 12 || strings.Contains(password, "\n") || !strings.Contains(stderr, "1 session(s) ended") {
		t.Fatalf("reset-password printed %q and %q, want one password line and one session ended", stdout, stderr)
	}
	e.mustSignIn(t, "admin@barrage.local", password)
	status, _, _ := e.tryLogin(t, "admin@barrage.local", testAdminPassword)
	if status != http.StatusUnauthorized {
		t.Errorf("sign-in with the old password = %d, want 401", status)
	}
	e.mustDo(t, http.StatusUnauthorized, http.MethodGet, "/me", "", nil, withCookie(old)...)
	if n := e.count(t, "SELECT count(*) FROM audit_log WHERE action = 'user.password_reset' AND user_id IS NULL"); n != 1 {
		t.Errorf("%d user.password_reset entries by the system, want 1", n)
	}

	code, stdout, stderr = runMain(t, []string{"DATABASE_URL=" + dbURL}, "admin", "reset-password", "nobody@barrage.local")
	if code != 1 || stdout != "" || !strings.Contains(stderr, `no user has the email "nobody@barrage.local"`) {
		t.Errorf("unknown email: exit code %d, stdout %q, stderr %q; want 1, nothing and a message", code, stdout, stderr)
	}
}

// TestMainTokenRevoke: `token revoke ID` against the real database ends a
// token at once (401 on its next use), the unscoped bootstrap token too;
// an unknown ID exits 1.
func TestMainTokenRevoke(t *testing.T) {
	t.Parallel()
	e := startAPI(t)
	runner := e.mustTokenCreated(t, "default", "runner")
	me := decode[client.Me](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/me", e.AdminToken, nil))
	environ := []string{"DATABASE_URL=" + e.DBURL}
	for _, tok := range []struct{ id, secret string }{{runner.Id.String(), runner.Secret}, {me.Token.Id.String(), e.AdminToken}} {
		e.mustDo(t, http.StatusOK, http.MethodGet, "/me", tok.secret, nil)
		code, stdout, stderr := runMain(t, environ, "token", "revoke", tok.id)
		if code != 0 || stdout != "" || !strings.Contains(stderr, "token "+tok.id+" revoked") {
			t.Fatalf("token revoke %s: exit code %d, stdout %q, stderr %q", tok.id, code, stdout, stderr)
		}
		status, header, raw := e.do(t, http.MethodGet, "/me", tok.secret, nil)
		wantProblem(t, status, header, raw, http.StatusUnauthorized, "unauthenticated")
	}
	code, _, stderr := runMain(t, environ, "token", "revoke", "00000000-0000-0000-0000-000000000001")
	if code != 1 || !strings.Contains(stderr, "no token has the ID 00000000-0000-0000-0000-000000000001") {
		t.Errorf("unknown token: exit code %d, stderr %q; want 1 and a message", code, stderr)
	}
}

// TestMainFirstStartUnwritableCredentialsFile: when the credentials file
// cannot be written (a read-only file system), the server still starts,
// shows no secret and says how to set a password with the CLI.
func TestMainFirstStartUnwritableCredentialsFile(t *testing.T) {
	t.Parallel()
	blocker := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, stdout, stderr, stop := serveMain(t, pgtest.NewDatabase(t), "BARRAGE_ADMIN_CREDENTIALS_FILE="+filepath.Join(blocker, "admin-credentials"))
	if code := stop(); code != 0 {
		t.Errorf("serve exited with %d, want 0", code)
	}
	printed := stdout.String()
	if !strings.Contains(printed, "barrage-api admin reset-password admin@barrage.local") || strings.Contains(printed+stderr.String(), "brg_") {
		t.Errorf("first start printed %q, want the reset-password hint and no token", printed)
	}
}

// TestReminderNamesTheCredentials: a make run (all-in-one) start whose
// admin already exists says where the first start's credentials are and
// how to reset the password; without the file it still says how; a server
// that is not all-in-one prints nothing.
func TestReminderNamesTheCredentials(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "admin-credentials")
	cfg := Config{AllInOne: true, AdminEmail: "admin@barrage.local", AdminCredentialsFile: path}
	var out strings.Builder
	if err := reminder(cfg, &out); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); strings.Contains(got, path) || !strings.Contains(got, "barrage-api admin reset-password admin@barrage.local") {
		t.Errorf("without the file the reminder says %q, want the reset command and no path", got)
	}
	if err := os.WriteFile(path, []byte("email=admin@barrage.local\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := reminder(cfg, &out); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); !strings.Contains(got, "are in "+path) || !strings.Contains(got, "reset-password") {
		t.Errorf("with the file the reminder says %q, want its path and the reset command", got)
	}
	out.Reset()
	cfg.AllInOne = false
	if err := reminder(cfg, &out); err != nil || out.Len() != 0 {
		t.Errorf("a server that is not all-in-one printed %q (%v), want nothing", out.String(), err)
	}
}
