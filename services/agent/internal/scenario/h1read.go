package scenario

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httputil"
	"net/textproto"
	"strconv"
	"syscall"

	spec "github.com/barrage-dev/barrage/pkg/scenario"
)

// maxHeadLine bounds one line of a response head (the status line or a
// header), and maxHeaders the number of header lines.
const (
	maxHeadLine = 64 << 10
	maxHeaders  = 1000
)

// head is what readResponse needs from a response head to frame its body.
type head struct {
	status    int
	length    int64 // -1: none
	chunked   bool
	close     bool // Connection: close, or HTTP/1.0 without keep-alive
	http10    bool
	keepAlive bool // HTTP/1.0 Connection: keep-alive
}

// readResponse reads one response (skipping 1xx interim ones): the head,
// keeping the headers named in keep (and Set-Cookie, returned as cookies),
// and the body into h.body. It reports whether the connection can carry
// another request.
func (h *h1client) readResponse(br *bufio.Reader, headReq bool, keep []string) (*spec.Response, []*http.Cookie, bool, error) {
	clear(h.header)
	var cookies []*http.Cookie
	var hd head
	for first := true; ; first = false {
		var err error
		hd, cookies, err = h.readHead(br, keep, first)
		if err != nil {
			return nil, nil, false, err
		}
		if hd.status >= 200 || hd.status == http.StatusSwitchingProtocols {
			break
		}
		clear(h.header)
	}
	noBody := headReq || hd.status == http.StatusNoContent || hd.status == http.StatusNotModified
	keepAlive := !hd.close && (!hd.http10 || hd.keepAlive)
	var err error
	switch {
	case noBody:
		h.body = h.body[:0]
	case hd.chunked:
		if err = h.readBody(httputil.NewChunkedReader(br), -1); err == nil {
			err = skipTrailers(br)
		}
	case hd.length >= 0:
		err = h.readBody(br, hd.length)
	default:
		err = h.readBody(br, -1) // to the connection's end
		keepAlive = false
	}
	if err != nil {
		return nil, nil, false, err
	}
	var hdr http.Header
	if len(h.header) > 0 {
		hdr = h.header
	}
	return &spec.Response{Status: hd.status, Header: hdr, Body: h.body}, cookies, keepAlive, nil
}

// readHead reads a status line and headers. Before the first byte of the
// first head, a closed connection is errNoResponse.
func (h *h1client) readHead(br *bufio.Reader, keep []string, first bool) (head, []*http.Cookie, error) {
	hd := head{length: -1}
	line, err := readLine(br)
	if err != nil {
		if first && (errors.Is(err, io.EOF) || isReset(err)) {
			return hd, nil, errors.Join(errNoResponse, err)
		}
		return hd, nil, err
	}
	if hd.status, hd.http10, err = statusLine(line); err != nil {
		return hd, nil, err
	}
	var cookies []*http.Cookie
	for n := 0; ; n++ {
		line, err = readLine(br)
		if err != nil {
			return hd, nil, err
		}
		if len(line) == 0 {
			return hd, cookies, nil
		}
		if n == maxHeaders {
			return hd, nil, errors.New("too many response headers")
		}
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok || len(name) == 0 {
			return hd, nil, fmt.Errorf("malformed response header %q", line)
		}
		value = bytes.TrimSpace(value)
		switch {
		case asciiEqualFold(name, "Content-Length"):
			n, err := strconv.ParseInt(string(value), 10, 64)
			if err != nil || n < 0 || (hd.length >= 0 && n != hd.length) {
				return hd, nil, fmt.Errorf("bad Content-Length %q", value)
			}
			hd.length = n
		case asciiEqualFold(name, "Transfer-Encoding"):
			hd.chunked = hasToken(value, "chunked")
		case asciiEqualFold(name, "Connection"):
			hd.close = hd.close || hasToken(value, "close")
			hd.keepAlive = hd.keepAlive || hasToken(value, "keep-alive")
		case asciiEqualFold(name, "Set-Cookie"):
			if c, err := http.ParseSetCookie(string(value)); err == nil {
				cookies = append(cookies, c)
			}
		}
		for _, k := range keep {
			if asciiEqualFold(name, k) {
				key := textproto.CanonicalMIMEHeaderKey(string(name))
				h.header[key] = append(h.header[key], string(value))
				break
			}
		}
	}
}

// statusLine parses "HTTP/1.x NNN reason".
func statusLine(line []byte) (status int, http10 bool, err error) {
	proto, rest, ok := bytes.Cut(line, []byte(" "))
	if !ok || len(rest) < 3 || (len(rest) > 3 && rest[3] != ' ') {
		return 0, false, fmt.Errorf("malformed status line %q", line)
	}
	switch string(proto) {
	case "HTTP/1.1":
	case "HTTP/1.0":
		http10 = true
	default:
		return 0, false, fmt.Errorf("malformed status line %q", line)
	}
	code, err := strconv.Atoi(string(rest[:3]))
	if err != nil || code < 100 || code > 999 {
		return 0, false, fmt.Errorf("malformed status line %q", line)
	}
	return code, http10, nil
}

// readLine reads a line without its CR LF; the slice is valid until the
// next read from br.
func readLine(br *bufio.Reader) ([]byte, error) {
	line, err := br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		long := append([]byte(nil), line...)
		for errors.Is(err, bufio.ErrBufferFull) && len(long) <= maxHeadLine {
			line, err = br.ReadSlice('\n')
			long = append(long, line...)
		}
		if len(long) > maxHeadLine {
			return nil, errors.New("response header line too long")
		}
		line = long
	}
	if err != nil {
		if err == io.EOF && len(line) > 0 {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	line = line[:len(line)-1]
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line, nil
}

// skipTrailers reads the trailer section after a chunked body.
func skipTrailers(br *bufio.Reader) error {
	for {
		line, err := readLine(br)
		if err != nil || len(line) == 0 {
			return err
		}
	}
}

func asciiEqualFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range b {
		x, y := b[i], s[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// hasToken reports whether the comma-separated list v holds token (any case).
func hasToken(v []byte, token string) bool {
	for part := range bytes.SplitSeq(v, []byte(",")) {
		if asciiEqualFold(bytes.TrimSpace(part), token) {
			return true
		}
	}
	return false
}

// isReset reports a connection reset or a write to a closed one.
func isReset(err error) bool {
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}
