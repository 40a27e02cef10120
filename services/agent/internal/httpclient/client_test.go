package httpclient

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/services/agent/internal/cannedhttp"
	"github.com/barrage-dev/barrage/services/agent/internal/request"
)

func mustFactory(tb testing.TB, opts Options) *Factory {
	tb.Helper()
	f, err := New(opts)
	if err != nil {
		tb.Fatal(err)
	}
	return f
}

func mustClient(tb testing.TB, f *Factory) request.Client {
	tb.Helper()
	c, err := f.NewClient(context.Background(), 0)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = c.Close() })
	return c
}

// rawServer answers every request on every connection with the bytes reply
// returns for the request's index, and records what it received.
type rawServer struct {
	ln       net.Listener
	accepted atomic.Int64
	mu       sync.Mutex
	got      bytes.Buffer
}

func startRaw(t *testing.T, reply func(i int) (resp string, closeAfter bool)) *rawServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &rawServer{ln: ln}
	var served atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.accepted.Add(1)
			go func() {
				defer c.Close()
				buf := make([]byte, 64<<10)
				for {
					n, err := c.Read(buf)
					if err != nil {
						return
					}
					s.mu.Lock()
					s.got.Write(buf[:n])
					s.mu.Unlock()
					resp, closeAfter := reply(int(served.Add(1) - 1))
					if _, err := io.WriteString(c, resp); err != nil || closeAfter {
						return
					}
				}
			}()
		}
	}()
	t.Cleanup(func() { _ = ln.Close() })
	return s
}

func TestResponseFraming(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		resp       string
		closeAfter bool
		method     string
		wantCode   int32
		wantOK     bool
		wantConns  int64 // connections used by 3 requests
	}{
		{"content-length", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", false, "", 200, true, 1},
		{"chunked with trailers", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;x=y\r\nhello\r\n3\r\nabc\r\n0\r\nX-Trailer: 1\r\n\r\n", false, "", 200, true, 1},
		{"connection close", "HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 2\r\n\r\nno", true, "", 503, false, 3},
		{"read to close", "HTTP/1.1 200 OK\r\n\r\nuntil the end", true, "", 200, true, 3},
		{"http/1.0 closes", "HTTP/1.0 200 OK\r\nContent-Length: 1\r\n\r\nx", true, "", 200, true, 3},
		{"interim 100 skipped", "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n", false, "", 201, true, 1},
		{"no content", "HTTP/1.1 204 No Content\r\n\r\n", false, "", 204, true, 1},
		{"head ignores length", "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n", false, "HEAD", 200, true, 1},
		{"case-insensitive headers", "HTTP/1.1 200 OK\r\ncontent-LENGTH: 3\r\nCONNECTION: Keep-Alive\r\n\r\nabc", false, "", 200, true, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := startRaw(t, func(int) (string, bool) { return tt.resp, tt.closeAfter })
			c := mustClient(t, mustFactory(t, Options{URL: "http://" + srv.ln.Addr().String() + "/", Method: tt.method, Timeout: 5 * time.Second}))
			for i := range 3 {
				res := c.Do(context.Background())
				if res.Code != tt.wantCode || res.OK != tt.wantOK || res.Received != int64(len(tt.resp)) {
					t.Fatalf("request %d: %+v, want code %d ok %v received %d", i, res, tt.wantCode, tt.wantOK, len(tt.resp))
				}
			}
			if got := srv.accepted.Load(); got != tt.wantConns {
				t.Fatalf("3 requests used %d connections, want %d", got, tt.wantConns)
			}
		})
	}
}

// TestLatencyHeader: the latency header is read whatever its case, only
// from the final response (not a 100 Continue), and a response without it
// or with junk in it reports no server time.
func TestLatencyHeader(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, resp string
		want       time.Duration
		ok         bool
	}{
		{"microseconds", "HTTP/1.1 200 OK\r\nx-server-time: 20345\r\nContent-Length: 0\r\n\r\n", 20345 * time.Microsecond, true},
		{"server-timing", "HTTP/1.1 503 No\r\nX-Server-Time: db;dur=3, app;dur=9\r\nContent-Length: 0\r\n\r\n", 3 * time.Millisecond, true},
		{"after interim", "HTTP/1.1 100 Continue\r\nX-Server-Time: 1\r\n\r\nHTTP/1.1 200 OK\r\nX-Server-Time: 7ms\r\nContent-Length: 0\r\n\r\n", 7 * time.Millisecond, true},
		{"missing", "HTTP/1.1 200 OK\r\nX-Other: 5\r\nContent-Length: 0\r\n\r\n", 0, false},
		{"junk", "HTTP/1.1 200 OK\r\nX-Server-Time: soon\r\nContent-Length: 0\r\n\r\n", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := startRaw(t, func(int) (string, bool) { return tt.resp, false })
			c := mustClient(t, mustFactory(t, Options{URL: "http://" + srv.ln.Addr().String() + "/", LatencyHeader: "X-Server-Time"}))
			for i := range 2 {
				if res := c.Do(context.Background()); res.ServerTime != tt.want || res.HasServerTime != tt.ok || res.Code < 200 {
					t.Fatalf("request %d: %+v, want server time %v (%v)", i, res, tt.want, tt.ok)
				}
			}
		})
	}
}

func TestMalformedResponsesAreSocketErrors(t *testing.T) {
	t.Parallel()
	for _, resp := range []string{
		"garbage\r\n\r\n",
		"HTTP/1.1 2x0 OK\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: abc\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort",
	} {
		srv := startRaw(t, func(int) (string, bool) { return resp, true })
		c := mustClient(t, mustFactory(t, Options{URL: "http://" + srv.ln.Addr().String() + "/", Timeout: 2 * time.Second}))
		if res := c.Do(context.Background()); res.Code != CodeSocketError || res.OK {
			t.Errorf("%q: %+v, want socket error", resp, res)
		}
	}
}

func TestRequestBytes(t *testing.T) {
	t.Parallel()
	f := mustFactory(t, Options{
		URL:         "http://example.com:8080/path?q=1",
		Headers:     []Header{{"X-A", "1"}, {"User-Agent", "custom"}},
		Payload:     []byte("body"),
		ContentType: "text/plain",
	})
	want := "POST /path?q=1 HTTP/1.1\r\nHost: example.com:8080\r\nX-A: 1\r\nUser-Agent: custom\r\nContent-Type: text/plain\r\nContent-Length: 4\r\n\r\nbody"
	if got := string(f.RequestBytes()); got != want {
		t.Fatalf("request bytes:\n%q\nwant\n%q", got, want)
	}
	get := string(mustFactory(t, Options{URL: "http://h/"}).RequestBytes())
	if !strings.HasPrefix(get, "GET / HTTP/1.1\r\nHost: h\r\nUser-Agent: barrage/") || strings.Contains(get, "Content-Length") {
		t.Fatalf("GET request bytes: %q", get)
	}
	// URL userinfo is sent as basic auth (and kept out of the request
	// line), unless the request has its own Authorization header.
	basic := string(mustFactory(t, Options{URL: "http://user:pa55@h/?x=1"}).RequestBytes())
	if !strings.HasPrefix(basic, "GET /?x=1 HTTP/1.1\r\nHost: h\r\n") || !strings.Contains(basic, "\r\nAuthorization: Basic dXNlcjpwYTU1\r\n") {
		t.Fatalf("request bytes of a URL with userinfo: %q", basic)
	}
	own := string(mustFactory(t, Options{URL: "http://user:pa55@h/", Headers: []Header{{"authorization", "Bearer t"}}}).RequestBytes())
	if strings.Contains(own, "Basic") || !strings.Contains(own, "\r\nauthorization: Bearer t\r\n") {
		t.Fatalf("request bytes with an Authorization header and userinfo: %q", own)
	}
	for _, bad := range []Options{{URL: "ftp://h/"}, {URL: "http:///nohost"}, {URL: "http://h/", Headers: []Header{{"X", "a\r\nInjected: 1"}}}} {
		if _, err := New(bad); err == nil {
			t.Errorf("New(%+v) accepted", bad)
		}
	}
}

func TestAgainstNetHTTP(t *testing.T) {
	t.Parallel()
	var bodies atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		bodies.Add(int64(len(b)))
		if r.URL.Query().Get("big") != "" {
			// Unknown length: net/http chunks it.
			for range 10 {
				_, _ = w.Write(bytes.Repeat([]byte("x"), 10000))
				w.(http.Flusher).Flush()
			}
			return
		}
		w.WriteHeader(http.StatusAccepted)
		_, _ = w.Write(b)
	}))
	t.Cleanup(srv.Close)
	c := mustClient(t, mustFactory(t, Options{URL: srv.URL + "/echo", Payload: []byte("12345")}))
	for range 100 {
		if res := c.Do(context.Background()); res.Code != 202 || !res.OK {
			t.Fatalf("echo: %+v", res)
		}
	}
	if bodies.Load() != 500 {
		t.Fatalf("server read %d body bytes, want 500", bodies.Load())
	}
	big := mustClient(t, mustFactory(t, Options{URL: srv.URL + "/?big=1"}))
	res := big.Do(context.Background())
	if res.Code != 200 || res.Received < 100_000 {
		t.Fatalf("chunked 100 kB: %+v", res)
	}
}

func TestReconnectsAfterServerCloses(t *testing.T) {
	t.Parallel()
	// The server closes every connection after two responses without saying so:
	// the third request on it fails on a stale keep-alive and must be retried.
	srv := startRaw(t, func(i int) (string, bool) {
		return "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", i%2 == 1
	})
	c := mustClient(t, mustFactory(t, Options{URL: "http://" + srv.ln.Addr().String() + "/"}))
	for i := range 10 {
		if res := c.Do(context.Background()); res.Code != 200 {
			t.Fatalf("request %d: %+v", i, res)
		}
	}
	if got := srv.accepted.Load(); got != 5 {
		t.Fatalf("used %d connections, want 5", got)
	}
}

func TestTimeoutAndRefused(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	go func() { // accept and never answer
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { _ = c.Close() })
		}
	}()
	c := mustClient(t, mustFactory(t, Options{URL: "http://" + ln.Addr().String() + "/", Timeout: 50 * time.Millisecond}))
	start := time.Now()
	if res := c.Do(context.Background()); res.Code != CodeSocketError {
		t.Fatalf("silent server: %+v", res)
	}
	if elapsed := time.Since(start); elapsed > 2*time.Second {
		t.Fatalf("timeout of 50ms took %v", elapsed)
	}
	closed, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := closed.Addr().String()
	_ = closed.Close()
	refused := mustClient(t, mustFactory(t, Options{URL: "http://" + addr + "/"}))
	if res := refused.Do(context.Background()); res.Code != CodeSocketError || res.OK {
		t.Fatalf("refused: %+v", res)
	}
}

func TestCloseInterruptsDo(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		c, err := ln.Accept()
		if err == nil {
			t.Cleanup(func() { _ = c.Close() })
		}
	}()
	c := mustClient(t, mustFactory(t, Options{URL: "http://" + ln.Addr().String() + "/", Timeout: time.Minute}))
	done := make(chan request.Result)
	go func() { done <- c.Do(context.Background()) }()
	time.Sleep(50 * time.Millisecond) // let Do block in its read
	_ = c.Close()
	select {
	case res := <-done:
		if res.Code != CodeSocketError {
			t.Fatalf("interrupted Do: %+v", res)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not interrupt Do")
	}
}

func TestDoDoesNotAllocate(t *testing.T) {
	addr := cannedhttp.Serve(t, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-Pad: 1\r\nserver-timing: app;dur=12.5\r\n\r\nhello")
	c := mustClient(t, mustFactory(t, Options{URL: "http://" + addr + "/", Payload: []byte("ping"), LatencyHeader: "Server-Timing"}))
	c.Do(context.Background()) // connect
	allocs := testing.AllocsPerRun(2000, func() {
		if res := c.Do(context.Background()); res.Code != 200 || !res.HasServerTime || res.ServerTime != 12500*time.Microsecond {
			t.Fatalf("%+v", res)
		}
	})
	if allocs != 0 {
		t.Fatalf("Do allocates %.2f times per request, want 0", allocs)
	}
}

func BenchmarkDo(b *testing.B) {
	addr := cannedhttp.Serve(b, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello")
	c := mustClient(b, mustFactory(b, Options{URL: "http://" + addr + "/"}))
	b.ReportAllocs()
	for b.Loop() {
		c.Do(context.Background())
	}
}

// TestTimeoutOnReusedConnectionIsNotRetried: a reused connection whose server
// stops answering is a timeout (-1), not a stale keep-alive to retry: the
// request must not be sent twice nor turn into a success.
func TestTimeoutOnReusedConnectionIsNotRetried(t *testing.T) {
	t.Parallel()
	srv := startRaw(t, func(i int) (string, bool) {
		if i == 0 {
			return "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", false
		}
		time.Sleep(2 * time.Second) // silent past the client's timeout
		return "", true
	})
	c := mustClient(t, mustFactory(t, Options{URL: "http://" + srv.ln.Addr().String() + "/", Timeout: 100 * time.Millisecond}))
	if res := c.Do(context.Background()); res.Code != 200 {
		t.Fatalf("first request: %+v", res)
	}
	res := c.Do(context.Background())
	if res.Code != CodeSocketError || res.OK || res.Sent == 0 {
		t.Fatalf("timed-out request: %+v, want a socket error with its bytes sent", res)
	}
	srv.mu.Lock()
	requests := strings.Count(srv.got.String(), "GET / HTTP/1.1")
	srv.mu.Unlock()
	if requests != 2 {
		t.Fatalf("server received %d requests, want 2 (no retry after a timeout)", requests)
	}
}
