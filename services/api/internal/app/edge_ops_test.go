package app

import (
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/services/api/internal/auth"
)

// freeAddr returns a loopback address no one listens on right now.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return addr
}

// TestMetricsToken: with BARRAGE_METRICS_TOKEN, /metrics answers 401
// without it or with another token, and the metrics with it.
func TestMetricsToken(t *testing.T) {
	t.Parallel()
	e := startAPI(t, "BARRAGE_METRICS_TOKEN=metrics-s3cret")
	for _, token := range []string{"", "not-it", e.AdminToken} {
		status, header, raw := e.do(t, http.MethodGet, "/metrics", token, nil)
		wantProblem(t, status, header, raw, http.StatusUnauthorized, "unauthenticated")
		if strings.Contains(string(raw), "# HELP") {
			t.Errorf("a refused /metrics served metrics: %.200s", raw)
		}
	}
	raw := e.mustDo(t, http.StatusOK, http.MethodGet, "/metrics", "metrics-s3cret", nil)
	if !strings.Contains(string(raw), "# HELP") {
		t.Errorf("/metrics with its token: %.200s", raw)
	}
}

// TestMetricsOwnListener: with BARRAGE_METRICS_LISTEN, /metrics is served
// there (with the token, when set) and no longer on the API's address.
func TestMetricsOwnListener(t *testing.T) {
	t.Parallel()
	addr := freeAddr(t)
	e := startAPI(t, "BARRAGE_METRICS_LISTEN="+addr, "BARRAGE_METRICS_TOKEN=metrics-s3cret")
	if _, _, raw := e.do(t, http.MethodGet, "/metrics", "metrics-s3cret", nil); strings.Contains(string(raw), "# HELP") {
		t.Errorf("the API's address still serves /metrics: %.200s", raw)
	}
	get := func(token string) (int, string) {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, "http://"+addr+"/metrics", http.NoBody)
		if err != nil {
			t.Fatal(err)
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	// Run starts the listener; startAPI returns once the API's own listens.
	waitFor(t, 10*time.Second, func() error {
		if status, _ := get("metrics-s3cret"); status != http.StatusOK {
			return errNotYet
		}
		return nil
	})
	if status, body := get("metrics-s3cret"); !strings.Contains(body, "# HELP") {
		t.Errorf("metrics listener: %d %.200s", status, body)
	}
	if status, _ := get(""); status != http.StatusUnauthorized {
		t.Errorf("metrics listener without the token = %d, want 401", status)
	}
}

// TestFortioRESTRefusesTokenInURLByDefault: ?token= is refused (401) unless
// BARRAGE_FORTIO_URL_TOKEN allows it; the Authorization header works.
func TestFortioRESTRefusesTokenInURLByDefault(t *testing.T) {
	t.Parallel()
	e := startAPI(t)
	viewer := e.mustToken(t, "default", auth.Viewer)
	status, header, raw := e.do(t, http.MethodGet, "/fortio/rest/status?token="+viewer, "", nil)
	p := wantProblem(t, status, header, raw, http.StatusUnauthorized, "unauthenticated")
	if p.Detail == nil || !strings.Contains(*p.Detail, "no token in the URL") {
		t.Errorf("detail = %v, want it to say the URL may not carry a token", p.Detail)
	}
	e.mustDo(t, http.StatusOK, http.MethodGet, "/fortio/rest/status", viewer, nil)
	status, header, raw = e.do(t, http.MethodGet, "/fortio/rest/run?url=http://target.test/&token="+viewer, "", nil)
	wantProblem(t, status, header, raw, http.StatusUnauthorized, "unauthenticated")
	if n := e.count(t, "SELECT count(*) FROM runs"); n != 0 {
		t.Errorf("%d runs made through a refused URL token", n)
	}
}

// TestForwardedHostOnlyFromTrustedProxies: index.tsv's URLs follow
// X-Forwarded-Host and -Proto only from a trusted proxy; from anyone else
// they name the host the request was sent to.
func TestForwardedHostOnlyFromTrustedProxies(t *testing.T) {
	t.Parallel()
	e := startAPI(t)
	e.mustDo(t, http.StatusCreated, http.MethodPost, "/imports?project=default", e.AdminToken, fortioDoc(t, "http_duration.json"))
	e.mustDo(t, http.StatusOK, http.MethodPatch, "/projects/default", e.AdminToken, map[string]any{"public_results": true})
	entries := e.indexLines(t, "/fortio/data/index.tsv?project=default", "", "X-Forwarded-Proto", "https", "X-Forwarded-Host", "evil.example")
	if len(entries) != 1 || !strings.HasPrefix(entries[0].URL, e.URL+"/fortio/data/") {
		t.Fatalf("index from an untrusted peer: %+v, want URLs on %s", entries, e.URL)
	}
}

// TestDebugAddrMustBeLoopback: -debug-addr refuses an address other than
// loopback unless forced, by flag or environment.
func TestDebugAddrMustBeLoopback(t *testing.T) {
	t.Parallel()
	base := []string{"DATABASE_URL=postgres://x/y"}
	for _, addr := range []string{":6060", "0.0.0.0:6060", "10.1.2.3:6060"} {
		_, err := ParseConfig([]string{"-debug-addr", addr}, base, io.Discard)
		if err == nil || !strings.Contains(err.Error(), "-debug-addr-force") {
			t.Errorf("-debug-addr %s: %v, want refused naming -debug-addr-force", addr, err)
		}
		if _, err := ParseConfig([]string{"-debug-addr", addr, "-debug-addr-force"}, base, io.Discard); err != nil {
			t.Errorf("-debug-addr %s -debug-addr-force: %v", addr, err)
		}
		if _, err := ParseConfig([]string{"-debug-addr", addr}, append(base, "BARRAGE_DEBUG_ADDR_INSECURE=true"), io.Discard); err != nil {
			t.Errorf("-debug-addr %s with BARRAGE_DEBUG_ADDR_INSECURE: %v", addr, err)
		}
	}
	for _, addr := range []string{"127.0.0.1:6060", "[::1]:6060", "localhost:6060"} {
		if _, err := ParseConfig([]string{"-debug-addr", addr}, base, io.Discard); err != nil {
			t.Errorf("-debug-addr %s: %v", addr, err)
		}
	}
}

// TestEdgeSettingsAreChecked: bad edge settings are refused at start,
// naming the flag.
func TestEdgeSettingsAreChecked(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ env, want string }{
		{"BARRAGE_TRUSTED_PROXIES=10.0.0.0/8,not-a-cidr", "-trusted-proxies"},
		{"BARRAGE_MAX_CONCURRENT_HASHES=0", "-max-concurrent-hashes"},
		{"BARRAGE_STREAMS_PER_RUN=0", "-streams-per-run"},
		{"BARRAGE_HTTP_WRITE_TIMEOUT=-1s", "-http-write-timeout"},
		{"BARRAGE_LOGIN_RATE_LIMIT=-1", "-login-rate-limit"},
		{"BARRAGE_REDACT_BODY=(unclosed", "-redact-body"},
		{"BARRAGE_REDACT_BODY=x*", "-redact-body"},
	} {
		_, err := ParseConfig(nil, []string{"DATABASE_URL=postgres://x/y", tt.env}, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want an error naming %s", tt.env, err, tt.want)
		}
	}
	cfg, err := ParseConfig(nil, []string{"DATABASE_URL=postgres://x/y", "BARRAGE_TRUSTED_PROXIES=10.0.0.0/8, 192.0.2.7"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := cfg.Proxies(); len(p) != 2 || p[1].String() != "192.0.2.7/32" {
		t.Errorf("Proxies() = %v, want 10.0.0.0/8 and 192.0.2.7/32", p)
	}
}
