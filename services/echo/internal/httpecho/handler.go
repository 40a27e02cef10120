// Package httpecho is the echo server's HTTP side: the Fortio-compatible echo on
// every unclaimed path with injectable delay, status, size, close, header and gzip,
// the /debug request dump, /healthz and /metrics. It is not a general router.
package httpecho

import (
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/barrage-dev/barrage/pkg/delay"
	fault "github.com/barrage-dev/barrage/pkg/echofault"
	"github.com/barrage-dev/barrage/services/echo/internal/metrics"
	"github.com/barrage-dev/barrage/services/echo/internal/saturation"
)

// Options configure a Handler.
type Options struct {
	// Limits clamp the delay and size a request may ask for.
	Limits fault.Limits
	// DefaultParams is a query string applied to requests that have no query.
	DefaultParams string
	// DebugEnv lets /debug?env=dump print the server's environment.
	DebugEnv bool
	// NoDebug turns /debug off: it is echoed like any other path.
	NoDebug bool
	// TimeHeader, when set, names a response header of echoed requests
	// carrying the handler's own time in microseconds.
	TimeHeader string
	// Version is shown on the first line of /debug.
	Version string
	// Metrics receives per-request counts; required.
	Metrics *metrics.Metrics
	// Logger receives errors; nil means slog.Default().
	Logger *slog.Logger
}

// Handler serves the echo server's HTTP endpoints.
type Handler struct {
	opts Options
	// base is the defaults of -default-params; defaults is what requests
	// without a query get now: base, or a managed profile (SetDefaults).
	base     *fault.Params
	defaults atomic.Pointer[fault.Params]
	cache    paramCache
	payload  []byte
	started  time.Time
	hostname string
	metrics  http.Handler
	log      *slog.Logger
	hv       headerValues
	gzips    gzipPool
	// load tracks the echo and debug requests in flight, for the saturate
	// parameter.
	load *saturation.Tracker
}

// New validates opts and builds a Handler.
func New(opts Options) (*Handler, error) {
	if opts.Metrics == nil {
		return nil, fmt.Errorf("httpecho: Options.Metrics is required")
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	h := &Handler{
		opts:     opts,
		started:  time.Now(),
		hostname: hostname(),
		metrics:  promhttp.HandlerFor(opts.Metrics.Registry, promhttp.HandlerOpts{}),
		log:      opts.Logger,
		payload:  randomPayload(opts.Limits.MaxPayload),
		hv:       newHeaderValues(),
		load:     saturation.NewTracker(),
	}
	h.base = new(fault.Params)
	if opts.DefaultParams != "" {
		q, err := url.ParseQuery(opts.DefaultParams)
		if err != nil {
			return nil, fmt.Errorf("default params %q: %w", opts.DefaultParams, err)
		}
		*h.base, err = fault.ParseQuery(q, opts.Limits)
		if err != nil {
			return nil, fmt.Errorf("default params %q: %w", opts.DefaultParams, err)
		}
		if len(h.base.Ignored) > 0 {
			return nil, fmt.Errorf("default params %q: malformed %v", opts.DefaultParams, h.base.Ignored)
		}
	}
	h.defaults.Store(h.base)
	return h, nil
}

// SetDefaults replaces the parameters of requests without a query by those
// of raw (a managed echo profile); "" restores -default-params. The swap is
// atomic: a request sees the old or the new defaults, never a mix.
func (h *Handler) SetDefaults(raw string) error {
	if raw == "" {
		h.defaults.Store(h.base)
		return nil
	}
	p, err := fault.ParseDefaults(raw, h.opts.Limits)
	if err != nil {
		return fmt.Errorf("echo profile %q: %w", raw, err)
	}
	h.defaults.Store(&p)
	return nil
}

// ServeHTTP routes /healthz, /metrics and /debug, and echoes everything else.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/healthz":
		h.healthz(w)
	case "/metrics":
		h.metrics.ServeHTTP(w, r)
	case "/debug":
		if h.opts.NoDebug {
			h.serveTracked(w, r, h.echo)
			return
		}
		h.serveTracked(w, r, h.debug)
	default:
		h.serveTracked(w, r, h.echo)
	}
}

func (h *Handler) healthz(w http.ResponseWriter) {
	w.Header()["Content-Type"] = h.hv.textPlain
	_, _ = w.Write([]byte("ok\n"))
}

// serveTracked runs serve with the in-flight gauge raised and counts the status it answered.
func (h *Handler) serveTracked(w http.ResponseWriter, r *http.Request, serve func(http.ResponseWriter, *http.Request) int) {
	m := h.opts.Metrics
	m.HTTPInFlight.Inc()
	start := time.Now()
	tracked := h.load.Arrive(start)
	if h.opts.TimeHeader != "" {
		w = &timedWriter{ResponseWriter: w, name: h.opts.TimeHeader, start: start}
	}
	code := serve(w, r)
	h.load.Depart(time.Now(), tracked)
	m.HTTPInFlight.Dec()
	m.HTTPRequest(code)
}

// params returns the request's fault parameters: the defaults when it has no query.
func (h *Handler) params(r *http.Request) (*fault.Params, error) {
	raw := r.URL.RawQuery
	if raw == "" {
		return h.defaults.Load(), nil
	}
	if p := h.cache.get(raw); p != nil {
		return p, nil
	}
	q, err := url.ParseQuery(raw)
	if err != nil {
		// Keep what parsed, as net/http does; only the fault parameters matter here.
		h.log.Debug("query has malformed escapes", slog.String("query", raw), slog.Any("err", err))
	}
	p, err := fault.ParseQuery(q, h.opts.Limits)
	if err != nil {
		return nil, err
	}
	h.cache.put(raw, &p)
	return &p, nil
}

// draw parses the parameters, counts the ignored ones and draws this request's outcome.
func (h *Handler) draw(r *http.Request) (*fault.Params, fault.Outcome, error) {
	p, err := h.params(r)
	if err != nil {
		return nil, fault.Outcome{}, err
	}
	for _, name := range p.Ignored {
		h.opts.Metrics.IgnoredParam(name)
	}
	o := p.Draw(rand.Float64)
	o.Delay = h.saturate(p, o.Delay)
	return p, o, nil
}

// saturate adds the saturate parameter's delay, which depends on the
// average number of requests in flight over the last saturation.Window, to the
// drawn delay d, within the delay limit.
func (h *Handler) saturate(p *fault.Params, d time.Duration) time.Duration {
	if !p.Saturate.Enabled() {
		return d
	}
	return min(d+h.load.Delay(p.Saturate, time.Now(), h.opts.Limits.MaxDelay), h.opts.Limits.MaxDelay)
}

// sleep waits d unless the client goes away first; it reports whether it slept fully.
func (h *Handler) sleep(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	h.opts.Metrics.InjectedDelay("http", d.Seconds())
	return delay.Sleep(r.Context(), d)
}

// badRequest answers 400 with a short text naming the parameter at fault.
func (h *Handler) badRequest(w http.ResponseWriter, err error) int {
	w.Header()["Content-Type"] = h.hv.textPlain
	w.WriteHeader(http.StatusBadRequest)
	_, _ = fmt.Fprintf(w, "bad parameter: %v\n", err)
	return http.StatusBadRequest
}

// applyHeaders adds the requested headers and Connection: close when drawn.
func (h *Handler) applyHeaders(w http.ResponseWriter, p *fault.Params, o fault.Outcome) {
	hdr := w.Header()
	for _, kv := range p.Headers {
		hdr.Add(kv.Name, kv.Value)
	}
	if o.Close {
		hdr["Connection"] = h.hv.connClose
	}
}

// timedWriter sets the time header, the time since start in µs, just
// before the status goes out.
type timedWriter struct {
	http.ResponseWriter
	name    string
	start   time.Time
	written bool
}

func (t *timedWriter) WriteHeader(code int) {
	if !t.written {
		t.written = true
		t.Header().Set(t.name, strconv.FormatInt(time.Since(t.start).Microseconds(), 10))
	}
	t.ResponseWriter.WriteHeader(code)
}

func (t *timedWriter) Write(b []byte) (int, error) {
	if !t.written {
		t.WriteHeader(http.StatusOK)
	}
	return t.ResponseWriter.Write(b) //nolint:wrapcheck // a ResponseWriter's own error
}

// Unwrap lets http.ResponseController reach the connection (full duplex).
func (t *timedWriter) Unwrap() http.ResponseWriter { return t.ResponseWriter }
