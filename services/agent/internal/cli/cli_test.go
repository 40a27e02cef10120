package cli

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/services/agent/internal/report"
)

func TestFlagsToSpec(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		args  []string
		check func(t *testing.T, s spec.Spec)
	}{
		{"fortio defaults", []string{"http://h/"}, func(t *testing.T, s spec.Spec) {
			if s.QPS != 8 || s.Connections != 8 || s.Duration.Std() != 5*time.Second || s.Pacing != spec.PacingOpen {
				t.Fatalf("%+v", s)
			}
		}},
		{"max qps is closed loop", []string{"-qps", "0", "-c", "2", "http://h/"}, func(t *testing.T, s spec.Spec) {
			if s.Pacing != spec.PacingClosed || s.Connections != 2 {
				t.Fatalf("%+v", s)
			}
		}},
		{"exact count", []string{"-n", "100", "http://h/"}, func(t *testing.T, s spec.Spec) {
			if s.Count != 100 || s.Duration != 0 {
				t.Fatalf("%+v", s)
			}
		}},
		{"t 0 runs until stopped", []string{"-t", "0", "http://h/"}, func(t *testing.T, s spec.Spec) {
			if !s.UntilStopped {
				t.Fatalf("%+v", s)
			}
		}},
		{"headers payload method", []string{"-H", "X-A: 1", "-H", "X-B: 2", "-payload", "hi", "-X", "PUT", "http://h/"}, func(t *testing.T, s spec.Spec) {
			if len(s.Headers) != 2 || s.Payload != "hi" || s.Method != "PUT" {
				t.Fatalf("%+v", s)
			}
		}},
		{"grpc ping", []string{"-grpc", "-ping", "-grpc-ping-delay", "5ms", "127.0.0.1:8079"}, func(t *testing.T, s spec.Spec) {
			if s.URL != "grpc://127.0.0.1:8079" || s.GRPC.Mode != spec.GRPCPing || s.GRPC.PingDelay.Std() != 5*time.Millisecond {
				t.Fatalf("%+v %+v", s, s.GRPC)
			}
		}},
		{"grpc streams", []string{"-grpc", "-s", "4", "-c", "2", "127.0.0.1:8079"}, func(t *testing.T, s spec.Spec) {
			if s.GRPC.Mode != spec.GRPCHealth || s.GRPC.Streams != 4 || s.Connections != 2 || s.Streams() != 4 {
				t.Fatalf("%+v %+v", s, s.GRPC)
			}
		}},
		{"grpc method implies grpc", []string{"-grpc-method", "fgrpc.PingServer/Ping", "-payload", `{"seq": 1}`, "127.0.0.1:8079"},
			func(t *testing.T, s spec.Spec) {
				if s.URL != "grpc://127.0.0.1:8079" || s.GRPC.Mode != spec.GRPCMethod || s.GRPC.Method != "fgrpc.PingServer/Ping" ||
					s.Payload != `{"seq": 1}` || s.GRPC.Streams != 1 {
					t.Fatalf("%+v %+v", s, s.GRPC)
				}
			}},
		{"h2 over http is h2c", []string{"-h2", "http://h:1/"}, func(t *testing.T, s spec.Spec) {
			if s.URL != "h2c://h:1/" || !s.HTTP2() {
				t.Fatalf("%+v", s)
			}
		}},
		{"ramp replaces default qps", []string{"-ramp", "10:100:2s", "-t", "3s", "http://h/"}, func(t *testing.T, s spec.Spec) {
			if s.QPS != 0 || s.Ramp == nil || s.Ramp.To != 100 || s.Ramp.Over.Std() != 2*time.Second {
				t.Fatalf("%+v", s)
			}
		}},
		{"stages set the rate and length", []string{"-stages", "100:10s, 200:5s", "http://h/"}, func(t *testing.T, s spec.Spec) {
			want := []spec.Stage{{QPS: 100, Duration: spec.Duration(10 * time.Second)}, {QPS: 200, Duration: spec.Duration(5 * time.Second)}}
			if s.QPS != 0 || !slices.Equal(s.Stages, want) || s.Duration.Std() != 15*time.Second || s.Pacing != spec.PacingOpen {
				t.Fatalf("%+v", s)
			}
		}},
		{"stages with a longer -t", []string{"-stages", "5:1s", "-t", "3s", "http://h/"}, func(t *testing.T, s spec.Spec) {
			if len(s.Stages) != 1 || s.Duration.Std() != 3*time.Second {
				t.Fatalf("%+v", s)
			}
		}},
		{"labels", []string{"-labels", "env=prod,team=core", "http://h/"}, func(t *testing.T, s spec.Spec) {
			if s.Labels["env"] != "prod" || s.Labels["team"] != "core" {
				t.Fatalf("%+v", s.Labels)
			}
		}},
		{"free text label", []string{"-labels", "my run", "http://h/"}, func(t *testing.T, s spec.Spec) {
			if s.Labels["title"] != "my run" {
				t.Fatalf("%+v", s.Labels)
			}
		}},
		{"percentiles", []string{"-p", "50, 99.99", "http://h/"}, func(t *testing.T, s spec.Spec) {
			if len(s.Percentiles) != 2 || s.Percentiles[1] != 99.99 {
				t.Fatalf("%+v", s.Percentiles)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, s, _, err := parseLoad(tt.args, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, s)
		})
	}
}

func TestBadFlagsExit2WithOneLineError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"load", "-bogus"}, "flag provided but not defined: -bogus"},
		{[]string{"load", "-qps", "fast", "http://h/"}, "-qps"},
		{[]string{"load"}, "want exactly one URL"},
		{[]string{"load", "-c", "0", "http://h/"}, "-c 0"},
		{[]string{"load", "-qps", "-5", "http://h/"}, "qps"},
		{[]string{"load", "-format", "xml", "http://h/"}, "-format"},
		{[]string{"load", "-ramp", "1:2", "http://h/"}, "-ramp"},
		{[]string{"load", "-stages", "100:10s,200", "http://h/"}, `-stages "100:10s,200": stage "200"`},
		{[]string{"load", "-stages", "100:10s,-1:1s", "http://h/"}, "stages[1].qps: must be at least 0"},
		{[]string{"load", "-stages", "100:10s", "-t", "5s", "http://h/"}, "stages: last 10s in total"},
		{[]string{"load", "-ping", "http://h/"}, "need -grpc"},
		{[]string{"load", "-s", "2", "http://h/"}, "need -grpc"},
		{[]string{"load", "-grpc", "-s", "0", "h:1"}, "-s 0: need at least 1 stream"},
		{[]string{"load", "-grpc", "-s", "1001", "h:1"}, "grpc.streams: must be from 1 to 1000"},
		{[]string{"load", "-grpc", "-c", "20", "-s", "1000", "h:1"}, "connections × streams"},
		{[]string{"load", "-grpc-method", "fgrpc.PingServer.Ping", "h:1"}, `grpc.method: "fgrpc.PingServer.Ping": want package.Service/Method`},
		{[]string{"load", "-grpc-method", "fgrpc.PingServer/Ping", "-payload", "{seq: 1}", "h:1"}, "payload: must be the request message as a JSON object"},
		{[]string{"load", "-grpc-method", "fgrpc.PingServer/Ping", "-ping", "h:1"}, "does not combine with -ping"},
		{[]string{"load", "-grpc-method", "fgrpc.PingServer/Ping", "-payload-size", "10", "h:1"}, "not -payload-size"},
		{[]string{"load", "ftp://h/"}, "url"},
		{[]string{"load", "-latency-header", "X Time", "http://h/"}, "latency_header"},
		{[]string{"load", "-latency-header", "X-Time", "tcp://h:1"}, "latency_header"},
		{[]string{"load", "-url-file", "/nonexistent/urls.txt"}, "-url-file"},
		{[]string{"load", "-url-file", "/nonexistent/urls.txt", "http://h/"}, "replaces the URL"},
		{[]string{"load", "-url-random", "http://h/"}, "-url-random needs -url-file"},
		{[]string{"load", "http://h/{rand:0}"}, "url: bad template"},
		{[]string{"load", "-record-urls", "urls.txt", "-grpc", "h:1"}, "record_written_urls: only applies to http and https URLs"},
		{[]string{"load", "-record-urls", "urls.txt", "-h2", "https://h/"}, "record_written_urls: is supported on HTTP/1.1 targets only"},
		{[]string{"load", "-record-urls", "/nonexistent/dir/urls.txt", "http://127.0.0.1:9/"}, "-record-urls: open /nonexistent/dir/urls.txt"},
		{[]string{"nosuch"}, "unknown command"},
		{[]string{"load", "-json", "-", "-format", "fortio", "http://h/"}, "both write to stdout"},
		{[]string{"load", "-pacing", "fortio", "-qps", "0", "-n", "0", "-c", "-1", "http://h/"}, "-c -1"},
		{[]string{"serve", "-bogus"}, "flag provided but not defined: -bogus"},
		{[]string{"serve", "-capacity", "0"}, "-capacity 0"},
		{[]string{"serve", "-capacity", "many"}, "-capacity"},
		{[]string{"serve", "-labels", "zone"}, "-labels"},
		{[]string{"serve", "-nats-url", ""}, "-nats-url"},
		{[]string{"serve", "now"}, "unexpected argument"},
	}
	for _, tt := range tests {
		var stderr strings.Builder
		code := Main(context.Background(), append([]string{"barrage-agent"}, tt.args...), nil, io.Discard, &stderr)
		first, _, _ := strings.Cut(stderr.String(), "\n")
		if code != ExitUsage || !strings.Contains(first, tt.want) {
			t.Errorf("%v: exit %d, first line %q; want 2 and %q", tt.args, code, first, tt.want)
		}
	}
}

func TestLoadEndToEnd(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Test") != "yes" {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		_, _ = io.WriteString(w, "ok")
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	native, fortio := filepath.Join(dir, "native.json"), filepath.Join(dir, "fortio.json")
	var stdout, stderr strings.Builder
	// A count, not a duration: how many requests a loaded machine gets out in 1 s is no concern of this test.
	code := Main(context.Background(), []string{"barrage-agent", "load", "-qps", "200", "-c", "2", "-n", "200",
		"-H", "X-Test: yes", "-native-json", native, "-format", "fortio", "-o", fortio, "-labels", "ci run", srv.URL + "/x"}, nil, &stdout, &stderr)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var res report.Result
	mustReadJSON(t, native, &res)
	if res.Count != 200 || res.RetCodes["200"] != res.Count || res.Errors != 0 {
		t.Fatalf("native: count %d codes %v errors %d", res.Count, res.RetCodes, res.Errors)
	}
	if res.Primary != "response" || res.Response.Count != res.Count || res.Response.HDR == "" || len(res.Intervals) == 0 {
		t.Fatalf("native latencies: %+v", res.Response)
	}
	var f map[string]any
	mustReadJSON(t, fortio, &f)
	if f["RunType"] != "HTTP" || f["RequestedQPS"] != "200" || f["Labels"] != "ci run" || f["NumThreads"] != 2.0 {
		t.Fatalf("fortio JSON: %v", f)
	}
	if id, _ := f["ID"].(string); !strings.HasSuffix(id, "_ci_run") {
		t.Fatalf("fortio ID %q", id)
	}
	if !strings.Contains(stderr.String(), "qps") {
		t.Fatalf("no progress lines on stderr: %q", stderr.String())
	}
}

// TestLoadLatencyHeader: -latency-header records what the target reports,
// one sample per response that carries the header, in the native JSON and
// the text summary.
func TestLoadLatencyHeader(t *testing.T) {
	t.Parallel()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if n.Add(1)%2 == 0 {
			w.Header().Set("Server-Timing", "app;dur=1.5")
		}
		_, _ = io.WriteString(w, "ok")
	}))
	t.Cleanup(srv.Close)
	native := filepath.Join(t.TempDir(), "native.json")
	var stdout, stderr strings.Builder
	code := Main(context.Background(), []string{"barrage-agent", "load", "-quiet", "-qps", "0", "-c", "1", "-n", "20",
		"-latency-header", "server-timing", "-native-json", native, srv.URL}, nil, &stdout, &stderr)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var res report.Result
	mustReadJSON(t, native, &res)
	if res.Count != 20 || res.Server == nil || res.Server.Count != 10 || res.Server.Min != 0.0015 || res.Spec.LatencyHeader != "server-timing" {
		t.Fatalf("count %d, server %+v; want 20 requests and 10 server samples of 1.5 ms", res.Count, res.Server)
	}
	if !strings.Contains(stdout.String(), "Server time (reported in server-timing by 10 of 20 responses):") {
		t.Errorf("text summary without the server line:\n%s", stdout.String())
	}
}

// TestLoadURLFileAndTemplates runs `load -url-file` with a templated
// entry: the target sees every listed path in turn, and {seq} numbers the
// requests 1..N.
func TestLoadURLFileAndTemplates(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	hits := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits[r.URL.RequestURI()]++
		mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	file := filepath.Join(t.TempDir(), "urls.txt")
	list := "# reads\n" + srv.URL + "/a\n\n" + srv.URL + "/b?id={seq}\n"
	if err := os.WriteFile(file, []byte(list), 0o600); err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	code := Main(context.Background(), []string{"barrage-agent", "load", "-quiet", "-qps", "0", "-c", "1", "-n", "20", "-url-file", file}, nil, io.Discard, &stderr)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if hits["/a"] != 10 {
		t.Errorf("/a hit %d times, want 10 of 20: %v", hits["/a"], hits)
	}
	// The b entries take the even sequence numbers: 2, 4, ... 20.
	for n := 2; n <= 20; n += 2 {
		if p := "/b?id=" + strconv.Itoa(n); hits[p] != 1 {
			t.Errorf("%s hit %d times, want 1: %v", p, hits[p], hits)
		}
	}
}

// TestLoadFormats: -format csv, prometheus and yaml write the result of a
// real load to stdout in that format.
func TestLoadFormats(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") }))
	t.Cleanup(srv.Close)
	for format, want := range map[string]string{
		"csv":        "histogram,percentile,value_seconds,",
		"prometheus": "barrage_requests_total{code=\"200\"} 20\n",
		"yaml":       "count: 20\n",
	} {
		var stdout, stderr strings.Builder
		code := Main(context.Background(), []string{"barrage-agent", "load", "-quiet", "-qps", "0", "-c", "1", "-n", "20",
			"-format", format, srv.URL}, nil, &stdout, &stderr)
		if code != ExitOK || !strings.Contains(stdout.String(), want) {
			t.Errorf("-format %s: exit %d, output lacks %q:\n%s%s", format, code, want, stdout.String(), stderr.String())
		}
	}
}

func TestAbortOnExits1(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	t.Cleanup(srv.Close)
	var stdout strings.Builder
	code := Main(context.Background(), []string{"barrage-agent", "load", "-quiet", "-qps", "0", "-c", "1", "-t", "20s", "-abort-on", "503", srv.URL}, nil, &stdout, io.Discard)
	if code != ExitFailure || !strings.Contains(stdout.String(), "Aborted on code 503") {
		t.Fatalf("exit %d, output:\n%s", code, stdout.String())
	}
}

func mustReadJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// TestLoadFortioExtras: -payload-size sends POSTs of that many random
// bytes, -user sends basic auth that no output shows, -resolve connects to
// the given IP whatever the URL's host, and -a saves <ID>.json.
func TestLoadFortioExtras(t *testing.T) {
	t.Parallel()
	type seen struct {
		method, auth, host string
		size               int
	}
	var mu sync.Mutex
	var got []seen
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, seen{r.Method, r.Header.Get("Authorization"), r.Host, len(b)})
		mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	dir := t.TempDir()
	var stdout, stderr strings.Builder
	code := Main(context.Background(), []string{"barrage-agent", "load", "-quiet", "-qps", "0", "-c", "1", "-n", "5",
		"-payload-size", "321", "-user", "alice:s3cr3t", "-resolve", "127.0.0.1", "-a", "-data-dir", dir,
		"-labels", "extras", "http://no-such-host.invalid:" + port + "/x"}, nil, &stdout, &stderr)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 5 {
		t.Fatalf("server saw %d requests, want 5", len(got))
	}
	wantAuth := "Basic " + base64.StdEncoding.EncodeToString([]byte("alice:s3cr3t"))
	for _, s := range got {
		if s.method != http.MethodPost || s.size != 321 || s.auth != wantAuth || !strings.HasPrefix(s.host, "no-such-host.invalid:") {
			t.Fatalf("request %+v, want POST of 321 bytes with basic auth to Host no-such-host.invalid", s)
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*_extras.json"))
	if len(files) != 1 {
		t.Fatalf("-a saved %v, want one <ID>.json", files)
	}
	saved, _ := os.ReadFile(files[0])
	for name, out := range map[string]string{"stdout": stdout.String(), "stderr": stderr.String(), "saved": string(saved)} {
		if strings.Contains(out, "s3cr3t") || strings.Contains(out, base64.StdEncoding.EncodeToString([]byte("alice:s3cr3t"))) {
			t.Errorf("%s shows the -user secret", name)
		}
	}
	for _, bad := range [][]string{
		{"-payload-size", "10", "-payload", "x"}, {"-user", "nocolon"}, {"-resolve", "not-an-ip"}, {"-payload-size", "-1"},
	} {
		var errOut strings.Builder
		args := append(append([]string{"barrage-agent", "load"}, bad...), "http://127.0.0.1:1/")
		if code := Main(context.Background(), args, nil, io.Discard, &errOut); code != ExitUsage {
			t.Errorf("%v: exit %d (%s), want %d", bad, code, errOut.String(), ExitUsage)
		}
	}
}
