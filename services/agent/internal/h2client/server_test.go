package h2client

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
)

// replyBody is what the test server answers.
const replyBody = "hello, h2"

// seen is what the test server saw of the last request.
type seen struct {
	proto, method, host, body, xTest, contentType, userAgent string
}

// testServer answers /?status=N with status N (default 200) and replyBody,
// and holds /block until the request is cancelled.
type testServer struct {
	url   string
	conns atomic.Int64  // connections accepted
	got   chan struct{} // signalled (without blocking) when /block is entered

	mu   sync.Mutex
	last seen
}

func newTestServer() *testServer { return &testServer{got: make(chan struct{}, 1)} }

func (s *testServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.last = seen{
		proto: r.Proto, method: r.Method, host: r.Host, body: string(body),
		xTest: r.Header.Get("X-Test"), contentType: r.Header.Get("Content-Type"), userAgent: r.UserAgent(),
	}
	s.mu.Unlock()
	if r.URL.Path == "/block" {
		select {
		case s.got <- struct{}{}:
		default:
		}
		<-r.Context().Done()
		return
	}
	code := http.StatusOK
	if v := r.URL.Query().Get("status"); v != "" {
		code, _ = strconv.Atoi(v)
	}
	w.Header().Set("X-Reply", "yes")
	w.WriteHeader(code)
	_, _ = io.WriteString(w, replyBody)
}

func (s *testServer) lastRequest() seen {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last
}

func (s *testServer) countConns(_ net.Conn, state http.ConnState) {
	if state == http.StateNew {
		s.conns.Add(1)
	}
}

// startTLS starts an https test server, offering h2 when h2 is set.
func startTLS(tb testing.TB, h2 bool) *testServer {
	tb.Helper()
	s := newTestServer()
	srv := httptest.NewUnstartedServer(s)
	srv.EnableHTTP2 = h2
	srv.Config.ConnState = s.countConns
	srv.StartTLS()
	tb.Cleanup(srv.Close)
	s.url = srv.URL
	return s
}

// startH2C starts a cleartext server that speaks only HTTP/2 (h2c with prior knowledge).
func startH2C(tb testing.TB) *testServer {
	tb.Helper()
	s := newTestServer()
	var p http.Protocols
	p.SetUnencryptedHTTP2(true)
	srv := &http.Server{Handler: s, Protocols: &p, ConnState: s.countConns}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("listen: %v", err)
	}
	var wg sync.WaitGroup
	wg.Go(func() { _ = srv.Serve(ln) })
	tb.Cleanup(func() {
		_ = srv.Close()
		wg.Wait()
	})
	s.url = "http://" + ln.Addr().String()
	return s
}

// startHTTP1 starts a cleartext HTTP/1.1-only server.
func startHTTP1(tb testing.TB) *testServer {
	tb.Helper()
	s := newTestServer()
	srv := httptest.NewServer(s)
	tb.Cleanup(srv.Close)
	s.url = srv.URL
	return s
}

// closedURL returns a URL on which nothing listens (it did a moment ago).
func closedURL(tb testing.TB, scheme string) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("listen: %v", err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return scheme + "://" + addr
}

// mustFactory builds a factory or fails the test.
func mustFactory(tb testing.TB, opts Options) *Factory {
	tb.Helper()
	f, err := New(opts)
	if err != nil {
		tb.Fatalf("New: %v", err)
	}
	return f
}

// mustClient opens a client of f, closed when the test ends.
func mustClient(tb testing.TB, f *Factory, conn int) *client {
	tb.Helper()
	c, err := f.NewClient(tb.Context(), conn)
	if err != nil {
		tb.Fatalf("NewClient: %v", err)
	}
	tb.Cleanup(func() { _ = c.Close() })
	cl, ok := c.(*client)
	if !ok {
		tb.Fatalf("NewClient: got %T", c)
	}
	return cl
}
