package httpecho

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	fault "github.com/barrage-dev/barrage/pkg/echofault"
	"github.com/barrage-dev/barrage/services/echo/internal/metrics"
)

func mustHandler(tb testing.TB, opts Options) *Handler {
	tb.Helper()
	if opts.Metrics == nil {
		opts.Metrics = metrics.New()
	}
	if opts.Limits == (fault.Limits{}) {
		opts.Limits = fault.Limits{MaxDelay: 200 * time.Millisecond, MaxPayload: 4096}
	}
	h, err := New(opts)
	if err != nil {
		tb.Fatal(err)
	}
	return h
}

func serve(h http.Handler, method, target, body string, header http.Header) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, target, strings.NewReader(body))
	if body == "" {
		r = httptest.NewRequest(method, target, http.NoBody)
	}
	for k, vs := range header {
		r.Header[k] = vs
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func TestEcho(t *testing.T) {
	t.Parallel()
	h := mustHandler(t, Options{})
	tests := []struct {
		name       string
		method     string
		target     string
		body       string
		header     http.Header
		wantStatus int
		wantBody   string
		wantLen    int // -1: do not check
		wantHeader map[string]string
	}{
		{
			name: "echo body with content type and length", method: "POST", target: "/any/path",
			body: "hello world", header: http.Header{"Content-Type": {"text/x-test"}},
			wantStatus: 200, wantBody: "hello world", wantLen: 11,
			wantHeader: map[string]string{"Content-Type": "text/x-test", "Content-Length": "11"},
		},
		{name: "empty get", method: "GET", target: "/", wantStatus: 200, wantLen: 0},
		{name: "status", method: "GET", target: "/?status=503", wantStatus: 503, wantLen: 0},
		{
			name: "size", method: "GET", target: "/?size=100", wantStatus: 200, wantLen: 100,
			wantHeader: map[string]string{"Content-Type": "application/octet-stream", "Content-Length": "100"},
		},
		{name: "size clamped", method: "GET", target: "/?size=100000", wantStatus: 200, wantLen: 4096},
		{name: "size zero replaces body", method: "POST", target: "/?size=0", body: "dropped", wantStatus: 200, wantLen: 0},
		{
			name: "headers", method: "GET", target: "/?header=X-A:1&header=X-B:two%20words", wantStatus: 200, wantLen: 0,
			wantHeader: map[string]string{"X-A": "1", "X-B": "two words"},
		},
		{name: "close", method: "GET", target: "/?close=true", wantStatus: 200, wantLen: 0, wantHeader: map[string]string{"Connection": "close"}},
		{name: "bad status is 400", method: "GET", target: "/?status=abc", wantStatus: 400, wantLen: -1},
		{name: "status over 100 percent is 400", method: "GET", target: "/?status=503:60,500:60", wantStatus: 400, wantLen: -1},
		{name: "delay over 100 percent is 400", method: "GET", target: "/?delay=1ms:60,2ms:60", wantStatus: 400, wantLen: -1},
		{name: "bad delay ignored", method: "GET", target: "/?delay=soon&status=202", wantStatus: 202, wantLen: 0},
		{name: "debug echo prefix", method: "POST", target: "/debug/echo/x?status=201", body: "abc", wantStatus: 201, wantBody: "abc", wantLen: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := serve(h, tt.method, tt.target, tt.body, tt.header)
			if w.Code != tt.wantStatus {
				t.Fatalf("status = %d, want %d (body %q)", w.Code, tt.wantStatus, w.Body.String())
			}
			if tt.wantBody != "" && w.Body.String() != tt.wantBody {
				t.Errorf("body = %q, want %q", w.Body.String(), tt.wantBody)
			}
			if tt.wantLen >= 0 && w.Body.Len() != tt.wantLen {
				t.Errorf("body length = %d, want %d", w.Body.Len(), tt.wantLen)
			}
			for k, v := range tt.wantHeader {
				if got := w.Header().Get(k); got != v {
					t.Errorf("header %s = %q, want %q", k, got, v)
				}
			}
		})
	}
}

func TestBadStatusNamesParameter(t *testing.T) {
	t.Parallel()
	w := serve(mustHandler(t, Options{}), "GET", "/?status=700", "", nil)
	if w.Code != 400 || !strings.Contains(w.Body.String(), "status") {
		t.Fatalf("got %d %q, want 400 naming status", w.Code, w.Body.String())
	}
}

func TestSizePayloadIsIncompressible(t *testing.T) {
	t.Parallel()
	w := serve(mustHandler(t, Options{}), "GET", "/?size=4096", "", nil)
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	_, _ = zw.Write(w.Body.Bytes())
	_ = zw.Close()
	if z.Len() < 4096 {
		t.Fatalf("4096-byte payload gzips to %d bytes; want incompressible", z.Len())
	}
}

func TestGzip(t *testing.T) {
	t.Parallel()
	h := mustHandler(t, Options{})
	body := strings.Repeat("compress me ", 100)
	w := serve(h, "POST", "/?gzip=true", body, http.Header{"Accept-Encoding": {"gzip, deflate"}})
	if w.Header().Get("Content-Encoding") != "gzip" {
		t.Fatalf("Content-Encoding = %q, want gzip", w.Header().Get("Content-Encoding"))
	}
	if w.Body.Len() >= len(body) {
		t.Fatalf("gzipped body is %d bytes, not smaller than %d", w.Body.Len(), len(body))
	}
	zr, err := gzip.NewReader(w.Body)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(zr)
	if string(got) != body {
		t.Fatalf("gunzipped body differs: %d bytes", len(got))
	}
	// Without Accept-Encoding, or with q=0, the reply is plain.
	for _, ae := range []string{"", "gzip;q=0", "identity"} {
		w = serve(h, "POST", "/?gzip=true", body, http.Header{"Accept-Encoding": {ae}})
		if w.Header().Get("Content-Encoding") != "" || w.Body.String() != body {
			t.Fatalf("Accept-Encoding %q: got Content-Encoding %q", ae, w.Header().Get("Content-Encoding"))
		}
	}
}

func TestDelay(t *testing.T) {
	t.Parallel()
	h := mustHandler(t, Options{})
	start := time.Now()
	w := serve(h, "GET", "/?delay=50ms", "", nil)
	if elapsed := time.Since(start); elapsed < 50*time.Millisecond {
		t.Fatalf("delay=50ms answered after %v", elapsed)
	}
	if w.Code != 200 {
		t.Fatalf("status %d", w.Code)
	}
	// Clamped to MaxDelay (200ms): 10s must not be slept. The lower bound proves the clamp value.
	start = time.Now()
	serve(h, "GET", "/?delay=10s", "", nil)
	if elapsed := time.Since(start); elapsed < 200*time.Millisecond || elapsed > 5*time.Second {
		t.Fatalf("delay=10s with max 200ms answered after %v", elapsed)
	}
}

func TestDefaultParams(t *testing.T) {
	t.Parallel()
	h := mustHandler(t, Options{DefaultParams: "status=418&header=X-Default:yes"})
	w := serve(h, "GET", "/", "", nil)
	if w.Code != 418 || w.Header().Get("X-Default") != "yes" {
		t.Fatalf("no query: got %d %v, want defaults applied", w.Code, w.Header())
	}
	w = serve(h, "GET", "/?status=201", "", nil)
	if w.Code != 201 || w.Header().Get("X-Default") != "" {
		t.Fatalf("with query: got %d %v, want defaults not applied", w.Code, w.Header())
	}
	if _, err := New(Options{Metrics: metrics.New(), DefaultParams: "status=oops"}); err == nil {
		t.Fatal("New accepted malformed default params")
	}
}

func TestDebug(t *testing.T) {
	t.Parallel()
	h := mustHandler(t, Options{Version: "v9.9.9"})
	w := serve(h, "POST", "/debug?header=X-Dbg:1&status=503", "payload text",
		http.Header{"Zeta": {"z"}, "Alpha": {"a"}, "Content-Type": {"text/plain"}})
	body := w.Body.String()
	if w.Code != 200 || w.Header().Get("X-Dbg") != "1" {
		t.Fatalf("debug: status %d header %v; want 200 with X-Dbg (status param not honoured)", w.Code, w.Header())
	}
	lines := strings.Split(body, "\n")
	if !strings.HasPrefix(lines[0], "barrage-echo v9.9.9 up ") || !strings.Contains(lines[0], "client 192.0.2.1:1234") {
		t.Fatalf("first line = %q", lines[0])
	}
	for _, want := range []string{"POST /debug?header=X-Dbg:1&status=503 HTTP/1.1", "Host: example.com", "payload text"} {
		if !strings.Contains(body, want) {
			t.Errorf("debug output lacks %q:\n%s", want, body)
		}
	}
	host, alpha, zeta := strings.Index(body, "Host:"), strings.Index(body, "Alpha:"), strings.Index(body, "Zeta:")
	if host >= alpha || alpha >= zeta {
		t.Errorf("headers not Host first then sorted:\n%s", body)
	}
	big := serve(h, "POST", "/debug", strings.Repeat("\x00\x01", 1000), nil).Body.String()
	if !strings.Contains(big, "2000 bytes, starting with") {
		t.Errorf("binary body not summarised:\n%s", big)
	}
}

func TestDebugEnv(t *testing.T) {
	t.Setenv("BARRAGE_TEST_MARKER", "visible")
	off := serve(mustHandler(t, Options{}), "GET", "/debug?env=dump", "", nil).Body.String()
	if strings.Contains(off, "BARRAGE_TEST_MARKER") || !strings.Contains(off, "disabled") {
		t.Fatalf("env dumped without -debug-env:\n%s", off)
	}
	on := serve(mustHandler(t, Options{DebugEnv: true}), "GET", "/debug?env=dump", "", nil).Body.String()
	if !strings.Contains(on, "BARRAGE_TEST_MARKER=visible") {
		t.Fatalf("env not dumped with -debug-env:\n%s", on)
	}
}

func TestHealthzAndMetrics(t *testing.T) {
	t.Parallel()
	m := metrics.New()
	h := mustHandler(t, Options{Metrics: m})
	if w := serve(h, "GET", "/healthz", "", nil); w.Code != 200 || w.Body.String() != "ok\n" {
		t.Fatalf("healthz: %d %q", w.Code, w.Body.String())
	}
	serve(h, "GET", "/?status=503", "", nil)
	serve(h, "GET", "/?status=503", "", nil)
	serve(h, "POST", "/", "12345", nil)
	serve(h, "GET", "/?delay=xyz", "", nil)
	w := serve(h, "GET", "/metrics", "", nil)
	text := w.Body.String()
	for _, want := range []string{
		`barrage_echo_http_requests_total{code="503"} 2`,
		`barrage_echo_http_requests_total{code="200"} 2`,
		`barrage_echo_http_request_body_bytes_total 5`,
		`barrage_echo_ignored_params_total{param="delay"} 1`,
		`barrage_echo_http_in_flight_requests 0`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
	if got := testutil.ToFloat64(m.HTTPResponseBytes); got != 5 {
		t.Errorf("response bytes = %v, want 5", got)
	}
}

func BenchmarkEchoNoQuery(b *testing.B) {
	h := mustHandler(b, Options{})
	r := httptest.NewRequest("GET", "/", http.NoBody)
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
	}
}

func BenchmarkEchoCachedQuery(b *testing.B) {
	h := mustHandler(b, Options{})
	r := httptest.NewRequest("GET", "/?status=503:10&size=64", http.NoBody)
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
	}
}
