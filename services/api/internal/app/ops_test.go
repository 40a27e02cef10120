package app

import (
	"bufio"
	"bytes"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/google/uuid"
)

func TestOpsEndpoints(t *testing.T) {
	t.Parallel()
	e := startAPI(t)
	tests := []struct {
		path     string
		wantBody string
	}{
		{"/healthz", `{"status":"ok"}`},
		{"/readyz", `{"status":"ready"}`},
	}
	for _, tt := range tests {
		t.Run("GET "+tt.path, func(t *testing.T) {
			t.Parallel()
			status, header, raw := e.do(t, http.MethodGet, tt.path, "", nil)
			if status != http.StatusOK || string(raw) != tt.wantBody {
				t.Errorf("GET %s = %d %s, want 200 %s", tt.path, status, raw, tt.wantBody)
			}
			if ct := header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("Content-Type = %q, want application/json", ct)
			}
		})
	}
}

func TestMetricsCountRequestsByRoute(t *testing.T) {
	t.Parallel()
	e := startAPI(t, "BARRAGE_DB_MAX_CONNS=7")
	for range 3 {
		e.mustDo(t, http.StatusOK, http.MethodGet, "/runs", e.AdminToken, nil)
	}
	e.mustDo(t, http.StatusUnauthorized, http.MethodGet, "/runs", "", nil)
	e.mustDo(t, http.StatusNotFound, http.MethodGet, "/runs/"+uuid.NewString(), e.AdminToken, nil)
	e.mustDo(t, http.StatusNotFound, http.MethodGet, "/no/such/path", "", nil)

	page := string(e.mustDo(t, http.StatusOK, http.MethodGet, "/metrics", "", nil))
	samples := parseSamples(t, page)
	want := map[string]float64{
		`barrage_http_requests_total{code="200",method="GET",route="/api/v1/runs"}`:      3,
		`barrage_http_requests_total{code="401",method="GET",route="/api/v1/runs"}`:      1,
		`barrage_http_requests_total{code="404",method="GET",route="/api/v1/runs/:run"}`: 1,
		`barrage_http_requests_total{code="404",method="GET",route="unmatched"}`:         1,
		`barrage_http_request_duration_seconds_count{method="GET",route="/api/v1/runs"}`: 4,
		`go_sql_max_open_connections{db_name="barrage"}`:                                 7,
	}
	for series, v := range want {
		got, ok := samples[series]
		if !ok {
			t.Errorf("/metrics has no %s", series)
			continue
		}
		if got != v {
			t.Errorf("%s = %v, want %v", series, got, v)
		}
	}
	for _, prefix := range []string{"go_sql_open_connections", "go_sql_wait_count_total", "go_goroutines", "process_cpu_seconds_total"} {
		if !hasPrefixKey(samples, prefix) {
			t.Errorf("/metrics has no %s series", prefix)
		}
	}
	for series := range samples {
		if strings.Contains(series, "/no/such/path") {
			t.Errorf("/metrics labels a raw path: %s", series)
		}
	}
}

// parseSamples reads the samples of a Prometheus text page: series → value.
func parseSamples(t *testing.T, page string) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	sc := bufio.NewScanner(strings.NewReader(page))
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			t.Fatalf("metrics line %q has no value", line)
		}
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("metrics line %q: %v", line, err)
		}
		out[line[:i]] = v
	}
	return out
}

// hasPrefixKey reports whether a key of m starts with prefix.
func hasPrefixKey(m map[string]float64, prefix string) bool {
	for k := range m {
		if strings.HasPrefix(k, prefix) {
			return true
		}
	}
	return false
}

func TestRequestIDIsEchoed(t *testing.T) {
	t.Parallel()
	e := startAPI(t)
	tests := []struct {
		name   string
		sent   string
		wantID func(string) bool
	}{
		{"a well-formed id is kept", "ci-run.42_abc", func(id string) bool { return id == "ci-run.42_abc" }},
		{"no id gets a generated one", "", func(id string) bool { _, err := uuid.Parse(id); return err == nil }},
		{"a malformed id is replaced", "not a valid id <script>", func(id string) bool { _, err := uuid.Parse(id); return err == nil }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var headers []string
			if tt.sent != "" {
				headers = []string{"X-Request-Id", tt.sent}
			}
			// A problem quotes the id as well: ask for a run that is not there.
			status, header, raw := e.do(t, http.MethodGet, "/runs/"+uuid.NewString(), e.AdminToken, nil, headers...)
			p := wantProblem(t, status, header, raw, http.StatusNotFound, "not-found")
			got := header.Get("X-Request-Id")
			if !tt.wantID(got) {
				t.Errorf("X-Request-Id = %q for %q sent", got, tt.sent)
			}
			if p.RequestId == nil || *p.RequestId != got {
				t.Errorf("problem request_id = %v, want %q", p.RequestId, got)
			}
		})
	}
}

func TestOpenAPIDocumentIsPublic(t *testing.T) {
	t.Parallel()
	e := startAPI(t)
	want, err := os.ReadFile("../../openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	status, header, raw := e.do(t, http.MethodGet, "/openapi.yaml", "", nil)
	if status != http.StatusOK {
		t.Fatalf("GET /openapi.yaml without a token = %d, want 200; body: %.200s", status, raw)
	}
	if ct := header.Get("Content-Type"); ct != "application/yaml" {
		t.Errorf("Content-Type = %q, want application/yaml", ct)
	}
	if !bytes.Equal(raw, want) {
		t.Errorf("GET /openapi.yaml served %d bytes that differ from services/api/openapi.yaml (%d bytes)", len(raw), len(want))
	}
}
