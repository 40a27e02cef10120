package netguard

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// countingListener counts the connections it accepts.
type countingListener struct {
	net.Listener
	n *atomic.Int64
}

// Accept accepts a connection and counts it.
func (l countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.n.Add(1)
	}
	return c, err
}

// server is an httptest server on 127.0.0.1 that counts accepted
// connections and requests.
type server struct {
	*httptest.Server
	conns, reqs atomic.Int64
}

// newServer starts a server with h (nil answers "ok") and closes it when
// the test ends.
func newServer(t *testing.T, h http.HandlerFunc) *server {
	t.Helper()
	s := &server{}
	if h == nil {
		h = func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") }
	}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.reqs.Add(1)
		h(w, r)
	}))
	s.Listener = countingListener{Listener: s.Listener, n: &s.conns}
	s.Start()
	t.Cleanup(s.Close)
	return s
}

// port returns the server's port.
func (s *server) port(t *testing.T) int {
	t.Helper()
	_, p, err := net.SplitHostPort(s.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.Atoi(p)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// get fetches u with c and returns the body.
func get(t *testing.T, c *http.Client, u string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, http.NoBody)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

// mustRefused returns the *RefusedError in err, failing t when there is none.
func mustRefused(t *testing.T, err error) *RefusedError {
	t.Helper()
	var re *RefusedError
	if !errors.As(err, &re) {
		t.Fatalf("error = %v, want a *RefusedError", err)
	}
	return re
}

// staticLookup resolves names from a map and counts lookups.
type staticLookup struct {
	mu    sync.Mutex
	names map[string][]string
	calls int
}

// lookup is a Guard.Lookup.
func (s *staticLookup) lookup(_ context.Context, host string) ([]netip.Addr, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	var out []netip.Addr
	for _, a := range s.names[host] {
		out = append(out, netip.MustParseAddr(a))
	}
	if len(out) == 0 {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return out, nil
}

func TestDialContextLoopbackServer(t *testing.T) {
	t.Parallel()
	srv := newServer(t, nil)
	ctx := t.Context()
	addr := srv.Listener.Addr().String()

	_, err := Guard{}.DialContext(ctx, "tcp", addr)
	if re := mustRefused(t, err); re.Reason != "loopback address" || re.Host != "127.0.0.1" {
		t.Errorf("refusal = %#v, want a loopback address of host 127.0.0.1", re)
	}
	if _, err := get(t, Guard{}.Client(5*time.Second, 0), srv.URL); mustRefused(t, err).Reason != "loopback address" {
		t.Errorf("client refusal = %v, want a loopback address", err)
	}

	g := Guard{Allow: mustAllow(t, "127.0.0.1")}
	body, err := get(t, g.Client(5*time.Second, 0), srv.URL)
	if err != nil || body != "ok" {
		t.Fatalf("allowed fetch = %q, %v; want ok", body, err)
	}
	// The server answered the allowed request, so it accepted every
	// earlier connection too: the refused dials made none.
	if n := srv.conns.Load(); n != 1 {
		t.Errorf("server accepted %d connections, want 1 (only the allowed fetch)", n)
	}
}

// TestDialReportsConnectToClientTrace: a dial whose context carries an
// httptrace.ClientTrace reports its connect to it (the h2 client times its
// connect phase from those hooks); one without still connects.
func TestDialReportsConnectToClientTrace(t *testing.T) {
	t.Parallel()
	srv := newServer(t, nil)
	addr := srv.Listener.Addr().String()
	g := Guard{Allow: mustAllow(t, "127.0.0.1")}

	var started, done []string
	ctx := httptrace.WithClientTrace(t.Context(), &httptrace.ClientTrace{
		ConnectStart: func(_, a string) { started = append(started, a) },
		ConnectDone: func(_, a string, err error) {
			if err == nil {
				done = append(done, a)
			}
		},
	})
	conn, err := g.DialContext(ctx, "tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	_ = conn.Close()
	if len(started) != 1 || len(done) != 1 || started[0] != addr || done[0] != addr {
		t.Fatalf("ConnectStart %v, ConnectDone %v; want %s once each", started, done, addr)
	}

	conn, err = g.DialContext(t.Context(), "tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	if got := conn.RemoteAddr().String(); got != addr {
		t.Errorf("untraced dial reached %s, want %s", got, addr)
	}
	_ = conn.Close()
}

func TestDialContextResolvedAddresses(t *testing.T) {
	t.Parallel()
	names := &staticLookup{names: map[string][]string{
		"metadata.test": {"169.254.169.254"},
		"mixed.test":    {"8.8.8.8", "127.0.0.1"},
		"mapped.test":   {"::ffff:169.254.169.254"},
		"v6only.test":   {"2001:db8::1"},
	}}
	tests := []struct {
		name   string
		allow  []string
		addr   string
		reason string
	}{
		{name: "name resolving to metadata", addr: "metadata.test:80", reason: "cloud metadata address"},
		{name: "metadata even if allow-listed", allow: []string{"metadata.test", "169.254.169.254"}, addr: "metadata.test:80", reason: "cloud metadata address"},
		{name: "mapped metadata", addr: "mapped.test:80", reason: "cloud metadata address"},
		{name: "one refused address refuses the dial", addr: "mixed.test:80", reason: "loopback address"},
		{name: "IP literal", addr: "[::1]:80", reason: "loopback address"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var dialed atomic.Int64
			g := Guard{Allow: mustAllow(t, tt.allow...), Lookup: names.lookup, Dialer: &net.Dialer{
				Control: func(string, string, syscall.RawConn) error {
					dialed.Add(1)
					return errors.New("test dialer: no connection")
				},
			}}
			_, err := g.DialContext(t.Context(), "tcp", tt.addr)
			if re := mustRefused(t, err); re.Reason != tt.reason {
				t.Errorf("reason = %q, want %q", re.Reason, tt.reason)
			}
			if dialed.Load() != 0 {
				t.Errorf("a refused dial connected %d times", dialed.Load())
			}
		})
	}
	t.Run("no address for the network", func(t *testing.T) {
		t.Parallel()
		_, err := Guard{Lookup: names.lookup}.DialContext(t.Context(), "tcp4", "v6only.test:80")
		if err == nil || errors.As(err, new(*RefusedError)) {
			t.Errorf("error = %v, want a lookup failure", err)
		}
	})
}

// TestDialErrorHidesResolvedAddress: a failed dial of a name does not say
// what the name resolved to; one of an IP literal names the IP as asked.
func TestDialErrorHidesResolvedAddress(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	_ = ln.Close() // a closed port: the dial is refused
	names := &staticLookup{names: map[string][]string{"internal.test": {"127.0.0.1"}}}
	g := Guard{Allow: mustAllow(t, "127.0.0.1", "internal.test"), Lookup: names.lookup}
	_, err = g.DialContext(t.Context(), "tcp", net.JoinHostPort("internal.test", strconv.Itoa(port)))
	if err == nil || strings.Contains(err.Error(), "127.0.0.1") || !strings.Contains(err.Error(), "internal.test") {
		t.Errorf("dial of a name = %v, want an error naming the host and not its address", err)
	}
	_, err = g.DialContext(t.Context(), "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err == nil || !strings.Contains(err.Error(), "127.0.0.1") {
		t.Errorf("dial of an IP = %v, want an error naming it", err)
	}
}

// TestDialContextRebinding resolves a name to a public address and then
// to loopback: each dial looks up once and connects to what it checked.
func TestDialContextRebinding(t *testing.T) {
	t.Parallel()
	srv := newServer(t, nil)
	port := srv.port(t)
	var calls atomic.Int64
	lookup := func(context.Context, string) ([]netip.Addr, error) {
		if calls.Add(1) == 1 {
			return []netip.Addr{netip.MustParseAddr("192.0.2.1")}, nil // public (TEST-NET-1)
		}
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	}
	errNoConnect := errors.New("test dialer: no connection")
	var mu sync.Mutex
	var connected []string
	g := Guard{Lookup: lookup, Dialer: &net.Dialer{
		Control: func(_, address string, _ syscall.RawConn) error {
			mu.Lock()
			defer mu.Unlock()
			connected = append(connected, address)
			return errNoConnect
		},
	}}
	addr := net.JoinHostPort("rebind.test", strconv.Itoa(port))

	if _, err := g.DialContext(t.Context(), "tcp", addr); !errors.Is(err, errNoConnect) {
		t.Fatalf("first dial error = %v, want the test dialer's", err)
	}
	if calls.Load() != 1 {
		t.Fatalf("first dial looked up %d times, want 1", calls.Load())
	}
	_, err := g.DialContext(t.Context(), "tcp", addr)
	if re := mustRefused(t, err); re.Reason != "loopback address" || re.Host != "rebind.test" {
		t.Errorf("second dial refusal = %#v, want loopback of rebind.test", re)
	}
	if calls.Load() != 2 {
		t.Errorf("two dials looked up %d times, want 2", calls.Load())
	}
	mu.Lock()
	defer mu.Unlock()
	if want := fmt.Sprintf("192.0.2.1:%d", port); len(connected) != 1 || connected[0] != want {
		t.Errorf("connected to %q, want only %q", connected, want)
	}
	if n := srv.conns.Load(); n != 0 {
		t.Errorf("loopback server accepted %d connections, want 0", n)
	}
}

func TestClientRedirects(t *testing.T) {
	t.Parallel()
	refused := newServer(t, nil)
	names := &staticLookup{names: map[string][]string{"metadata.test": {"169.254.169.254"}}}
	tests := []struct {
		name   string
		to     string
		reason string
	}{
		{name: "to a loopback port not allow-listed", to: refused.URL + "/", reason: "loopback address"},
		{name: "to a metadata name", to: "http://metadata.test/latest/meta-data/", reason: "cloud metadata address"},
		{name: "to the metadata address", to: "http://169.254.169.254/latest/meta-data/", reason: "cloud metadata address"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			allowed := newServer(t, func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, tt.to, http.StatusFound)
			})
			// Only the allowed server's port is listed, so the redirect
			// target on the same IP is refused.
			g := Guard{Allow: mustAllow(t, "127.0.0.1:"+strconv.Itoa(allowed.port(t))), Lookup: names.lookup}
			_, err := get(t, g.Client(5*time.Second, 5), allowed.URL)
			if re := mustRefused(t, err); re.Reason != tt.reason {
				t.Errorf("reason = %q, want %q", re.Reason, tt.reason)
			}
			if allowed.reqs.Load() != 1 {
				t.Errorf("allowed server saw %d requests, want 1", allowed.reqs.Load())
			}
		})
	}
	if n := refused.conns.Load(); n != 0 {
		t.Errorf("refused server accepted %d connections", n)
	}
}

func TestClientMaxRedirects(t *testing.T) {
	t.Parallel()
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/again", http.StatusFound)
	})
	g := Guard{Allow: mustAllow(t, "127.0.0.1")}
	_, err := get(t, g.Client(5*time.Second, 2), srv.URL)
	if !errors.Is(err, ErrTooManyRedirects) {
		t.Fatalf("error = %v, want ErrTooManyRedirects", err)
	}
	if n := srv.reqs.Load(); n != 3 {
		t.Errorf("server saw %d requests, want 3 (the first and 2 redirects)", n)
	}
}

// TestClientIgnoresProxyEnv cannot be parallel: it sets the environment.
func TestClientIgnoresProxyEnv(t *testing.T) {
	proxy := newServer(t, nil)
	proxyURL := (&url.URL{Scheme: "http", Host: proxy.Listener.Addr().String()}).String()
	for _, k := range []string{"HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy"} {
		t.Setenv(k, proxyURL)
	}
	t.Setenv("NO_PROXY", "")
	t.Setenv("no_proxy", "")

	srv := newServer(t, nil)
	names := &staticLookup{names: map[string][]string{"allowed.test": {"127.0.0.1"}}}
	g := Guard{Allow: mustAllow(t, "allowed.test"), Lookup: names.lookup}
	c := g.Client(5*time.Second, 0)
	if tr, ok := c.Transport.(*http.Transport); !ok || tr.Proxy != nil {
		t.Fatalf("transport %T has a Proxy func", c.Transport)
	}
	if c.Jar != nil {
		t.Error("client has a cookie jar")
	}
	body, err := get(t, c, fmt.Sprintf("http://allowed.test:%d/", srv.port(t)))
	if err != nil || body != "ok" {
		t.Fatalf("fetch = %q, %v; want ok", body, err)
	}
	if n := proxy.conns.Load(); n != 0 {
		t.Errorf("proxy accepted %d connections, want 0", n)
	}
}
