package httpclient

import (
	"context"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestHTTP10(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		resp      string
		wantConns int64 // connections used by 4 requests
	}{
		{"closes after each response", "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok", 4},
		{"server keeps it alive", "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nok", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := startRaw(t, func(int) (string, bool) { return tt.resp, tt.wantConns > 1 })
			f := mustFactory(t, Options{URL: "http://" + srv.ln.Addr().String() + "/x?y=1", HTTP10: true, Timeout: 5 * time.Second})
			if !strings.HasPrefix(string(f.RequestBytes()), "GET /x?y=1 HTTP/1.0\r\nHost: ") {
				t.Fatalf("request %q does not start with an HTTP/1.0 request line", f.RequestBytes())
			}
			c := mustClient(t, f)
			for i := range 4 {
				if res := c.Do(context.Background()); res.Code != 200 || !res.OK {
					t.Fatalf("request %d: %+v", i, res)
				}
			}
			if got := srv.accepted.Load(); got != tt.wantConns {
				t.Fatalf("4 requests used %d connections, want %d", got, tt.wantConns)
			}
		})
	}
}

func TestMaxRequestsPerConnection(t *testing.T) {
	t.Parallel()
	const n = 10
	for _, limit := range []int64{0, 1, 3, 4, 10, 11} {
		t.Run("max "+strconv.FormatInt(limit, 10), func(t *testing.T) {
			t.Parallel()
			srv := startRaw(t, func(int) (string, bool) { return "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", false })
			c := mustClient(t, mustFactory(t, Options{URL: "http://" + srv.ln.Addr().String() + "/",
				MaxRequestsPerConnection: limit, Timeout: 5 * time.Second}))
			for i := range n {
				if res := c.Do(context.Background()); res.Code != 200 || res.Received != int64(len("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")) {
					t.Fatalf("request %d: %+v", i, res)
				}
			}
			want := int64(1)
			if limit > 0 {
				want = (n + limit - 1) / limit // ceil(n/limit)
			}
			if got := srv.accepted.Load(); got != want {
				t.Fatalf("%d requests at most %d per connection used %d connections, want %d", n, limit, got, want)
			}
		})
	}
}

func TestCompressionHeader(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		headers []Header
		want    string
	}{
		{"asks for gzip", nil, "Accept-Encoding: gzip\r\n"},
		{"user header wins", []Header{{"Accept-Encoding", "br"}}, "Accept-Encoding: br\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			req := string(mustFactory(t, Options{URL: "http://h/", Headers: tt.headers, Compression: true}).RequestBytes())
			if strings.Count(req, "Accept-Encoding") != 1 || !strings.Contains(req, tt.want) {
				t.Fatalf("request %q: want one %q", req, tt.want)
			}
		})
	}
	if req := string(mustFactory(t, Options{URL: "http://h/"}).RequestBytes()); strings.Contains(req, "Accept-Encoding") {
		t.Fatalf("request without compression asks for an encoding: %q", req)
	}
}

func TestUnixSocket(t *testing.T) {
	t.Parallel()
	dir, err := os.MkdirTemp("", "brg") // short: sun_path is ~104 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	sock := filepath.Join(dir, "h.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	var hosts atomic.Value
	srv := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hosts.Store(r.Host)
		_, _ = w.Write([]byte("over unix"))
	})}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	var networks atomic.Value
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		networks.Store(network + " " + addr)
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}
	c := mustClient(t, mustFactory(t, Options{URL: "http://app.internal:8080/", UnixSocket: sock, Dial: dial, Timeout: 5 * time.Second}))
	for i := range 3 {
		if res := c.Do(context.Background()); res.Code != 200 || !res.OK {
			t.Fatalf("request %d: %+v", i, res)
		}
	}
	if got := networks.Load(); got != "unix "+sock {
		t.Fatalf("dialed %v, want unix %s", got, sock)
	}
	if got := hosts.Load(); got != "app.internal:8080" {
		t.Fatalf("Host %v, want the URL's app.internal:8080", got)
	}
}
