package httpecho

import (
	"compress/gzip"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"

	fault "github.com/barrage-dev/barrage/pkg/echofault"
)

// headerValues are header values shared by every response (net/http only reads
// them), so the hot path does not allocate them per request.
type headerValues struct {
	textPlain, octetStream, connClose, gzip []string
}

func newHeaderValues() headerValues {
	return headerValues{
		textPlain:   []string{"text/plain; charset=utf-8"},
		octetStream: []string{"application/octet-stream"},
		connClose:   []string{"close"},
		gzip:        []string{"gzip"},
	}
}

// echo answers with the drawn status and either a generated payload or the request body.
func (h *Handler) echo(w http.ResponseWriter, r *http.Request) int {
	p, o, err := h.draw(r)
	if err != nil {
		return h.badRequest(w, err)
	}
	if !h.sleep(r, o.Delay) {
		return 499 // client closed request, as nginx logs it; nothing is written
	}
	h.applyHeaders(w, p, o)
	hdr := w.Header()
	var body io.Reader
	var length int64
	if o.Size >= 0 {
		hdr["Content-Type"] = h.hv.octetStream
		length = int64(o.Size)
	} else {
		if ct, ok := r.Header["Content-Type"]; ok {
			hdr["Content-Type"] = ct
		}
		length = r.ContentLength
		if length != 0 {
			// HTTP/1.x: keep reading the body while the reply is written.
			_ = http.NewResponseController(w).EnableFullDuplex()
			body = r.Body
		}
	}
	if o.Gzip && acceptsGzip(r) {
		return h.writeGzip(w, o, body)
	}
	if length > 0 {
		hdr["Content-Length"] = []string{strconv.FormatInt(length, 10)}
	}
	w.WriteHeader(o.Status)
	h.writeBody(w, o, body)
	return o.Status
}

// writeBody writes the generated payload, or copies body when there is one.
func (h *Handler) writeBody(w io.Writer, o fault.Outcome, body io.Reader) {
	m := h.opts.Metrics
	if o.Size > 0 {
		n, _ := w.Write(h.payload[:o.Size])
		m.HTTPResponseBytes.Add(float64(n))
		return
	}
	if body == nil {
		return
	}
	n, _ := io.Copy(w, body)
	m.HTTPRequestBytes.Add(float64(n))
	m.HTTPResponseBytes.Add(float64(n))
}

// gzipPool recycles compressors: a new gzip.Writer costs hundreds of KiB.
type gzipPool struct{ pool sync.Pool }

func (p *gzipPool) get(w io.Writer) *gzip.Writer {
	zw, ok := p.pool.Get().(*gzip.Writer)
	if !ok {
		return gzip.NewWriter(w)
	}
	zw.Reset(w)
	return zw
}

func (p *gzipPool) put(zw *gzip.Writer) {
	zw.Reset(io.Discard)
	p.pool.Put(zw)
}

func (h *Handler) writeGzip(w http.ResponseWriter, o fault.Outcome, body io.Reader) int {
	w.Header()["Content-Encoding"] = h.hv.gzip
	w.Header().Add("Vary", "Accept-Encoding")
	w.WriteHeader(o.Status)
	zw := h.gzips.get(w)
	h.writeBody(zw, o, body)
	_ = zw.Close()
	h.gzips.put(zw)
	return o.Status
}

// acceptsGzip reports whether Accept-Encoding lists gzip (or *) with a non-zero q.
func acceptsGzip(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept-Encoding") {
		if acceptsGzipList(v) {
			return true
		}
	}
	return false
}

// acceptsGzipList reports whether one Accept-Encoding value accepts gzip.
func acceptsGzipList(v string) bool {
	for part := range strings.SplitSeq(v, ",") {
		coding, params, _ := strings.Cut(part, ";")
		coding = strings.TrimSpace(coding)
		if !strings.EqualFold(coding, "gzip") && coding != "*" {
			continue
		}
		_, q, hasQ := strings.Cut(strings.ReplaceAll(params, " ", ""), "q=")
		if !hasQ {
			return true
		}
		if weight, err := strconv.ParseFloat(q, 64); err == nil && weight > 0 {
			return true
		}
	}
	return false
}

// randomPayload returns n bytes that do not compress, generated once at start.
func randomPayload(n int) []byte {
	b := make([]byte, n)
	_, _ = rand.NewChaCha8([32]byte{'b', 'a', 'r', 'r', 'a', 'g', 'e'}).Read(b)
	return b
}
