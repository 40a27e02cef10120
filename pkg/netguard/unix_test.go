package netguard

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"path/filepath"
	"strings"
	"testing"
)

func TestUnixEntries(t *testing.T) {
	t.Parallel()
	l := mustAllow(t, "unix:/run/echo.sock", "*", "127.0.0.1")
	tests := []struct {
		name   string
		guard  Guard
		socket string
		ok     bool
	}{
		{"listed", Guard{Allow: l, RequireListed: true}, "/run/echo.sock", true},
		{"other socket", Guard{Allow: l, RequireListed: true}, "/run/other.sock", false},
		{"prefix is not a match", Guard{Allow: l, RequireListed: true}, "/run/echo.sock2", false},
		{"empty list", Guard{RequireListed: true}, "/run/echo.sock", false},
		{"star opens no socket", Guard{Allow: mustAllow(t, "*", "0.0.0.0/0")}, "/run/echo.sock", false},
		{"cli", Unrestricted(), "/any/where.sock", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.guard.CheckUnix(tt.socket)
			if (err == nil) != tt.ok {
				t.Fatalf("CheckUnix(%q) = %v, want ok %v", tt.socket, err, tt.ok)
			}
			var refused *RefusedError
			if err != nil && (!errors.As(err, &refused) || refused.Socket != tt.socket) {
				t.Fatalf("error %v is not a *RefusedError for %q", err, tt.socket)
			}
			if err := tt.guard.CheckAddr(context.Background(), "unix", tt.socket); (err == nil) != tt.ok {
				t.Fatalf("CheckAddr(unix, %q) = %v, want ok %v", tt.socket, err, tt.ok)
			}
		})
	}
	// A socket entry opens no address.
	if mustAllow(t, "unix:/run/echo.sock").allows("", netip.MustParseAddr("127.0.0.1"), 80, true) {
		t.Fatal("a unix entry allowed 127.0.0.1:80")
	}
}

func TestUnixEntriesBad(t *testing.T) {
	t.Parallel()
	tests := []struct{ entry, msg string }{
		{"unix:", `want "unix:" followed by the socket's absolute path, e.g. "unix:/run/app.sock"`},
		{"unix:run/a.sock", `socket path must be absolute, e.g. "unix:/run/app.sock"`},
		{"unix:///run/a.sock", "socket path must be clean (no //, . or .. parts, no trailing /)"},
		{"unix:/run/../a.sock", "socket path must be clean (no //, . or .. parts, no trailing /)"},
		{"unix:/run/a\tb", "socket path must not contain control characters"},
		{"unix:/" + strings.Repeat("a", 103), "socket path must be at most 103 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.entry, func(t *testing.T) {
			t.Parallel()
			_, err := ParseAllowList([]string{tt.entry})
			var ee *EntryError
			if !errors.As(err, &ee) || ee.Msg != tt.msg {
				t.Fatalf("ParseAllowList(%q) = %v, want %q", tt.entry, err, tt.msg)
			}
		})
	}
}

func TestDialUnix(t *testing.T) {
	t.Parallel()
	dir, err := shortTempDir(t)
	if err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "e.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_ = c.Close()
		}
	}()
	allowed := Guard{Allow: mustAllow(t, "unix:"+sock), RequireListed: true}
	conn, err := allowed.DialContext(context.Background(), "unix", sock)
	if err != nil {
		t.Fatalf("dial a listed socket: %v", err)
	}
	_ = conn.Close()
	_, err = Guard{Allow: mustAllow(t, "*"), RequireListed: true}.DialContext(context.Background(), "unix", sock)
	var refused *RefusedError
	if !errors.As(err, &refused) {
		t.Fatalf("dial an unlisted socket: %v, want a refusal", err)
	}
	want := `unix socket "` + sock + `" is not allowed; add "unix:` + sock + `" to the project's target allow-list to reach it`
	if refused.Error() != want {
		t.Errorf("refusal = %q, want %q", refused.Error(), want)
	}
}

// shortTempDir returns a temporary directory whose path leaves room for a
// socket name within sun_path (t.TempDir can be too long on macOS).
func shortTempDir(tb testing.TB) (string, error) {
	tb.Helper()
	dir, err := filepath.Abs(tb.TempDir())
	if err != nil || len(dir) < 90 {
		return dir, err
	}
	return "", errors.New("temp dir too long for a unix socket: " + dir)
}

// TestCheckUnixDenied: a socket the deny list names (the control plane's
// Postgres) is refused whatever Allow, Outer or AnyUnixSocket say, also
// when asked by an unclean path.
func TestCheckUnixDenied(t *testing.T) {
	t.Parallel()
	const sock = "/var/run/postgresql/.s.PGSQL.5432"
	outer := mustAllow(t, "unix:"+sock)
	g := Guard{Allow: mustAllow(t, "unix:"+sock), Outer: &outer, Deny: mustAllow(t, "unix:"+sock), AnyUnixSocket: true}
	for _, p := range []string{sock, "/var/run/postgresql/./.s.PGSQL.5432", "/var/run//postgresql/.s.PGSQL.5432"} {
		var re *RefusedError
		if err := g.CheckUnix(p); !errors.As(err, &re) || !re.Permanent || re.Reason != reasonControlPlane {
			t.Errorf("CheckUnix(%q) = %v, want a permanent control-plane refusal", p, err)
		}
	}
	if err := g.CheckUnix("/run/app.sock"); err != nil {
		t.Errorf("CheckUnix(another socket) with AnyUnixSocket = %v, want nil", err)
	}
}
