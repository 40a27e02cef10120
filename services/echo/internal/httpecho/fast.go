package httpecho

import (
	"math/rand/v2"
	"net/url"
	"strconv"
	"time"

	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/fasthttpadaptor"

	"github.com/barrage-dev/barrage/pkg/delay"
	fault "github.com/barrage-dev/barrage/pkg/echofault"
)

// FastHandler returns the HTTP/1.x handler for fasthttp: the echo natively,
// which is what load tests hit, and /healthz, /metrics and /debug through the
// net/http handler. HTTP/2 requests are served by the Handler itself.
func (h *Handler) FastHandler() fasthttp.RequestHandler {
	viaNetHTTP := fasthttpadaptor.NewFastHTTPHandler(h)
	return func(ctx *fasthttp.RequestCtx) {
		switch p := string(ctx.Path()); {
		case p == "/healthz", p == "/metrics", p == "/debug" && !h.opts.NoDebug:
			viaNetHTTP(ctx)
		default:
			m := h.opts.Metrics
			m.HTTPInFlight.Inc()
			tracked := h.load.Arrive(ctx.Time())
			code := h.fastEcho(ctx)
			h.load.Depart(time.Now(), tracked)
			if h.opts.TimeHeader != "" { // the response goes out after this returns
				ctx.Response.Header.Set(h.opts.TimeHeader, strconv.FormatInt(time.Since(ctx.Time()).Microseconds(), 10))
			}
			m.HTTPInFlight.Dec()
			m.HTTPRequest(code)
		}
	}
}

// fastParams returns the request's fault parameters, like params does for net/http.
func (h *Handler) fastParams(ctx *fasthttp.RequestCtx) (*fault.Params, error) {
	raw := ctx.URI().QueryString()
	if len(raw) == 0 {
		return h.defaults.Load(), nil
	}
	if p := h.cache.getBytes(raw); p != nil {
		return p, nil
	}
	q, _ := url.ParseQuery(string(raw)) // keep what parsed, as the net/http side does
	p, err := fault.ParseQuery(q, h.opts.Limits)
	if err != nil {
		return nil, err
	}
	h.cache.put(string(raw), &p)
	return &p, nil
}

// fastEcho is echo for fasthttp; the response goes out after it returns.
func (h *Handler) fastEcho(ctx *fasthttp.RequestCtx) int {
	m := h.opts.Metrics
	p, err := h.fastParams(ctx)
	if err != nil {
		ctx.Response.Header.SetContentType(h.hv.textPlain[0])
		ctx.SetStatusCode(fasthttp.StatusBadRequest)
		ctx.SetBodyString("bad parameter: " + err.Error() + "\n")
		return fasthttp.StatusBadRequest
	}
	for _, name := range p.Ignored {
		m.IgnoredParam(name)
	}
	o := p.Draw(rand.Float64)
	o.Delay = h.saturate(p, o.Delay)
	if o.Delay > 0 {
		m.InjectedDelay("http", o.Delay.Seconds())
		delay.Sleep(ctx, o.Delay)
	}
	resp := &ctx.Response
	for _, kv := range p.Headers {
		resp.Header.Add(kv.Name, kv.Value)
	}
	if o.Close {
		ctx.SetConnectionClose()
	}
	resp.SetStatusCode(o.Status)
	var body []byte
	if o.Size >= 0 {
		resp.Header.SetContentType(h.hv.octetStream[0])
		body = h.payload[:o.Size]
	} else {
		if ct := ctx.Request.Header.ContentType(); len(ct) > 0 {
			resp.Header.SetContentTypeBytes(ct)
		}
		body = ctx.Request.Body()
		m.HTTPRequestBytes.Add(float64(len(body)))
	}
	m.HTTPResponseBytes.Add(float64(len(body)))
	if o.Gzip && acceptsGzipValue(ctx.Request.Header.Peek("Accept-Encoding")) {
		resp.Header.Set("Content-Encoding", "gzip")
		resp.Header.Add("Vary", "Accept-Encoding")
		resp.SetBodyRaw(fasthttp.AppendGzipBytes(nil, body))
		return o.Status
	}
	// Both buffers outlive the handler: the payload is immutable and the request
	// body is kept until the response is written.
	resp.SetBodyRaw(body)
	return o.Status
}

// acceptsGzipValue is acceptsGzip for a raw Accept-Encoding value.
func acceptsGzipValue(v []byte) bool {
	return len(v) > 0 && acceptsGzipList(string(v))
}
