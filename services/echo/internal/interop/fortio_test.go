package interop_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/pkg/fortiotool"
	"github.com/barrage-dev/barrage/pkg/testcert"
	"github.com/barrage-dev/barrage/services/echo/internal/app"
)

// fortioResult is the part of fortio's result JSON these tests read.
type fortioResult struct {
	RunType           string
	ActualQPS         float64
	NumThreads        int
	RetCodes          map[string]int64
	DurationHistogram struct {
		Count       int64
		Percentiles []struct{ Percentile, Value float64 }
	}
}

func (r fortioResult) percentile(p float64) (float64, bool) {
	for _, q := range r.DurationHistogram.Percentiles {
		if q.Percentile == p {
			return q.Value, true
		}
	}
	return 0, false
}

// fortioBin finds the fortio binary or fails the test saying how to get it.
func fortioBin(t *testing.T) string {
	t.Helper()
	p, err := fortiotool.Find()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func startEcho(t *testing.T) *app.App {
	t.Helper()
	return startEchoArgs(t, "-http-addr", "127.0.0.1:0", "-grpc-addr", "127.0.0.1:0",
		"-tcp-addr", "127.0.0.1:0", "-udp-addr", "127.0.0.1:0")
}

// startEchoArgs runs barrage-echo with args until the test ends.
func startEchoArgs(t *testing.T, args ...string) *app.App {
	t.Helper()
	cfg, err := app.ParseConfig(args, nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	a, err := app.New(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("echo Run: %v", err)
		}
	})
	return a
}

// runFortio runs `fortio <args>` with a time bound and returns stdout.
func runFortio(t *testing.T, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, fortioBin(t), args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("fortio %s: %v\nstderr (tail): %s", strings.Join(args, " "), err, tail(stderr.String(), 2000))
	}
	return out
}

// load runs `fortio load ... -json - target` and decodes the result.
func load(t *testing.T, target string, args ...string) fortioResult {
	t.Helper()
	args = append(append([]string{"load"}, args...), "-json", "-", target)
	var res fortioResult
	if err := json.Unmarshal(runFortio(t, args...), &res); err != nil {
		t.Fatalf("fortio JSON: %v", err)
	}
	return res
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

func TestFortioStatusMix(t *testing.T) {
	t.Parallel()
	a := startEcho(t)
	res := load(t, "http://"+a.HTTPAddr()+"/?status=503:50",
		"-qps", "200", "-c", "4", "-t", "2s", "-allow-initial-errors")
	total := res.DurationHistogram.Count
	ok, unavailable := res.RetCodes["200"], res.RetCodes["503"]
	if total < 300 || ok+unavailable != total || len(res.RetCodes) != 2 {
		t.Fatalf("RetCodes %v over %d requests; want only 200 and 503, about 400 in all", res.RetCodes, total)
	}
	share := float64(unavailable) / float64(total)
	if share < 0.40 || share > 0.60 {
		t.Fatalf("503 share %.3f (%v); want 0.5 ± 0.1", share, res.RetCodes)
	}
}

func TestFortioDelay(t *testing.T) {
	t.Parallel()
	a := startEcho(t)
	res := load(t, "http://"+a.HTTPAddr()+"/?delay=20ms", "-qps", "40", "-c", "2", "-t", "1s", "-p", "50,99")
	p50, ok := res.percentile(50)
	if !ok || p50 < 0.020 {
		t.Fatalf("p50 = %v s (found %v), want >= 0.020 s; result %+v", p50, ok, res)
	}
	if res.RetCodes["200"] != res.DurationHistogram.Count {
		t.Fatalf("RetCodes %v", res.RetCodes)
	}
}

func TestFortioGRPC(t *testing.T) {
	t.Parallel()
	a := startEcho(t)
	tests := []struct {
		name, runType string
		args          []string
	}{
		{"ping", "GRPC Ping", []string{"-grpc", "-ping"}},
		{"ping with delay", "GRPC Ping Delay=5ms", []string{"-grpc", "-ping", "-grpc-ping-delay", "5ms"}},
		{"health", "GRPC Health for ''", []string{"-grpc"}},
		{"health of ping", "GRPC Health for 'ping'", []string{"-grpc", "-healthservice", "ping"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := load(t, a.GRPCAddr(), append(tt.args, "-qps", "50", "-c", "2", "-t", "1s")...)
			if res.RunType != tt.runType {
				t.Errorf("RunType = %q, want %q", res.RunType, tt.runType)
			}
			if res.DurationHistogram.Count < 30 || res.RetCodes["SERVING"] != res.DurationHistogram.Count || len(res.RetCodes) != 1 {
				t.Fatalf("RetCodes %v over %d calls; want all SERVING", res.RetCodes, res.DurationHistogram.Count)
			}
		})
	}
}

// TestFortioGRPCStreams: `fortio load -grpc -c 2 -s 4` makes 8 callers on 2
// connections to barrage-echo, the meaning Barrage's -s copies.
func TestFortioGRPCStreams(t *testing.T) {
	t.Parallel()
	a := startEcho(t)
	res := load(t, a.GRPCAddr(), "-grpc", "-ping", "-c", "2", "-s", "4", "-qps", "0", "-n", "80")
	if res.NumThreads != 8 || res.RetCodes["SERVING"] != res.DurationHistogram.Count || res.DurationHistogram.Count < 80 {
		t.Fatalf("NumThreads %d, codes %v over %d calls; want 8 threads, all SERVING", res.NumThreads, res.RetCodes, res.DurationHistogram.Count)
	}
	if got := metric(t, a, "barrage_echo_grpc_connections_total"); got != 2 {
		t.Errorf("the echo accepted %d gRPC connections, want 2", got)
	}
}

// metric reads one unlabelled counter of the echo's /metrics.
func metric(t *testing.T, a *app.App, name string) int {
	t.Helper()
	resp, err := http.Get("http://" + a.HTTPAddr() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			n, _ := strconv.ParseFloat(v, 64)
			return int(n)
		}
	}
	t.Fatalf("no %s in the echo's metrics", name)
	return 0
}

func TestFortioTCPAndUDP(t *testing.T) {
	t.Parallel()
	a := startEcho(t)
	for _, target := range []string{"tcp://" + a.TCPAddr(), "udp://" + a.UDPAddr()} {
		res := load(t, target, "-qps", "100", "-c", "2", "-t", "1s")
		if res.DurationHistogram.Count < 60 || res.RetCodes["OK"] != res.DurationHistogram.Count || len(res.RetCodes) != 1 {
			t.Fatalf("%s: RetCodes %v over %d requests; want all OK", target, res.RetCodes, res.DurationHistogram.Count)
		}
	}
}

func TestFortioH2(t *testing.T) {
	t.Parallel()
	a := startEcho(t)
	res := load(t, "http://"+a.HTTPAddr()+"/?status=201", "-h2", "-qps", "50", "-c", "2", "-t", "1s")
	if res.DurationHistogram.Count < 30 || res.RetCodes["201"] != res.DurationHistogram.Count {
		t.Fatalf("h2c RetCodes %v over %d", res.RetCodes, res.DurationHistogram.Count)
	}
}

func TestFortioCurlShowsHeader(t *testing.T) {
	t.Parallel()
	a := startEcho(t)
	// fortio curl prints the response headers on stderr and the body on stdout.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, fortioBin(t), "curl", "http://"+a.HTTPAddr()+"/?header=X-Test:hello&size=5").CombinedOutput()
	if err != nil {
		t.Fatalf("fortio curl: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "X-Test: hello") || !strings.Contains(string(out), "HTTP/1.1 200") || !strings.Contains(string(out), "Content-Length: 5") {
		t.Fatalf("fortio curl output lacks the header or status line:\n%s", out)
	}
}

// TestFortioThroughTCPProxy: `fortio load` through barrage-echo's
// -tcp-proxy reaches the HTTP echo behind it: every call answered 200.
func TestFortioThroughTCPProxy(t *testing.T) {
	t.Parallel()
	a := startEcho(t)
	p := startEchoArgs(t, "-http-addr", "", "-grpc-addr", "", "-tcp-addr", "", "-udp-addr", "", "-tcp-proxy", "127.0.0.1:0 "+a.HTTPAddr())
	res := load(t, "http://"+p.TCPProxyAddrs()[0]+"/?delay=1ms", "-qps", "0", "-c", "4", "-n", "400")
	if res.DurationHistogram.Count != 400 || res.RetCodes["200"] != 400 {
		t.Fatalf("through the proxy: %d calls, codes %v; want 400 answered 200", res.DurationHistogram.Count, res.RetCodes)
	}
}

// TestFortioThroughFanOut: `fortio load` through barrage-echo's -multi
// proxy gets the first target's answers, and both targets see every call.
func TestFortioThroughFanOut(t *testing.T) {
	t.Parallel()
	first, second := startEcho(t), startEcho(t)
	p := startEchoArgs(t, "-http-addr", "", "-grpc-addr", "", "-tcp-addr", "", "-udp-addr", "", "-multi", "127.0.0.1:0 http://"+first.HTTPAddr()+" http://"+second.HTTPAddr())
	res := load(t, "http://"+p.MultiAddrs()[0]+"/x?status=202", "-qps", "0", "-c", "2", "-n", "100")
	if res.DurationHistogram.Count != 100 || res.RetCodes["202"] != 100 {
		t.Fatalf("through the fan-out: %d calls, codes %v; want 100 answered 202 (the path and query mirrored)",
			res.DurationHistogram.Count, res.RetCodes)
	}
	for name, a := range map[string]*app.App{"first": first, "second": second} {
		if got := echoed(t, a, "202"); got < 100 {
			t.Errorf("%s target answered %d requests with 202, want 100 (plus fortio's warm-up)", name, got)
		}
	}
}

// echoed reads how many requests the echo answered with code from its
// /metrics.
func echoed(t *testing.T, a *app.App, code string) int {
	t.Helper()
	resp, err := http.Get("http://" + a.HTTPAddr() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "barrage_echo_http_requests_total{") && strings.Contains(line, `code="`+code+`"`) {
			f := strings.Fields(line)
			n, _ := strconv.ParseFloat(f[len(f)-1], 64)
			return int(n)
		}
	}
	return 0
}

// TestFortioGRPCHealthOverTLS: `fortio load -grpc` with a CA certificate
// health-checks barrage-echo's gRPC listener over TLS.
func TestFortioGRPCHealthOverTLS(t *testing.T) {
	t.Parallel()
	cert, key, _ := testcert.Write(t)
	a := startEchoArgs(t, "-http-addr", "", "-grpc-addr", "127.0.0.1:0", "-tcp-addr", "", "-udp-addr", "", "-cert", cert, "-key", key)
	res := load(t, a.GRPCAddr(), "-grpc", "-cacert", cert, "-qps", "0", "-c", "2", "-n", "50")
	if res.DurationHistogram.Count != 50 || res.RetCodes["SERVING"] != 50 {
		t.Fatalf("gRPC health over TLS: %d calls, codes %v; want 50 SERVING", res.DurationHistogram.Count, res.RetCodes)
	}
	// Without the CA, the handshake must fail: the test would pass in clear text otherwise.
	out, _ := exec.Command(fortioBin(t), "load", "-grpc", "-qps", "0", "-c", "1", "-n", "3", "-json", "-", a.GRPCAddr()).Output()
	var plain fortioResult
	_ = json.Unmarshal(out, &plain)
	if plain.RetCodes["SERVING"] != 0 {
		t.Errorf("fortio without TLS got %v from the TLS listener", plain.RetCodes)
	}
}
