package store

import (
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/barrage-dev/barrage/services/api/internal/pgtest"
)

func TestRedactURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{name: "user and password", in: "postgres://postgres:s3cret@127.0.0.1:5432/barrage?sslmode=disable", want: "postgres://postgres@127.0.0.1:5432/barrage?sslmode=disable"},
		{name: "no password", in: "postgres://postgres@db:5432/barrage", want: "postgres://postgres@db:5432/barrage"},
		{name: "no user", in: "postgresql://db/barrage", want: "postgresql://db/barrage"},
		{name: "password in query", in: "postgres://u@db/b?password=s3cret&sslmode=require", want: "postgres://u@db/b?sslmode=require"},
		{name: "escaped password", in: "postgres://u:p%40ss%2Fw@db/b", want: "postgres://u@db/b"},
		{name: "keyword DSN", in: "host=db user=u password=s3cret dbname=b", want: "host=db user=u password=xxxxx dbname=b"},
		{name: "quoted keyword DSN", in: "host=db password='s3 cr\\'et' dbname=b", want: "host=db password=xxxxx dbname=b"},
		{name: "unparsable", in: "postgres://u:s3cret@db:port/b", want: "<unparsable database URL>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := RedactURL(tt.in)
			if got != tt.want {
				t.Errorf("RedactURL(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if strings.Contains(got, "s3cret") || strings.Contains(got, "p%40ss") {
				t.Errorf("RedactURL(%q) = %q still holds the password", tt.in, got)
			}
		})
	}
}

func TestOptionsNormalize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in, out Options
	}{
		{name: "defaults", out: Options{MaxOpenConns: 20, MaxIdleConns: 10, ConnMaxLifetime: 30 * time.Minute, SlowQuery: 500 * time.Millisecond}},
		{name: "idle capped by open", in: Options{MaxOpenConns: 4}, out: Options{MaxOpenConns: 4, MaxIdleConns: 4, ConnMaxLifetime: 30 * time.Minute, SlowQuery: 500 * time.Millisecond}},
		{name: "kept", in: Options{MaxOpenConns: 50, MaxIdleConns: 5, ConnMaxLifetime: time.Minute, SlowQuery: time.Second}, out: Options{MaxOpenConns: 50, MaxIdleConns: 5, ConnMaxLifetime: time.Minute, SlowQuery: time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := tt.in
			got.Normalize()
			if got != tt.out {
				t.Errorf("Normalize(%+v) = %+v, want %+v", tt.in, got, tt.out)
			}
		})
	}
}

func TestOpenCreatesMissingDatabase(t *testing.T) {
	t.Parallel()
	ctx := ctxT(t)
	u := pgtest.NewDatabase(t) // dropped again at cleanup
	cfg, err := pgx.ParseConfig(u)
	if err != nil {
		t.Fatal(err)
	}
	name := cfg.Database
	cfg.Database = "postgres"
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close(ctx) }()
	if _, err := conn.Exec(ctx, "DROP DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		t.Fatal(err)
	}

	s, err := Open(ctx, u, Options{}, nil)
	if err != nil {
		t.Fatalf("Open on a missing database: %v", err)
	}
	defer func() { _ = s.Close() }()
	var got string
	if err := s.DB().QueryRowContext(ctx, "SELECT current_database()").Scan(&got); err != nil {
		t.Fatal(err)
	}
	if got != name {
		t.Errorf("current_database() = %q, want %q", got, name)
	}
	if err := s.Ping(ctx); err != nil {
		t.Errorf("Ping: %v", err)
	}
	if st := s.DB().Stats(); st.MaxOpenConnections != 20 {
		t.Errorf("MaxOpenConnections = %d, want the default 20", st.MaxOpenConnections)
	}
}

func TestOpenUnreachable(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	_ = l.Close() // nothing listens there now
	u := "postgres://postgres:s3cret@127.0.0.1:" + port + "/barrage?sslmode=disable&connect_timeout=5"

	s, err := Open(ctxT(t), u, Options{}, nil)
	if err == nil {
		_ = s.Close()
		t.Fatal("Open on a closed port succeeded")
	}
	msg := err.Error()
	wantPrefix := "cannot reach Postgres at postgres://postgres@127.0.0.1:" + port + "/barrage?"
	if !strings.HasPrefix(msg, wantPrefix) {
		t.Errorf("error = %q, want prefix %q", msg, wantPrefix)
	}
	for _, bad := range []string{"s3cret", "\n"} {
		if strings.Contains(msg, bad) {
			t.Errorf("error %q contains %q", msg, bad)
		}
	}
	if !strings.Contains(msg, "connection refused") {
		t.Errorf("error %q does not give the cause", msg)
	}
}
