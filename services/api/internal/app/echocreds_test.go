package app

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/nats-io/jwt/v2"
)

// TestEchoCredentials issues a managed echo's credentials and checks the
// JWT holds it to its own registration and profile keys.
func TestEchoCredentials(t *testing.T) {
	t.Parallel()
	keysPath := filepath.Join(t.TempDir(), "nats-keys.json")
	if code, out, errOut := runMain(t, nil, "nats-auth", "init", keysPath); code != exitOK {
		t.Fatalf("nats-auth init: exit %d: %s%s", code, out, errOut)
	}
	env := []string{"BARRAGE_NATS_KEYS=" + keysPath}
	code, file, errOut := runMain(t, env, "echo-credentials", "create", "echo-1")
	if code != exitOK || !strings.Contains(errOut, "-name echo-1") {
		t.Fatalf("echo-credentials create: exit %d: %s", code, errOut)
	}
	token, err := jwt.ParseDecoratedJWT([]byte(file))
	if err != nil {
		t.Fatal(err)
	}
	claims, err := jwt.DecodeUserClaims(token)
	if err != nil {
		t.Fatal(err)
	}
	pub := claims.Pub.Allow
	if !pub.Contains("$KV.barrage_echoes.echo-1") || pub.Contains("$KV.barrage_echo_profiles.echo-1") || len(pub) != 5 {
		t.Errorf("echo-1 may publish %v; want its registration and reads only", pub)
	}
	if code, _, errOut := runMain(t, env, "echo-credentials", "create", "bad name"); code != exitUsage || !strings.Contains(errOut, "name") {
		t.Errorf("a bad echo name: exit %d, %q", code, errOut)
	}
}
