package httpapi

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"
)

func TestDashboardServesFilesAndClientRoutes(t *testing.T) {
	files := fstest.MapFS{
		"index.html":           {Data: []byte("<!doctype html><div id=root></div>")},
		"assets/index-ab12.js": {Data: []byte("console.log(1)")},
		"favicon.svg":          {Data: []byte("<svg/>")},
	}
	h, err := NewRouter(Options{Log: slog.New(slog.DiscardHandler), Dashboard: files})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		method, path string
		status       int
		body, ctype  string
		cache        string
	}{
		{"GET", "/", 200, "<!doctype html>", "text/html", "no-cache"},
		{"GET", "/runs/0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", 200, "<!doctype html>", "text/html", "no-cache"},
		{"GET", "/compare?ids=a,b", 200, "<!doctype html>", "text/html", "no-cache"},
		{"GET", "/index.html", 200, "<!doctype html>", "text/html", "no-cache"},
		{"GET", "/assets/index-ab12.js", 200, "console.log(1)", "javascript", "public, max-age=31536000, immutable"},
		{"HEAD", "/favicon.svg", 200, "", "image/svg+xml", "no-cache"},
		{"GET", "/assets/index-old.js", 404, "problems/not-found", "application/problem+json", ""},
		{"GET", "/api/v1/nothing", 404, "no such endpoint", "application/problem+json", ""},
		{"GET", "/api", 404, "no such endpoint", "application/problem+json", ""},
		{"GET", "/debug/pprof/", 404, "no such endpoint", "application/problem+json", ""},
		{"GET", "/debug", 404, "no such endpoint", "application/problem+json", ""},
		{"GET", "/metrics/extra", 404, "no such endpoint", "application/problem+json", ""},
		{"GET", "/healthz/x", 404, "no such endpoint", "application/problem+json", ""},
		{"GET", "/fortio/browse", 404, "no such endpoint", "application/problem+json", ""},
		{"GET", "/debugger", 200, "<!doctype html>", "text/html", "no-cache"}, // a prefix of a word is no reserved path
		{"POST", "/runs", 404, "no such endpoint", "application/problem+json", ""},
		{"GET", "/assets/../../go.mod", 404, "problems/not-found", "application/problem+json", ""},
		{"GET", "/../../etc/passwd", 200, "<!doctype html>", "text/html", "no-cache"}, // cleaned to a client route
	}
	for _, tc := range cases {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(tc.method, tc.path, http.NoBody))
		body, _ := io.ReadAll(rec.Body)
		if rec.Code != tc.status || !strings.Contains(string(body), tc.body) ||
			!strings.Contains(rec.Header().Get("Content-Type"), tc.ctype) || rec.Header().Get("Cache-Control") != tc.cache {
			t.Errorf("%s %s: %d %q type %q cache %q; want %d containing %q, type %q, cache %q", tc.method, tc.path,
				rec.Code, body, rec.Header().Get("Content-Type"), rec.Header().Get("Cache-Control"), tc.status, tc.body, tc.ctype, tc.cache)
		}
		if tc.status == 200 && !strings.Contains(rec.Header().Get("Content-Security-Policy"), "default-src 'self'") {
			t.Errorf("%s %s: no CSP", tc.method, tc.path)
		}
	}
}

func TestDashboardAbsentWhenNotBuilt(t *testing.T) {
	h, err := NewRouter(Options{Log: slog.New(slog.DiscardHandler), Dashboard: fstest.MapFS{".gitkeep": {}}})
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/runs", http.NoBody))
	if rec.Code != http.StatusNotFound || !strings.Contains(rec.Header().Get("Content-Type"), "problem+json") {
		t.Errorf("GET /runs without a built dashboard: %d %s", rec.Code, rec.Header().Get("Content-Type"))
	}
}
