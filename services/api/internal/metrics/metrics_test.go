package metrics

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
)

type request struct {
	method, path string
}

func TestMiddlewareCountsByRouteTemplate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		requests  []request
		wantTotal map[string]float64 // barrage_http_requests_total series -> value
		wantCount map[string]float64 // barrage_http_request_duration_seconds_count series -> value
	}{
		{
			name:     "matched routes are labelled by template",
			requests: []request{{"GET", "/runs/1"}, {"GET", "/runs/2?secret=x"}, {"POST", "/runs"}},
			wantTotal: map[string]float64{
				`{code="200",method="GET",route="/runs/:id"}`: 2,
				`{code="201",method="POST",route="/runs"}`:    1,
			},
			wantCount: map[string]float64{
				`{method="GET",route="/runs/:id"}`: 2,
				`{method="POST",route="/runs"}`:    1,
			},
		},
		{
			name:     "unknown paths share the unmatched label",
			requests: []request{{"GET", "/nope"}, {"GET", "/also/not/here"}, {"GET", "/runs/1"}},
			wantTotal: map[string]float64{
				`{code="404",method="GET",route="unmatched"}`: 2,
				`{code="200",method="GET",route="/runs/:id"}`: 1,
			},
			wantCount: map[string]float64{
				`{method="GET",route="unmatched"}`: 2,
				`{method="GET",route="/runs/:id"}`: 1,
			},
		},
		{
			name:     "non-standard methods share one label",
			requests: []request{{"BREW", "/runs"}, {"PURGE", "/runs"}},
			wantTotal: map[string]float64{
				`{code="404",method="OTHER",route="unmatched"}`: 2,
			},
			wantCount: map[string]float64{
				`{method="OTHER",route="unmatched"}`: 2,
			},
		},
		{
			name:      "no requests, no series",
			wantTotal: map[string]float64{},
			wantCount: map[string]float64{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := New(prometheus.NewRegistry(), nil)
			engine := newEngine(m)
			for _, r := range tt.requests {
				engine.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(r.method, r.path, http.NoBody))
			}
			page := scrape(t, m)
			if got := series(page, "barrage_http_requests_total"); !maps.Equal(got, tt.wantTotal) {
				t.Errorf("requests_total = %v, want %v", got, tt.wantTotal)
			}
			if got := series(page, "barrage_http_request_duration_seconds_count"); !maps.Equal(got, tt.wantCount) {
				t.Errorf("request_duration_seconds_count = %v, want %v", got, tt.wantCount)
			}
			if strings.Contains(page, "/nope") || strings.Contains(page, "secret") {
				t.Errorf("a raw path leaked into the labels:\n%s", page)
			}
		})
	}
}

func TestNewRegistersRuntimeCollectors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		db         *sql.DB
		wantDBPool bool
	}{
		{name: "without a database", db: nil, wantDBPool: false},
		{name: "with a database", db: sql.OpenDB(fakeConnector{}), wantDBPool: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.db != nil {
				t.Cleanup(func() { _ = tt.db.Close() })
			}
			page := scrape(t, New(prometheus.NewRegistry(), tt.db))
			if got := series(page, "go_goroutines"); len(got) != 1 {
				t.Errorf("go_goroutines series = %v, want one", got)
			}
			got := series(page, "go_sql_max_open_connections")
			want := map[string]float64{}
			if tt.wantDBPool {
				want[`{db_name="barrage"}`] = 0
			}
			if !maps.Equal(got, want) {
				t.Errorf("go_sql_max_open_connections = %v, want %v", got, want)
			}
		})
	}
}

func TestNewPanicsOnSharedRegistry(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	New(reg, nil)
	defer func() {
		if recover() == nil {
			t.Error("second New on one registry did not panic")
		}
	}()
	New(reg, nil)
}

func TestMethodLabel(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"GET", "GET"}, {"POST", "POST"}, {"DELETE", "DELETE"}, {"OPTIONS", "OPTIONS"},
		{"get", OtherMethod}, {"BREW", OtherMethod}, {"", OtherMethod},
	}
	for _, tt := range tests {
		if got := methodLabel(tt.in); got != tt.want {
			t.Errorf("methodLabel(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// newEngine returns a gin engine with two routes behind m's middleware.
func newEngine(m *Metrics) *gin.Engine {
	gin.SetMode(gin.TestMode)
	r := gin.New()
	r.Use(m.Middleware())
	r.GET("/runs/:id", func(c *gin.Context) { c.String(http.StatusOK, c.Param("id")) })
	r.POST("/runs", func(c *gin.Context) { c.Status(http.StatusCreated) })
	return r
}

// scrape returns the text exposition m's handler serves.
func scrape(tb testing.TB, m *Metrics) string {
	tb.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", http.NoBody))
	if rec.Code != http.StatusOK {
		tb.Fatalf("GET /metrics = %d: %s", rec.Code, rec.Body)
	}
	body, err := io.ReadAll(rec.Body)
	if err != nil {
		tb.Fatal(err)
	}
	return string(body)
}

// series maps the label set of every sample of metric in a text exposition
// page ("" when it has none) to its value.
func series(page, metric string) map[string]float64 {
	out := map[string]float64{}
	for line := range strings.Lines(page) {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), metric)
		if !ok || (rest != "" && rest[0] != '{' && rest[0] != ' ') {
			continue
		}
		i := strings.LastIndexByte(rest, ' ')
		v, err := strconv.ParseFloat(rest[i+1:], 64)
		if err != nil {
			continue
		}
		out[strings.TrimSpace(rest[:i])] = v
	}
	return out
}

// fakeConnector lets sql.OpenDB build a pool without a driver; the stats
// collector never connects.
type fakeConnector struct{}

func (fakeConnector) Connect(context.Context) (driver.Conn, error) {
	return nil, errors.New("fakeConnector does not connect")
}

func (fakeConnector) Driver() driver.Driver { return nil }
