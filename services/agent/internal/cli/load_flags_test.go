package cli

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/services/agent/internal/report"
)

func TestFlagsToSpecHTTPOptions(t *testing.T) {
	t.Parallel()
	_, s, _, err := parseLoad([]string{"-http1.0", "-compression", "-unix-socket", "/run/e.sock",
		"-max-requests-per-connection", "3", "-prefetch", "-burst", "4", "http://h/"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !s.HTTP10 || !s.Compression || s.UnixSocket != "/run/e.sock" || s.MaxRequestsPerConnection != 3 ||
		!s.Prefetch || s.Burst != 4 || s.FollowRedirects {
		t.Fatalf("%+v", s)
	}
	_, s, _, err = parseLoad([]string{"-L", "-content-type", "application/json", "http://h/"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !s.FollowRedirects || s.Method != http.MethodPost {
		t.Fatalf("-L -content-type: follow %v method %q; want true and POST (Fortio's switch)", s.FollowRedirects, s.Method)
	}
}

func TestHTTPOptionFlagsRejected(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-http1.0", "-h2", "https://h/"}, "http10"},
		{[]string{"-http1.0", "-L", "http://h/"}, "http10"},
		{[]string{"-unix-socket", "/a.sock", "-resolve", "127.0.0.1", "http://h/"}, "-resolve and -unix-socket"},
		{[]string{"-unix-socket", "rel.sock", "http://h/"}, "unix_socket"},
		{[]string{"-unix-socket", "/a.sock", "-grpc", "h:1"}, "unix_socket"},
		{[]string{"-burst", "5", "-qps", "0", "http://h/"}, "burst"},
		{[]string{"-max-requests-per-connection", "-1", "http://h/"}, "max_requests_per_connection"},
		{[]string{"-max-requests-per-connection", "2", "-h2", "http://h/"}, "max_requests_per_connection"},
		{[]string{"-compression", "tcp://h:1"}, "compression"},
	} {
		var stderr strings.Builder
		code := Main(context.Background(), append([]string{"barrage-agent", "load"}, tt.args...), nil, io.Discard, &stderr)
		first, _, _ := strings.Cut(stderr.String(), "\n")
		if code != ExitUsage || !strings.Contains(first, tt.want) {
			t.Errorf("%v: exit %d, first line %q; want 2 and %q", tt.args, code, first, tt.want)
		}
	}
}

// countingServer is an HTTP server that counts the connections it accepted
// and, at the first request, how many it had accepted by then.
type countingServer struct {
	url             string
	accepted        atomic.Int64
	acceptedAtFirst atomic.Int64
	protos          sync.Map // proto → true
}

func startCounting(t *testing.T, ln net.Listener, h http.HandlerFunc) *countingServer {
	t.Helper()
	s := &countingServer{url: "http://" + ln.Addr().String()}
	s.acceptedAtFirst.Store(-1)
	srv := &http.Server{ReadHeaderTimeout: 5 * time.Second, ConnState: func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.accepted.Add(1)
		}
	}, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.acceptedAtFirst.CompareAndSwap(-1, s.accepted.Load())
		s.protos.Store(r.Proto, true)
		if h != nil {
			h(w, r)
			return
		}
		_, _ = io.WriteString(w, "ok")
	})}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return s
}

func tcpListener(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

// loadJSON runs `barrage-agent load -quiet` with args and returns its native result.
func loadJSON(t *testing.T, args ...string) report.Result {
	t.Helper()
	out := filepath.Join(t.TempDir(), "r.json")
	var stderr strings.Builder
	all := append([]string{"barrage-agent", "load", "-quiet", "-native-json", out}, args...)
	if code := Main(context.Background(), all, nil, io.Discard, &stderr); code != ExitOK {
		t.Fatalf("%v: exit %d: %s", args, code, stderr.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var res report.Result
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	return res
}

func TestLoadConnectionFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		args      []string
		wantConns int64
		wantProto string
	}{
		{"keep-alive", nil, 1, "HTTP/1.1"},
		{"max 3 per connection", []string{"-max-requests-per-connection", "3"}, 4, "HTTP/1.1"}, // ceil(10/3)
		{"max 5 with prefetch", []string{"-max-requests-per-connection", "5", "-prefetch"}, 2, "HTTP/1.1"},
		{"max 1", []string{"-max-requests-per-connection", "1"}, 10, "HTTP/1.1"},
		{"http1.0", []string{"-http1.0"}, 10, "HTTP/1.0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := startCounting(t, tcpListener(t), nil)
			args := append([]string{"-qps", "0", "-c", "1", "-n", "10"}, tt.args...)
			res := loadJSON(t, append(args, srv.url+"/")...)
			if res.Count != 10 || res.RetCodes["200"] != 10 {
				t.Fatalf("count %d codes %v, want 10 200s", res.Count, res.RetCodes)
			}
			if got := srv.accepted.Load(); got != tt.wantConns {
				t.Fatalf("%d connections accepted, want %d", got, tt.wantConns)
			}
			if _, ok := srv.protos.Load(tt.wantProto); !ok {
				t.Fatalf("server saw no %s request", tt.wantProto)
			}
		})
	}
}

func TestLoadPrefetchOpensEveryConnectionFirst(t *testing.T) {
	t.Parallel()
	srv := startCounting(t, tcpListener(t), nil)
	res := loadJSON(t, "-prefetch", "-qps", "40", "-c", "4", "-n", "8", srv.url+"/")
	if res.Count != 8 {
		t.Fatalf("count %d, want 8", res.Count)
	}
	if got := srv.acceptedAtFirst.Load(); got != 4 {
		t.Fatalf("%d connections accepted at the first request, want all 4", got)
	}
}

func TestLoadUnixSocket(t *testing.T) {
	t.Parallel()
	dir, err := os.MkdirTemp("", "brg") // short: sun_path is ~104 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	sock := filepath.Join(dir, "load.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	var host atomic.Value
	startCounting(t, ln, func(w http.ResponseWriter, r *http.Request) { host.Store(r.Host) })
	res := loadJSON(t, "-qps", "0", "-c", "2", "-n", "12", "-unix-socket", sock, "http://app.invalid:8080/")
	if res.Count != 12 || res.RetCodes["200"] != 12 {
		t.Fatalf("count %d codes %v, want 12 200s over the socket", res.Count, res.RetCodes)
	}
	if host.Load() != "app.invalid:8080" {
		t.Fatalf("Host %v, want the URL's", host.Load())
	}
}

func TestLoadFollowRedirects(t *testing.T) {
	t.Parallel()
	srv := startCounting(t, tcpListener(t), func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/old" {
			http.Redirect(w, r, "/new", http.StatusMovedPermanently)
			return
		}
		_, _ = io.WriteString(w, "moved here")
	})
	followed := loadJSON(t, "-L", "-qps", "0", "-c", "1", "-n", "6", srv.url+"/old")
	if followed.RetCodes["200"] != 6 || followed.Errors != 0 {
		t.Fatalf("-L: codes %v errors %d, want six final 200s", followed.RetCodes, followed.Errors)
	}
	var stderr strings.Builder
	out := filepath.Join(t.TempDir(), "r.json")
	code := Main(context.Background(), []string{"barrage-agent", "load", "-quiet", "-native-json", out, "-qps", "0", "-c", "1", "-n", "6", srv.url + "/old"},
		nil, io.Discard, &stderr)
	b, _ := os.ReadFile(out)
	var plain report.Result
	_ = json.Unmarshal(b, &plain)
	if code != ExitOK || plain.RetCodes["301"] != 6 {
		t.Fatalf("without -L: exit %d codes %v, want six 301s (%s)", code, plain.RetCodes, stderr.String())
	}
}

func TestLoadCompression(t *testing.T) {
	t.Parallel()
	body := strings.Repeat("compressible ", 400)
	srv := startCounting(t, tcpListener(t), func(w http.ResponseWriter, r *http.Request) {
		if !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			_, _ = io.WriteString(w, body)
			return
		}
		w.Header().Set("Content-Encoding", "gzip")
		zw := gzip.NewWriter(w)
		_, _ = io.WriteString(zw, body)
		_ = zw.Close()
	})
	plain := loadJSON(t, "-qps", "0", "-c", "1", "-n", "5", srv.url+"/")
	zipped := loadJSON(t, "-compression", "-qps", "0", "-c", "1", "-n", "5", srv.url+"/")
	if plain.RetCodes["200"] != 5 || zipped.RetCodes["200"] != 5 || zipped.Errors != 0 {
		t.Fatalf("codes %v and %v, want 5 200s each", plain.RetCodes, zipped.RetCodes)
	}
	if zipped.BytesReceived*4 > plain.BytesReceived || plain.BytesReceived < 5*int64(len(body)) {
		t.Fatalf("received %d bytes with -compression, %d without: want under a quarter", zipped.BytesReceived, plain.BytesReceived)
	}
}

func TestLoadBurst(t *testing.T) {
	t.Parallel()
	srv := startCounting(t, tcpListener(t), nil)
	res := loadJSON(t, "-burst", "5", "-qps", "50", "-c", "5", "-t", "1s", srv.url+"/")
	// 50 qps for 1 s: 50 requests in 10 bursts of 5.
	if res.Count < 45 || res.Count > 50 || res.RetCodes["200"] != res.Count {
		t.Fatalf("count %d codes %v, want 50 (45 at least) 200s", res.Count, res.RetCodes)
	}
}
