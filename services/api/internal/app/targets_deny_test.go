package app

import (
	"context"
	"log/slog"
	"net"
	"slices"
	"strings"
	"testing"

	"github.com/barrage-dev/barrage/pkg/netguard"
)

// TestControlPlaneDeny: the API's listen address, Postgres and NATS become
// deny entries, which netguard can parse: every port of a host elsewhere,
// the one port of an address of this machine (docs/security.md, "Target
// policy"); the operator's entries deny every port unless they list one.
func TestControlPlaneDeny(t *testing.T) {
	t.Parallel()
	tcp := func(ip string, port int) net.Addr { return &net.TCPAddr{IP: net.ParseIP(ip), Port: port} }
	tests := []struct {
		name    string
		listen  net.Addr
		db      string
		nats    string
		extra   []string
		want    []string // all present
		without []string // none present
	}{
		{name: "loopback everything", listen: tcp("127.0.0.1", 8080), db: "postgres://u:secret@127.0.0.1:5432/barrage?sslmode=disable",
			nats: "nats://127.0.0.1:4222", want: []string{"127.0.0.1:4222", "127.0.0.1:5432", "127.0.0.1:8080"}},
		{name: "wildcard listen", listen: tcp("::", 8080), db: "postgres://127.0.0.1/x", nats: "nats://127.0.0.1:4223",
			want: []string{"127.0.0.0/8:8080", "[::1]:8080", "localhost:8080", "127.0.0.1:5432", "127.0.0.1:4223"}},
		{name: "names and defaults", listen: tcp("127.0.0.1", 9000), db: "host=localhost port=6543 dbname=x",
			nats: "nats://localhost, 10.0.0.9:4333", want: []string{"localhost:6543", "127.0.0.1:6543", "localhost:4222", "127.0.0.1:4222", "10.0.0.9"},
			without: []string{"10.0.0.9:4333"}},
		{name: "unix socket", listen: tcp("127.0.0.1", 9000), db: "host=/var/run/postgresql dbname=x", nats: "",
			want: []string{"127.0.0.1:9000", "unix:/var/run/postgresql/.s.PGSQL.5432"}, without: []string{"/var/run/postgresql:5432"}},
		{name: "operator entries", listen: tcp("127.0.0.1", 9000), db: "postgres://127.0.0.1/x",
			extra: []string{"10.1.0.0/16", "10.2.0.1:8200", "[fc00::/7]:443", "vault.invalid"},
			want:  []string{"10.1.0.0/16", "10.2.0.1:8200", "[fc00::/7]:443", "vault.invalid"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := newDenylist(context.Background(), slog.New(slog.DiscardHandler), nil, tt.listen, tt.db, tt.nats, tt.extra).List()
			for _, w := range tt.want {
				if !slices.Contains(got, w) {
					t.Errorf("deny %q lacks %q", got, w)
				}
			}
			for _, w := range tt.without {
				if slices.Contains(got, w) {
					t.Errorf("deny %q has %q", got, w)
				}
			}
			for _, e := range got {
				if strings.HasPrefix(e, "/") || strings.Contains(e, "secret") {
					t.Errorf("deny %q has a socket path or a credential", got)
				}
			}
			if _, err := netguard.ParseAllowList(got); err != nil {
				t.Errorf("deny entries do not parse: %v", err)
			}
		})
	}
}
