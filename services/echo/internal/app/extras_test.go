package app

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/quic-go/quic-go/http3"

	"golang.org/x/net/http2"

	"github.com/barrage-dev/barrage/pkg/testcert"
)

// TestTCPProxyToEcho: bytes through a -tcp-proxy route reach the TCP echo
// and come back, on several connections at once.
func TestTCPProxyToEcho(t *testing.T) {
	t.Parallel()
	a := startApp(t, nil)
	echoAddr := a.TCPAddr()
	// A second app proxies to the first one's TCP echo.
	p := startApp(t, func(c *Config) {
		c.HTTPAddr, c.GRPCAddr, c.TCPAddr, c.UDPAddr = "", "", "", ""
		c.TCPProxies = []string{"127.0.0.1:0 " + echoAddr}
	})
	addrs := p.TCPProxyAddrs()
	if len(addrs) != 1 {
		t.Fatalf("proxy addresses %v", addrs)
	}
	done := make(chan error, 3)
	for i := range 3 {
		go func() {
			c, err := net.DialTimeout("tcp", addrs[0], 5*time.Second)
			if err != nil {
				done <- err
				return
			}
			defer c.Close()
			_ = c.SetDeadline(time.Now().Add(5 * time.Second))
			msg := strings.Repeat("barrage-"+strconv.Itoa(i), 1000)
			if _, err := io.WriteString(c, msg); err != nil {
				done <- err
				return
			}
			got := make([]byte, len(msg))
			if _, err := io.ReadFull(c, got); err != nil {
				done <- err
				return
			}
			if string(got) != msg {
				done <- io.ErrUnexpectedEOF
				return
			}
			done <- nil
		}()
	}
	for range 3 {
		if err := <-done; err != nil {
			t.Fatalf("round trip through the proxy: %v", err)
		}
	}
}

// TestRedirector: GET and HEAD get 301, other methods 308, to https on the
// same host without its port, path and query kept.
func TestRedirector(t *testing.T) {
	t.Parallel()
	a := startApp(t, func(c *Config) { c.RedirectAddr = "127.0.0.1:0" })
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for method, code := range map[string]int{http.MethodGet: 301, http.MethodHead: 301, http.MethodPost: 308, http.MethodPut: 308} {
		req, err := http.NewRequest(method, "http://"+a.RedirectAddr()+"/a/b?x=1&y=2", strings.NewReader("body"))
		if err != nil {
			t.Fatal(err)
		}
		req.Host = "example.test:8080"
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != code || resp.Header.Get("Location") != "https://example.test/a/b?x=1&y=2" {
			t.Errorf("%s: %d Location %q; want %d https://example.test/a/b?x=1&y=2", method, resp.StatusCode, resp.Header.Get("Location"), code)
		}
	}
}

// TestServerTimeHeader: with -server-time-header, echoed responses over
// HTTP/1.1 and h2c carry the handler's time in µs, at least the injected
// delay; /healthz does not.
func TestServerTimeHeader(t *testing.T) {
	t.Parallel()
	a := startApp(t, func(c *Config) { c.ServerTimeHeader = "X-Server-Time" })
	protocols := new(http.Protocols)
	protocols.SetUnencryptedHTTP2(true)
	h2c := &http.Client{Transport: &http.Transport{Protocols: protocols}}
	for name, client := range map[string]*http.Client{"http/1.1": http.DefaultClient, "h2c": h2c} {
		resp, err := client.Get("http://" + a.HTTPAddr() + "/?delay=15ms")
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		us, err := strconv.ParseInt(resp.Header.Get("X-Server-Time"), 10, 64)
		if err != nil || us < 15000 || us > 10_000_000 {
			t.Errorf("%s: X-Server-Time %q, want at least 15000 µs", name, resp.Header.Get("X-Server-Time"))
		}
	}
	resp, err := http.Get("http://" + a.HTTPAddr() + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if v := resp.Header.Get("X-Server-Time"); v != "" {
		t.Errorf("/healthz carries X-Server-Time %q", v)
	}
}

func TestExtrasConfigErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-tcp-proxy", "127.0.0.1:0"}, "want \"listen-address destination-address\""},
		{[]string{"-tcp-proxy", "127.0.0.1:0 nohostport"}, "missing port"},
		{[]string{"-server-time-header", "Bad Header"}, "not a valid header name"},
		{[]string{"-multi", ":9000"}, "want \"listen-address url1"},
		{[]string{"-multi", ":9000 ftp://x/"}, "want an http:// or https:// URL"},
	} {
		_, err := ParseConfig(tt.args, nil, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: err %v, want %q", tt.args, err, tt.want)
		}
	}
	cfg, err := ParseConfig([]string{"-tcp-proxy", ":9001 a:1", "-tcp-proxy", ":9002 b:2"},
		[]string{"BARRAGE_ECHO_TCP_PROXY=:9000 env:1"}, io.Discard)
	if err != nil || strings.Join(cfg.TCPProxies, ",") != ":9001 a:1,:9002 b:2" {
		t.Errorf("flags over the environment: %v %v", cfg.TCPProxies, err)
	}
	cfg, err = ParseConfig(nil, []string{"BARRAGE_ECHO_TCP_PROXY=:9000 env:1,:9003 env:3"}, io.Discard)
	if err != nil || len(cfg.TCPProxies) != 2 {
		t.Errorf("from the environment: %v %v", cfg.TCPProxies, err)
	}
}

// TestUnixSocketAndNoDebug: the HTTP echo on a Unix socket, and /debug
// echoed like any path with -debug=false.
func TestUnixSocketAndNoDebug(t *testing.T) {
	t.Parallel()
	sock := filepath.Join(t.TempDir(), "echo.sock")
	a := startApp(t, func(c *Config) { c.HTTPAddr, c.Debug = "unix:"+sock, false })
	if a.HTTPAddr() != sock {
		t.Errorf("HTTPAddr %q, want the socket path", a.HTTPAddr())
	}
	client := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", sock)
	}}}
	resp, err := client.Post("http://echo/debug?status=203", "text/plain", strings.NewReader("over a unix socket"))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != 203 || string(body) != "over a unix socket" {
		t.Errorf("/debug with -debug=false over the socket: %d %q, want the echo (203 and the body)", resp.StatusCode, body)
	}
}

// TestGRPCMaxStreams: the gRPC listener announces -grpc-max-streams in its
// HTTP/2 SETTINGS frame.
func TestGRPCMaxStreams(t *testing.T) {
	t.Parallel()
	a := startApp(t, func(c *Config) { c.GRPCMaxStreams = 7 })
	c, err := net.DialTimeout("tcp", a.GRPCAddr(), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(c, http2.ClientPreface); err != nil {
		t.Fatal(err)
	}
	fr := http2.NewFramer(c, c)
	if err := fr.WriteSettings(); err != nil {
		t.Fatal(err)
	}
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			t.Fatalf("no SETTINGS from the server: %v", err)
		}
		sf, ok := f.(*http2.SettingsFrame)
		if !ok || sf.IsAck() {
			continue
		}
		if v, ok := sf.Value(http2.SettingMaxConcurrentStreams); !ok || v != 7 {
			t.Fatalf("SETTINGS_MAX_CONCURRENT_STREAMS = %d (sent %v), want 7", v, ok)
		}
		return
	}
}

// TestH3Echo: the HTTP/3 listener echoes over QUIC on loopback, with the
// same parameters as the other listeners.
func TestH3Echo(t *testing.T) {
	t.Parallel()
	certFile, keyFile, pool := testcert.Write(t)
	a := startApp(t, func(c *Config) { c.CertFile, c.KeyFile, c.H3Addr = certFile, keyFile, "127.0.0.1:0" })
	tr := &http3.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS13}}
	t.Cleanup(func() { _ = tr.Close() })
	client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	req, err := http.NewRequest(http.MethodPost, "https://"+a.H3Addr()+"/h3?status=201&header=X-Echo:h3",
		strings.NewReader("over quic"))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.ProtoMajor != 3 || resp.StatusCode != 201 || string(body) != "over quic" || resp.Header.Get("X-Echo") != "h3" {
		t.Fatalf("h3: %s %d %q %v", resp.Proto, resp.StatusCode, body, resp.Header)
	}
	if _, err := ParseConfig([]string{"-h3-addr", ":0"}, nil, io.Discard); err == nil || !strings.Contains(err.Error(), "HTTP/3 is TLS only") {
		t.Errorf("-h3-addr without a certificate: %v", err)
	}
}
