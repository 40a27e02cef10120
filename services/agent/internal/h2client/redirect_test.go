package h2client

import (
	"compress/gzip"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// redirectServer answers /start with 302 to /hop, /hop with 307 to
// /final, /final with 200 "final", and /loop with a redirect to itself.
func redirectServer(tb testing.TB) string {
	tb.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/start", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/hop", http.StatusFound) })
	mux.HandleFunc("/hop", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/final", http.StatusTemporaryRedirect)
	})
	mux.HandleFunc("/final", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("final")) })
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop", http.StatusFound) })
	srv := httptest.NewServer(mux)
	tb.Cleanup(srv.Close)
	return srv.URL
}

func TestFollowRedirects(t *testing.T) {
	t.Parallel()
	base := redirectServer(t)
	tests := []struct {
		name   string
		path   string
		follow bool
		code   int32
	}{
		{"followed to the final answer", "/start", true, 200},
		{"not followed", "/start", false, 302},
		{"too many", "/loop", true, CodeSocketError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := mustClient(t, mustFactory(t, Options{URL: base + tt.path, HTTP1: true, FollowRedirects: tt.follow}), 0)
			for i := range 3 {
				res := c.Do(t.Context())
				if res.Code != tt.code {
					t.Fatalf("request %d: %+v, want code %d", i, res, tt.code)
				}
			}
		})
	}
}

func TestCheckRedirect(t *testing.T) {
	t.Parallel()
	if err := CheckRedirect(false)(nil, nil); !errors.Is(err, http.ErrUseLastResponse) {
		t.Fatalf("without follow: %v, want ErrUseLastResponse", err)
	}
	follow := CheckRedirect(true)
	if err := follow(nil, make([]*http.Request, MaxRedirects-1)); err != nil {
		t.Fatalf("redirect %d: %v", MaxRedirects, err)
	}
	if err := follow(nil, make([]*http.Request, MaxRedirects)); err == nil {
		t.Fatalf("redirect %d was followed", MaxRedirects+1)
	}
}

// gzipServer answers 4 KiB of one letter, gzipped when the request accepts
// gzip, and records the last Accept-Encoding.
func gzipServer(tb testing.TB) (url string, accept func() string) {
	tb.Helper()
	var mu sync.Mutex
	var last string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		last = r.Header.Get("Accept-Encoding")
		mu.Unlock()
		body := strings.Repeat("a", 4096)
		if !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			_, _ = w.Write([]byte(body))
			return
		}
		w.Header().Set("Content-Encoding", "gzip")
		zw := gzip.NewWriter(w)
		_, _ = zw.Write([]byte(body))
		_ = zw.Close()
	}))
	tb.Cleanup(srv.Close)
	return srv.URL, func() string {
		mu.Lock()
		defer mu.Unlock()
		return last
	}
}

func TestCompression(t *testing.T) {
	t.Parallel()
	url, accept := gzipServer(t)
	plain := mustClient(t, mustFactory(t, Options{URL: url, HTTP1: true}), 0).Do(t.Context())
	if accept() != "" {
		t.Fatalf("a request without compression sent Accept-Encoding %q", accept())
	}
	zipped := mustClient(t, mustFactory(t, Options{URL: url, HTTP1: true, Compression: true}), 0).Do(t.Context())
	if accept() != "gzip" {
		t.Fatalf("Accept-Encoding %q, want gzip", accept())
	}
	if plain.Code != 200 || zipped.Code != 200 || plain.Received < 4096 || zipped.Received*4 > plain.Received {
		t.Fatalf("plain %+v, gzip %+v: want 200s, the gzip body counted compressed (under a quarter)", plain, zipped)
	}
}

func TestUnixSocketH2C(t *testing.T) {
	t.Parallel()
	dir, err := os.MkdirTemp("", "brg") // short: sun_path is ~104 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	sock := filepath.Join(dir, "h2.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	s := newTestServer()
	var p http.Protocols
	p.SetUnencryptedHTTP2(true)
	srv := &http.Server{Handler: s, Protocols: &p, ConnState: s.countConns}
	var wg sync.WaitGroup
	wg.Go(func() { _ = srv.Serve(ln) })
	t.Cleanup(func() {
		_ = srv.Close()
		wg.Wait()
	})
	c := mustClient(t, mustFactory(t, Options{URL: "http://app.internal/", H2C: true, UnixSocket: sock}), 0)
	for i := range 3 {
		if res := c.Do(t.Context()); res.Code != 200 {
			t.Fatalf("request %d: %+v", i, res)
		}
	}
	if got := s.lastRequest(); got.proto != "HTTP/2.0" || got.host != "app.internal" {
		t.Fatalf("server saw %+v, want HTTP/2.0 for Host app.internal", got)
	}
	if s.conns.Load() != 1 {
		t.Fatalf("%d connections, want 1", s.conns.Load())
	}
}
