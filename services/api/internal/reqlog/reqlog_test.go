package reqlog

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
)

func TestMiddlewareRequestID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		incoming string // "" sends no header
		keep     bool   // the incoming id is echoed rather than replaced
	}{
		{name: "no header is generated", incoming: "", keep: false},
		{name: "well-formed id is echoed", incoming: "abc-123.X_y", keep: true},
		{name: "one character is echoed", incoming: "a", keep: true},
		{name: "64 characters are echoed", incoming: strings.Repeat("x", 64), keep: true},
		{name: "65 characters are replaced", incoming: strings.Repeat("x", 65), keep: false},
		{name: "spaces are replaced", incoming: "bad id", keep: false},
		{name: "log injection is replaced", incoming: `x" level=ERROR`, keep: false},
		{name: "non-ASCII is replaced", incoming: "idé", keep: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var seen [3]string // FromGin, ID(request context), ID(gin context)
			header := http.Header{}
			if tt.incoming != "" {
				header.Set(Header, tt.incoming)
			}
			rec, lines := serve(t, "/runs/:id", "/runs/7", header, func(c *gin.Context) {
				seen = [3]string{FromGin(c), ID(c.Request.Context()), ID(c)}
				c.Status(http.StatusNoContent)
			})
			got := rec.Header().Get(Header)
			if tt.keep && got != tt.incoming {
				t.Errorf("response id = %q, want the incoming %q", got, tt.incoming)
			}
			if !tt.keep {
				if u, err := uuid.Parse(got); err != nil || u.Version() != 4 || u.String() != got {
					t.Errorf("response id = %q, want a generated uuid v4 string (err %v)", got, err)
				}
			}
			if want := [3]string{got, got, got}; seen != want {
				t.Errorf("handler saw ids %q, want %q", seen, want)
			}
			if len(lines) != 1 || lines[0]["request_id"] != got {
				t.Errorf("log lines = %v, want one with request_id %q", lines, got)
			}
		})
	}
}

func TestMiddlewareLogLine(t *testing.T) {
	t.Parallel()
	base := []string{"time", "level", "msg", "request_id", "method", "route", "path", "status",
		"duration_ms", "bytes_out", "client_ip"}
	tests := []struct {
		name       string
		route      string // registered route; "" registers none
		target     string
		handler    gin.HandlerFunc
		wantLevel  string
		wantRoute  string
		wantPath   string
		wantStatus float64
		wantBytes  float64
		principal  string // "" expects no principal attribute
	}{
		{
			name: "ok with query string and credentials", route: "/runs/:id", target: "/runs/42?token=secret&x=1",
			handler:   func(c *gin.Context) { c.String(http.StatusOK, "hello") },
			wantLevel: "INFO", wantRoute: "/runs/:id", wantPath: "/runs/42", wantStatus: 200, wantBytes: 5,
		},
		{
			name: "principal stored by a later middleware", route: "/runs", target: "/runs?secret=1",
			handler: func(c *gin.Context) {
				c.Set(PrincipalKey, "user-9")
				c.String(http.StatusCreated, "{}")
			},
			wantLevel: "INFO", wantRoute: "/runs", wantPath: "/runs", wantStatus: 201, wantBytes: 2, principal: "user-9",
		},
		{
			name: "principal of another type is left out", route: "/runs", target: "/runs",
			handler: func(c *gin.Context) {
				c.Set(PrincipalKey, 9)
				c.Status(http.StatusNoContent)
			},
			wantLevel: "INFO", wantRoute: "/runs", wantPath: "/runs", wantStatus: 204, wantBytes: 0,
		},
		{
			name: "client error logs at info", route: "/runs", target: "/runs",
			handler:   func(c *gin.Context) { c.String(http.StatusConflict, "no") },
			wantLevel: "INFO", wantRoute: "/runs", wantPath: "/runs", wantStatus: 409, wantBytes: 2,
		},
		{
			name: "unmatched path", target: "/probe?token=secret",
			wantLevel: "INFO", wantRoute: "unmatched", wantPath: "/probe", wantStatus: 404, wantBytes: 9,
		},
		{
			name: "server error logs at error", route: "/runs/:id", target: "/runs/1",
			handler:   func(c *gin.Context) { c.String(http.StatusInternalServerError, "boom") },
			wantLevel: "ERROR", wantRoute: "/runs/:id", wantPath: "/runs/1", wantStatus: 500, wantBytes: 4,
		},
		{
			name: "unavailable logs at error", route: "/runs", target: "/runs",
			handler:   func(c *gin.Context) { c.Status(http.StatusServiceUnavailable) },
			wantLevel: "ERROR", wantRoute: "/runs", wantPath: "/runs", wantStatus: 503, wantBytes: 0,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			header := http.Header{"Authorization": {"Bearer secret"}, "Cookie": {"barrage_session=secret"}}
			rec, lines := serve(t, tt.route, tt.target, header, tt.handler)
			if len(lines) != 1 {
				t.Fatalf("got %d log lines, want 1: %v", len(lines), lines)
			}
			line := lines[0]
			wantKeys := slices.Clone(base)
			if tt.principal != "" {
				wantKeys = append(wantKeys, "principal")
			}
			if got := slices.Sorted(maps.Keys(line)); !slices.Equal(got, slices.Sorted(slices.Values(wantKeys))) {
				t.Errorf("log keys = %v, want %v", got, slices.Sorted(slices.Values(wantKeys)))
			}
			want := map[string]any{
				"level": tt.wantLevel, "msg": "http request", "request_id": rec.Header().Get(Header),
				"method": http.MethodGet, "route": tt.wantRoute, "path": tt.wantPath, "status": tt.wantStatus,
				"bytes_out": tt.wantBytes, "client_ip": "192.0.2.10",
			}
			if tt.principal != "" {
				want["principal"] = tt.principal
			}
			for k, v := range want {
				if line[k] != v {
					t.Errorf("%s = %v (%T), want %v (%T)", k, line[k], line[k], v, v)
				}
			}
			if d, ok := line["duration_ms"].(float64); !ok || d < 0 {
				t.Errorf("duration_ms = %v, want a non-negative number", line["duration_ms"])
			}
		})
	}
}

func TestMiddlewareNeverLogsSecrets(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	r := newEngine(slog.New(slog.NewJSONHandler(&buf, nil)), "/runs/:id", func(c *gin.Context) {
		c.Set(PrincipalKey, "user-1")
		c.Status(http.StatusInternalServerError)
	})
	for _, target := range []string{"/runs/1?api_key=hunter2", "/nothing?password=hunter2"} {
		req := httptest.NewRequest(http.MethodGet, target, http.NoBody)
		req.Header.Set("Authorization", "Bearer hunter2")
		req.Header.Set("X-Api-Key", "hunter2")
		r.ServeHTTP(httptest.NewRecorder(), req)
	}
	out := buf.String()
	for _, leak := range []string{"hunter2", "Bearer", "api_key", "password", "Authorization", "X-Api-Key"} {
		if strings.Contains(out, leak) {
			t.Errorf("log output contains %q:\n%s", leak, out)
		}
	}
	if n := strings.Count(out, "\n"); n != 2 {
		t.Errorf("got %d log lines, want 2:\n%s", n, out)
	}
}

func TestMiddlewareNilLogger(t *testing.T) {
	t.Parallel()
	r := newEngine(nil, "/x", func(c *gin.Context) { c.String(http.StatusOK, FromGin(c)) })
	rec := httptest.NewRecorder()
	r.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/x", http.NoBody))
	if id := rec.Header().Get(Header); id == "" || rec.Body.String() != id {
		t.Errorf("id header %q, body %q: want the same non-empty id", id, rec.Body.String())
	}
}

func TestFromGinWithoutMiddleware(t *testing.T) {
	t.Parallel()
	c, _ := gin.CreateTestContext(httptest.NewRecorder())
	if got := FromGin(c); got != "" {
		t.Errorf("FromGin without a request = %q, want empty", got)
	}
	c.Request = httptest.NewRequest(http.MethodGet, "/", http.NoBody)
	if got := FromGin(c); got != "" {
		t.Errorf("FromGin without the middleware = %q, want empty", got)
	}
	if got := ID(c.Request.Context()); got != "" {
		t.Errorf("ID without the middleware = %q, want empty", got)
	}
}

func FuzzValidID(f *testing.F) {
	for _, s := range []string{"", "a", "abc-123.X_y", "bad id", "é", strings.Repeat("z", 65), "\x00"} {
		f.Add(s)
	}
	want := regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)
	f.Fuzz(func(t *testing.T, s string) {
		if got := ValidID(s); got != want.MatchString(s) {
			t.Errorf("ValidID(%q) = %v, want %v", s, got, !got)
		}
	})
}

// serve sends one GET for target with header through Middleware and a
// handler registered at route (none when route is ""), and returns the
// response and the decoded log lines.
func serve(tb testing.TB, route, target string, header http.Header, h gin.HandlerFunc) (*httptest.ResponseRecorder, []map[string]any) {
	tb.Helper()
	var buf bytes.Buffer
	r := newEngine(slog.New(slog.NewJSONHandler(&buf, nil)), route, h)
	req := httptest.NewRequest(http.MethodGet, target, http.NoBody)
	req.RemoteAddr = "192.0.2.10:4321"
	maps.Copy(req.Header, header)
	rec := httptest.NewRecorder()
	r.ServeHTTP(rec, req)

	out := buf.String()
	for _, leak := range []string{"secret", "Bearer", "token", "barrage_session"} {
		if strings.Contains(out, leak) {
			tb.Errorf("log output contains %q:\n%s", leak, out)
		}
	}
	var lines []map[string]any
	dec := json.NewDecoder(&buf)
	for dec.More() {
		var line map[string]any
		if err := dec.Decode(&line); err != nil {
			tb.Fatalf("decode log line: %v", err)
		}
		lines = append(lines, line)
	}
	return rec, lines
}

// newEngine returns a gin engine like barrage-api's: Middleware first,
// context fallback on, a NoRoute handler that writes "not found", and h at
// route unless route is "".
func newEngine(log *slog.Logger, route string, h gin.HandlerFunc) *gin.Engine {
	gin.SetMode(gin.TestMode)
	r := gin.New()
	r.ContextWithFallback = true
	r.Use(Middleware(log))
	r.NoRoute(func(c *gin.Context) { c.String(http.StatusNotFound, "not found") })
	if route != "" {
		r.GET(route, h)
	}
	return r
}
