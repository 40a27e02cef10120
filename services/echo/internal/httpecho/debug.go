package httpecho

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// maxDebugBody is how much of the request body /debug reads and summarises.
const maxDebugBody = 64 << 10

// debug answers with a plain-text dump of the request. It honours delay, close and
// header, not status or size.
func (h *Handler) debug(w http.ResponseWriter, r *http.Request) int {
	p, o, err := h.draw(r)
	if err != nil {
		return h.badRequest(w, err)
	}
	if !h.sleep(r, o.Delay) {
		return 499
	}
	h.applyHeaders(w, p, o)
	var b bytes.Buffer
	fmt.Fprintf(&b, "barrage-echo %s up %s on %s, client %s\n\n",
		h.opts.Version, time.Since(h.started).Round(time.Second), h.hostname, r.RemoteAddr)
	fmt.Fprintf(&b, "%s %s %s\n\nheaders:\n\n", r.Method, r.RequestURI, r.Proto)
	fmt.Fprintf(&b, "Host: %s\n", r.Host)
	for _, name := range slices.Sorted(maps.Keys(r.Header)) {
		for _, v := range r.Header[name] {
			fmt.Fprintf(&b, "%s: %s\n", name, v)
		}
	}
	b.WriteString("\nbody:\n\n")
	writeBodySummary(&b, r.Body)
	if r.URL.Query().Get("env") == "dump" {
		h.writeEnv(&b)
	}
	w.Header()["Content-Type"] = h.hv.textPlain
	w.WriteHeader(http.StatusOK)
	n, _ := w.Write(b.Bytes())
	h.opts.Metrics.HTTPResponseBytes.Add(float64(n))
	return http.StatusOK
}

// writeBodySummary prints a short text body as is, and otherwise its size and a
// quoted prefix.
func writeBodySummary(b *bytes.Buffer, body io.Reader) {
	data, err := io.ReadAll(io.LimitReader(body, maxDebugBody+1))
	if err != nil {
		fmt.Fprintf(b, "(error reading body: %v)\n", err)
		return
	}
	// Drain the rest so the connection can be reused; count it in the size.
	rest, _ := io.Copy(io.Discard, body)
	total := int64(len(data)) + rest
	switch {
	case total == 0:
		b.WriteString("(empty)\n")
	case total <= 256 && utf8.Valid(data) && !bytes.ContainsFunc(data, isControl):
		b.Write(data)
		b.WriteString("\n")
	default:
		fmt.Fprintf(b, "%d bytes, starting with %q\n", total, data[:min(len(data), 128)])
	}
}

func isControl(r rune) bool {
	return r < ' ' && r != '\n' && r != '\r' && r != '\t'
}

func (h *Handler) writeEnv(b *bytes.Buffer) {
	b.WriteString("\nenvironment:\n\n")
	if !h.opts.DebugEnv {
		b.WriteString("(disabled; start barrage-echo with -debug-env to allow env=dump)\n")
		return
	}
	env := os.Environ()
	slices.Sort(env)
	b.WriteString(strings.Join(env, "\n"))
	b.WriteString("\n")
}

func hostname() string {
	name, err := os.Hostname()
	if err != nil {
		return "unknown-host"
	}
	return name
}
