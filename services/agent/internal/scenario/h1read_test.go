package scenario

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"
)

// TestReadResponseFraming: the response parser frames bodies as net/http
// does (Content-Length, chunked with trailers, to the end of the
// connection, none for HEAD, 204 and 304), skips 1xx responses, keeps
// only the headers asked for (any case) and returns every Set-Cookie, and
// says when a connection cannot carry another request.
func TestReadResponseFraming(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, wire string
		head       bool
		status     int
		body       string
		keepAlive  bool
		trace      string
		cookies    int
	}{
		{"length", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nx-TRACE: t1\r\n\r\nhelloNEXT", false, 200, "hello", true, "t1", 0},
		{"chunked", "HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2;ext=1\r\nde\r\n0\r\nTrailer-A: x\r\n\r\nNEXT", false, 201, "abcde", true, "", 0},
		{"to EOF", "HTTP/1.1 200 OK\r\n\r\nall of it", false, 200, "all of it", false, "", 0},
		{"close", "HTTP/1.1 200 OK\r\nConnection: keep-alive, Close\r\nContent-Length: 2\r\n\r\nok", false, 200, "ok", false, "", 0},
		{"1.0", "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok", false, 200, "ok", false, "", 0},
		{"1.0 keep-alive", "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nokNEXT", false, 200, "ok", true, "", 0},
		{"head", "HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\nNEXT", true, 200, "", true, "", 0},
		{"204", "HTTP/1.1 204 No Content\r\n\r\nNEXT", false, 204, "", true, "", 0},
		{"100 then 200", "HTTP/1.1 100 Continue\r\nX-Trace: no\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 1\r\nSet-Cookie: a=1; Path=/\r\nSet-Cookie: b=2\r\n\r\nzNEXT", false, 200, "z", true, "", 2},
		{"LF only", "HTTP/1.1 404 Not Found\nContent-Length: 1\nX-Trace: lf\n\nzNEXT", false, 404, "z", true, "lf", 0},
	}
	for _, c := range cases {
		h := newH1Client(nil, nil, 0)
		br := bufio.NewReaderSize(strings.NewReader(c.wire), 16) // lines longer than the buffer too
		resp, cookies, keepAlive, err := h.readResponse(br, c.head, []string{"x-trace"})
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if resp.Status != c.status || string(resp.Body) != c.body || keepAlive != c.keepAlive || resp.Header.Get("X-Trace") != c.trace ||
			len(cookies) != c.cookies || len(resp.Header) > 1 {
			t.Errorf("%s: status %d body %q keep-alive %v trace %q headers %v cookies %d", c.name, resp.Status, resp.Body, keepAlive,
				resp.Header.Get("X-Trace"), resp.Header, len(cookies))
		}
		if rest, _ := io.ReadAll(br); keepAlive && string(rest) != "NEXT" {
			t.Errorf("%s: left %q for the next response, want NEXT", c.name, rest)
		}
	}
	for _, bad := range []string{
		"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhel",                     // short body
		"HTTP/2 200 OK\r\n\r\n",                                               // not HTTP/1.x
		"HTTP/1.1 2000 OK\r\n\r\n",                                            // status
		"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",                       // length
		"HTTP/1.1 200 OK\r\nno colon\r\n\r\n",                                 // header
		"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab", // two lengths
	} {
		h := newH1Client(nil, nil, 0)
		if _, _, _, err := h.readResponse(bufio.NewReader(strings.NewReader(bad)), false, nil); err == nil || errors.Is(err, errNoResponse) {
			t.Errorf("%q: err %v, want a parse error", bad, err)
		}
	}
	h := newH1Client(nil, nil, 0)
	if _, _, _, err := h.readResponse(bufio.NewReader(strings.NewReader("")), false, nil); !errors.Is(err, errNoResponse) {
		t.Errorf("closed before a response: %v, want errNoResponse (which sends again on a new connection)", err)
	}
}
