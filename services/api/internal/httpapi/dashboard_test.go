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

func TestDashboardAnnouncesFirstScreen(t *testing.T) {
	const run = "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"
	files := fstest.MapFS{
		"index.html": {Data: []byte("<!doctype html><html><head><title>Barrage</title></head><body><div id=root></div></body></html>")},
		"first-screen.json": {Data: []byte(`{"shellReads":["/api/v1/me","/api/v1/auth/methods"],"pages":[
			{"path":"/sign-in","reads":["/api/v1/auth/methods"],"modules":["/assets/sign-in-1.js"]},
			{"path":"/runs/new","reads":["/api/v1/me"],"modules":["/assets/new-run-2.js"]},
			{"path":"/runs/:runId","reads":["/api/v1/me","/api/v1/runs/:runId","/api/v1/runs/:runId/result?format=fortio"],
			 "modules":["/assets/run-3.js","/assets/chart-4.js"],"styles":["/assets/run-5.css"]}]}`)},
	}
	h, err := NewRouter(Options{Log: slog.New(slog.DiscardHandler), Dashboard: files})
	if err != nil {
		t.Fatal(err)
	}
	head := func(path string) string {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, http.NoBody))
		page := rec.Body.String()
		got, _, ok := strings.Cut(page, "</head>")
		if rec.Code != http.StatusOK || !ok || !strings.HasSuffix(page, "<div id=root></div></body></html>") {
			t.Fatalf("GET %s: %d %q", path, rec.Code, page)
		}
		_, links, _ := strings.Cut(got, "<title>Barrage</title>")
		return links
	}
	preload := func(href string) string { return `<link rel="preload" as="fetch" crossorigin href="` + href + "\">\n" }
	module := func(href string) string { return `<link rel="modulepreload" crossorigin href="` + href + "\">\n" }
	style := `<link rel="preload" as="style" crossorigin href="/assets/run-5.css">` + "\n"

	cases := []struct{ path, want string }{
		{"/runs/" + run, module("/assets/run-3.js") + module("/assets/chart-4.js") + style +
			preload("/api/v1/me") + preload("/api/v1/runs/"+run) + preload("/api/v1/runs/"+run+"/result?format=fortio")},
		{"/runs/" + run + "/", module("/assets/run-3.js") + module("/assets/chart-4.js") + style +
			preload("/api/v1/me") + preload("/api/v1/runs/"+run) + preload("/api/v1/runs/"+run+"/result?format=fortio")},
		{"/runs/new", module("/assets/new-run-2.js") + preload("/api/v1/me")},
		{"/sign-in", module("/assets/sign-in-1.js") + preload("/api/v1/auth/methods")},
		// No page: the shell's reads alone. A parameter other than a UUID is no page either.
		{"/", preload("/api/v1/me") + preload("/api/v1/auth/methods")},
		{"/runs/0190A1B2", preload("/api/v1/me") + preload("/api/v1/auth/methods")},
		{`/runs/"><script>x</script>`, preload("/api/v1/me") + preload("/api/v1/auth/methods")},
		{"/runs/" + run + "/extra", preload("/api/v1/me") + preload("/api/v1/auth/methods")},
	}
	for _, tc := range cases {
		if got := head(tc.path); got != tc.want {
			t.Errorf("GET %s: head links\n%s\nwant\n%s", tc.path, got, tc.want)
		}
	}

	// A build without first-screen.json serves index.html as it is.
	delete(files, "first-screen.json")
	h, _ = NewRouter(Options{Log: slog.New(slog.DiscardHandler), Dashboard: files})
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/runs/"+run, http.NoBody))
	if got := rec.Body.String(); got != string(files["index.html"].Data) {
		t.Errorf("without first-screen.json: %q", got)
	}
}
