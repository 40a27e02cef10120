package httpapi

import (
	"bytes"
	"context"
	"crypto/md5" //nolint:gosec // ETags of Fortio data; not a security use
	"encoding/hex"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/pkg/fortiojson"
	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/export"
)

// FortioDataPath is where the Fortio-compatible results are served:
// index.tsv and <ID>.json, as `fortio report -sync` reads them.
const FortioDataPath = "/fortio/data"

// fortioData serves GET /fortio/data/index.tsv and /fortio/data/<ID>.json.
// Credentials are optional: anonymous callers read the projects that
// publish their results, others also their own; bad credentials are 401.
func fortioData(o Options) gin.HandlerFunc {
	return func(c *gin.Context) {
		c.Header("Access-Control-Allow-Origin", "*")
		p, err := optionalPrincipal(c, o.Services.Auth)
		if err != nil {
			writeProblem(c, o.Log, err)
			return
		}
		ctx := c.Request.Context()
		file := c.Param("file")
		if file == "index.tsv" {
			serveTSV(c, o, p)
			return
		}
		id, ok := strings.CutSuffix(file, ".json")
		if !ok {
			writeProblem(c, o.Log, apperr.New(apperr.NotFound, "no such file: %s (index.tsv and <ID>.json are served)", file))
			return
		}
		body, run, err := o.Services.Export.Document(ctx, p, id)
		var moved *export.MovedError
		if errors.As(err, &moved) {
			c.Redirect(http.StatusFound, moved.ID+".json")
			return
		}
		if err != nil {
			writeProblem(c, o.Log, err)
			return
		}
		serveBytes(c, "application/json", run.EndedAt, body)
	}
}

// optionalPrincipal authenticates the request when it carries credentials.
func optionalPrincipal(c *gin.Context, a *auth.Authenticator) (*auth.Principal, error) {
	authz := c.GetHeader("Authorization")
	cookie, _ := c.Cookie(auth.SessionCookie)
	if authz == "" && cookie == "" {
		return nil, nil
	}
	p, err := a.Authenticate(c.Request.Context(), authz, cookie)
	if err != nil {
		return nil, err //nolint:wrapcheck // a domain error, written as a problem
	}
	return p, nil
}

// serveTSV writes index.tsv: the readable completed runs, newest first,
// optionally of one project (?project=id or slug).
func serveTSV(c *gin.Context, o Options, p *auth.Principal) {
	ctx := c.Request.Context()
	var project uuid.UUID
	if ref := c.Query("project"); ref != "" {
		var err error
		if project, err = o.Services.Export.Project(ctx, p, ref); err != nil {
			writeProblem(c, o.Log, err)
			return
		}
	}
	list, err := o.Services.Export.Index(ctx, p, project)
	if err != nil {
		writeProblem(c, o.Log, err)
		return
	}
	base := baseURL(c.Request, o.BaseURL, fromTrustedProxy(c.Request, o.TrustedProxies)) + FortioDataPath + "/"
	entries := make([]fortiojson.IndexEntry, len(list))
	var newest time.Time
	for i := range list {
		e := &list[i]
		entries[i] = fortiojson.IndexEntry{URL: base + e.ID() + ".json", Size: e.Size, MD5: e.MD5}
		if e.Run.EndedAt.After(newest) {
			newest = e.Run.EndedAt
		}
	}
	var buf bytes.Buffer
	if err := fortiojson.WriteIndex(&buf, entries); err != nil {
		writeProblem(c, o.Log, err)
		return
	}
	serveBytes(c, "text/plain; charset=UTF-8", newest, buf.Bytes())
}

// serveBytes writes body with an ETag (its MD5) and Last-Modified, and
// answers conditional and range requests.
func serveBytes(c *gin.Context, contentType string, modified time.Time, body []byte) {
	sum := md5.Sum(body) //nolint:gosec // see import
	h := c.Writer.Header()
	h.Set("Content-Type", contentType)
	h.Set("ETag", `"`+hex.EncodeToString(sum[:])+`"`)
	h.Set("Cache-Control", "no-cache")
	http.ServeContent(c.Writer, c.Request, "", modified, bytes.NewReader(body))
}

// baseURL is where clients reach this server: the configured base URL, or
// the request's own scheme and host, or the forwarded ones when the request
// came through a trusted proxy (proxied): anyone else could point the
// URLs of index.tsv at a host of their choosing.
func baseURL(r *http.Request, configured string, proxied bool) string {
	if configured != "" {
		return strings.TrimSuffix(configured, "/")
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	host := r.Host
	if !proxied {
		return scheme + "://" + host
	}
	if p := firstValue(r.Header.Get("X-Forwarded-Proto")); p == "http" || p == "https" {
		scheme = p
	}
	if h := firstValue(r.Header.Get("X-Forwarded-Host")); h != "" && !strings.ContainsAny(h, "/ \\@") {
		host = h
	}
	return scheme + "://" + host
}

// firstValue is the first of a comma-separated header's values.
func firstValue(v string) string {
	first, _, _ := strings.Cut(v, ",")
	return strings.TrimSpace(first)
}

// keepRawBody keeps the body of the routes that store documents byte for
// byte in the request's context (rawBodyKey), after the validator and
// before the generated handler decodes it.
func keepRawBody(routes ...string) gin.HandlerFunc {
	keep := map[string]bool{}
	for _, r := range routes {
		keep[r] = true
	}
	return func(c *gin.Context) {
		if !keep[c.Request.Method+" "+c.FullPath()] || c.Request.Body == nil {
			c.Next()
			return
		}
		var buf bytes.Buffer
		if _, err := buf.ReadFrom(c.Request.Body); err != nil {
			c.Error(err) //nolint:errcheck // records only
			c.Abort()
			return
		}
		c.Request.Body.Close() //nolint:gosec // read in full
		c.Request = c.Request.WithContext(context.WithValue(c.Request.Context(), rawBodyKey{}, buf.Bytes()))
		c.Request.Body = readCloser{bytes.NewReader(buf.Bytes())}
		c.Next()
	}
}

// readCloser is a body that needs no closing.
type readCloser struct{ *bytes.Reader }

// Close does nothing.
func (readCloser) Close() error { return nil }
