package h2client

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/pkg/version"
)

func TestDo(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		server func(testing.TB) string // returns the base URL
		path   string
		opts   Options
		want   int32
	}{
		{"h2 200", tlsURL(true), "/", Options{Insecure: true}, http.StatusOK},
		{"h2 503", tlsURL(true), "/?status=503", Options{Insecure: true}, http.StatusServiceUnavailable},
		{"h2c 200", h2cURL, "/", Options{H2C: true}, http.StatusOK},
		{"h2c 503", h2cURL, "/?status=503", Options{H2C: true}, http.StatusServiceUnavailable},
		{"h2c post", h2cURL, "/post", Options{H2C: true, Payload: []byte("body")}, http.StatusOK},
		{"h2 unknown authority", tlsURL(true), "/", Options{}, CodeSocketError},
		{"tls server without h2", tlsURL(false), "/", Options{Insecure: true}, CodeSocketError},
		{"h2c to an HTTP/1.1 server", h1URL, "/", Options{H2C: true}, CodeSocketError},
		{"h2 server down", downURL("https"), "/", Options{Insecure: true}, CodeSocketError},
		{"h2c server down", downURL("http"), "/", Options{H2C: true}, CodeSocketError},
		{"h2c timeout", h2cURL, "/block", Options{H2C: true, Timeout: 50 * time.Millisecond}, CodeSocketError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			opts := tt.opts
			opts.URL = tt.server(t) + tt.path
			f := mustFactory(t, opts)
			c := mustClient(t, f, 0)
			for i := range 3 {
				res := c.Do(t.Context())
				ok := tt.want >= 200 && tt.want < 300
				if res.Code != tt.want || res.OK != ok {
					t.Fatalf("request %d: code %s OK %v, want %s %v", i, f.CodeName(res.Code), res.OK, f.CodeName(tt.want), ok)
				}
				if tt.want == CodeSocketError {
					continue
				}
				// At least a status line, the X-Reply header and the body.
				minReceived := int64(len("HTTP/2.0 200 OK\r\nX-Reply: yes\r\n\r\n" + replyBody))
				if res.Sent <= int64(len(opts.Payload)) || res.Received < minReceived {
					t.Errorf("request %d: sent %d received %d, want > %d and >= %d", i, res.Sent, res.Received, len(opts.Payload), minReceived)
				}
			}
		})
	}
}

func tlsURL(h2 bool) func(testing.TB) string {
	return func(tb testing.TB) string { return startTLS(tb, h2).url }
}

func h2cURL(tb testing.TB) string { return startH2C(tb).url }

func h1URL(tb testing.TB) string { return startHTTP1(tb).url }

func downURL(scheme string) func(testing.TB) string {
	return func(tb testing.TB) string { return closedURL(tb, scheme) }
}

func TestRequestIsHTTP2(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		server func(testing.TB) *testServer
		opts   Options
	}{
		{"h2", func(tb testing.TB) *testServer { return startTLS(tb, true) }, Options{Insecure: true}},
		{"h2c", startH2C, Options{H2C: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := tt.server(t)
			opts := tt.opts
			opts.URL = srv.url + "/echo"
			opts.Headers = []Header{{"X-Test", "1"}, {"Host", "example.test"}}
			opts.Payload = []byte("ping body")
			opts.ContentType = "text/plain"
			f := mustFactory(t, opts)
			// Exact: the request head as HTTP/1.1 text plus the body.
			wantSent := int64(len("POST /echo HTTP/2.0\r\n") + len("Host: example.test\r\n") + len("Content-Length: 9\r\n") +
				len("User-Agent: barrage/"+version.String()+"\r\n") + len("X-Test: 1\r\n") +
				len("Content-Type: text/plain\r\n") + len("\r\n") + len("ping body"))
			// Two clients at once (they share the request template), three
			// requests each: two connections.
			var wg sync.WaitGroup
			for conn := range 2 {
				c := mustClient(t, f, conn)
				wg.Go(func() {
					for i := range 3 {
						if res := c.Do(t.Context()); !res.OK || res.Sent != wantSent {
							t.Errorf("client %d request %d: code %d sent %d, want OK and %d", conn, i, res.Code, res.Sent, wantSent)
						}
					}
				})
			}
			wg.Wait()
			want := seen{
				proto: "HTTP/2.0", method: "POST", host: "example.test", body: "ping body", xTest: "1",
				contentType: "text/plain", userAgent: "barrage/" + version.String(),
			}
			if got := srv.lastRequest(); got != want {
				t.Errorf("server saw %+v, want %+v", got, want)
			}
			if n := srv.conns.Load(); n != 2 {
				t.Errorf("server accepted %d connections, want 2 (one per client)", n)
			}
		})
	}
}

func TestCloseInterruptsDo(t *testing.T) {
	t.Parallel()
	srv := startH2C(t)
	f := mustFactory(t, Options{URL: srv.url + "/block", H2C: true, Timeout: time.Minute})
	c := mustClient(t, f, 0)
	done := make(chan int32, 1)
	go func() { done <- c.Do(t.Context()).Code }()
	select {
	case <-srv.got:
	case <-time.After(5 * time.Second):
		t.Fatal("the request did not reach the server")
	}
	if err := c.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	select {
	case code := <-done:
		if code != CodeSocketError {
			t.Errorf("interrupted Do: code %d, want %d", code, CodeSocketError)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not interrupt Do")
	}
	if res := c.Do(t.Context()); res.Code != CodeSocketError || res.Sent != 0 {
		t.Errorf("Do after Close: %+v, want code -1 and nothing sent", res)
	}
}

func TestNewRejects(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{"http without h2c", Options{URL: "http://localhost:1/"}, "h2c"},
		{"https with h2c", Options{URL: "https://localhost:1/", H2C: true}, "h2c"},
		{"scheme", Options{URL: "ftp://localhost:1/"}, "scheme"},
		{"no host", Options{URL: "https:///x"}, "no host"},
		{"bad url", Options{URL: "https://[::1"}, "url"},
		{"header name", Options{URL: "https://localhost/", Headers: []Header{{"X Bad", "1"}}}, "header"},
		{"header value", Options{URL: "https://localhost/", Headers: []Header{{"X-Bad", "1\r\n"}}}, "header"},
		{"method", Options{URL: "https://localhost/", Method: "GET /"}, "method"},
		{"h3 over http1", Options{URL: "https://localhost/", H3: true, HTTP1: true}, "HTTP/3"},
		{"h3 over a socket", Options{URL: "https://localhost/", H3: true, UnixSocket: "/a.sock"}, "unix socket"},
		{"h2c and http1", Options{URL: "http://localhost/", H2C: true, HTTP1: true}, "not both"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := New(tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("New: %v, want an error about %q", err, tt.want)
			}
		})
	}
}

func TestFactory(t *testing.T) {
	t.Parallel()
	f := mustFactory(t, Options{URL: "https://localhost/", Payload: []byte("x")})
	if f.opts.Method != http.MethodPost || f.opts.Timeout != DefaultTimeout {
		t.Errorf("defaults: method %q timeout %v, want POST and %v", f.opts.Method, f.opts.Timeout, DefaultTimeout)
	}
	if got := f.RunType(); got != "HTTP" {
		t.Errorf("RunType %q, want HTTP", got)
	}
	for code, want := range map[int32]string{200: "200", 503: "503", CodeSocketError: "-1"} {
		if got := f.CodeName(code); got != want {
			t.Errorf("CodeName(%d) = %q, want %q", code, got, want)
		}
	}
	h := http.Header{"X-A": {"1", "22"}, "B": {""}}
	// "X-A: 1\r\n" + "X-A: 22\r\n" + "B: \r\n" + "\r\n"
	if got, want := headBytes(h), int64(8+9+5+2); got != want {
		t.Errorf("headBytes = %d, want %d", got, want)
	}
}
