package httpapi

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/metrics"
	"github.com/barrage-dev/barrage/services/api/internal/ratelimit"
)

// This file is the HTTP edge: which client address a request comes from,
// the sign-in limiter that runs before any credential is checked, and the
// deadlines of requests that outlive the server's timeouts
// (docs/security.md, "The HTTP edge").

// trustProxies makes r honour X-Forwarded-For and X-Real-IP only from the
// peers in trusted; none by default.
func trustProxies(r *gin.Engine, trusted []netip.Prefix) error {
	list := make([]string, len(trusted))
	for i, p := range trusted {
		list[i] = p.String()
	}
	return r.SetTrustedProxies(list) //nolint:wrapcheck // prefixes are parsed already
}

// fromTrustedProxy reports whether the peer of r is one of trusted, whose
// X-Forwarded-* headers describe the client.
func fromTrustedProxy(r *http.Request, trusted []netip.Prefix) bool {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return false
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return false
	}
	ip = ip.Unmap()
	for _, p := range trusted {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// signinLimits is the sign-in limiter: one token bucket per client
// address and one per email address. A sign-in takes a token from both
// before its password is hashed; a request whose credentials fail takes
// one from its client's bucket, and a client whose bucket is empty is
// refused before its credentials are looked up. A nil limiter limits
// nothing.
type signinLimits struct {
	l *ratelimit.Limiter
}

// refused returns the RateLimited error of a limiter refusal.
func refused(wait time.Duration, what string) error {
	return &apperr.Error{Code: apperr.RateLimited, Detail: "too many " + what + "; try again later", RetryAfter: max(wait, time.Second)}
}

// signIn takes a token for a sign-in to email from client: the client's
// first, so a client over its limit does not spend the email's.
func (g signinLimits) signIn(client, email string) error {
	if g.l == nil {
		return nil
	}
	if ok, wait := g.l.Allow("ip:" + client); !ok {
		return refused(wait, "sign-in attempts from this address")
	}
	if ok, wait := g.l.Allow("email:" + strings.ToLower(strings.TrimSpace(email))); !ok {
		return refused(wait, "sign-in attempts for this email")
	}
	return nil
}

// blocked returns a RateLimited error when client has spent its bucket
// on failures: its credentials are then not looked up.
func (g signinLimits) blocked(client string) error {
	if g.l == nil {
		return nil
	}
	if full, wait := g.l.Empty("ip:" + client); full {
		return refused(wait, "failed authentications from this address")
	}
	return nil
}

// failed spends a token of client's bucket for credentials that failed.
func (g signinLimits) failed(client string) {
	if g.l != nil {
		g.l.Allow("ip:" + client)
	}
}

// deadlinesKey keys a request's *http.ResponseController in its context.
type deadlinesKey struct{}

// keepDeadlines stores the request's ResponseController in its context,
// so that a handler that waits (holdOpen) can move its deadlines.
func keepDeadlines(c *gin.Context) {
	rc := http.NewResponseController(c.Writer)
	c.Request = c.Request.WithContext(context.WithValue(c.Request.Context(), deadlinesKey{}, rc))
	c.Next()
}

// holdOpen lets the request of ctx run for d more than the server's
// timeouts: its read deadline is cleared (the server's read of the next
// request would otherwise end it) and its write deadline moved to now +
// d + write. Servers that cannot (tests' recorders) ignore it.
func holdOpen(ctx context.Context, d, write time.Duration) {
	rc, ok := ctx.Value(deadlinesKey{}).(*http.ResponseController)
	if !ok {
		return
	}
	_ = rc.SetReadDeadline(time.Time{})
	if write > 0 {
		_ = rc.SetWriteDeadline(time.Now().Add(d + write))
	}
}

// MetricsHandler serves the Prometheus metrics of m; with a token it asks
// for "Authorization: Bearer <token>" and answers 401 otherwise. It is
// mounted at /metrics of the API's listener, or alone on
// BARRAGE_METRICS_LISTEN.
func MetricsHandler(m *metrics.Metrics, token string) http.Handler {
	h := m.Handler()
	if token == "" {
		return h
	}
	want := sha256.Sum256([]byte(token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		scheme, got, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		sum := sha256.Sum256([]byte(strings.TrimSpace(got)))
		if !strings.EqualFold(scheme, "Bearer") || subtle.ConstantTimeCompare(sum[:], want[:]) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="metrics"`)
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(http.StatusUnauthorized)
			_ = json.NewEncoder(w).Encode(Problem{
				Type: ProblemBase + "unauthenticated", Title: "Authentication required", Status: http.StatusUnauthorized,
			}.withDetail("/metrics needs the metrics token: Authorization: Bearer <BARRAGE_METRICS_TOKEN>"))
			return
		}
		h.ServeHTTP(w, r)
	})
}

// withDetail returns p with detail.
func (p Problem) withDetail(detail string) Problem {
	p.Detail = &detail
	return p
}
