package httpapi

import (
	"io/fs"
	"net/http"
	"path"
	"strings"
	"sync"

	"github.com/gin-gonic/gin"
)

// dashboardCSP allows the dashboard's own scripts and styles only; charts set
// inline style attributes, hence 'unsafe-inline' for styles alone.
const dashboardCSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
	"img-src 'self' data: blob:; connect-src 'self'; font-src 'self'; object-src 'none'; " +
	"base-uri 'self'; frame-ancestors 'none'; form-action 'self'"

// dashboard serves the built web UI from files: a file as it is, with a
// year-long immutable cache for Vite's content-hashed assets/, and
// index.html (never cached) for any other extension-less path, so a client
// route survives a reload. It answers false when the request is not its to
// serve: not GET or HEAD, under a reserved prefix, or a missing file with an
// extension. index.html's head announces what the route's first screen
// needs (first_screen.go).
func dashboard(files fs.FS) func(c *gin.Context) bool {
	screens := sync.OnceValue(func() *firstScreens { return loadFirstScreens(files) })
	return func(c *gin.Context) bool {
		r := c.Request
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			return false
		}
		clean := path.Clean("/" + r.URL.Path)
		if reserved(clean) {
			return false
		}
		name := strings.TrimPrefix(clean, "/")
		if st, err := fs.Stat(files, name); name == "" || err != nil || st.IsDir() {
			if path.Ext(name) != "" {
				return false
			}
			name = "index.html"
		}
		if _, err := fs.Stat(files, "index.html"); err != nil {
			return false // a binary built without the dashboard
		}
		h := c.Writer.Header()
		h.Set("Content-Security-Policy", dashboardCSP)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		if strings.HasPrefix(name, "assets/") {
			h.Set("Cache-Control", "public, max-age=31536000, immutable")
		} else {
			h.Set("Cache-Control", "no-cache")
		}
		if name == "index.html" {
			// ServeFileFS would redirect a request for index.html to "./".
			serveIndex(c, files, screens().links(clean))
			return true
		}
		http.ServeFileFS(c.Writer, r, files, name)
		return true
	}
}

// reserved reports whether the cleaned path p is, or is under, one of the
// server's own prefixes: /api, /debug, /metrics, /healthz, /readyz and
// /fortio. A wrong path there is a 404 problem, never the dashboard's page
// with a 200, so that a script or a probe (a pprof or metrics scraper aimed
// at the wrong port) sees its mistake. No client route of the dashboard
// starts with one.
func reserved(p string) bool {
	first, _, _ := strings.Cut(strings.TrimPrefix(p, "/"), "/")
	switch first {
	case "api", "debug", "metrics", "healthz", "readyz", "fortio":
		return true
	}
	return false
}

// serveIndex writes index.html for any client route, links in its head.
func serveIndex(c *gin.Context, files fs.FS, links []byte) {
	body, err := fs.ReadFile(files, "index.html")
	if err != nil {
		c.Status(http.StatusInternalServerError)
		return
	}
	c.Data(http.StatusOK, "text/html; charset=utf-8", withLinks(body, links))
}
