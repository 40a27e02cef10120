package cli

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestCurl: one request with its headers and body printed; -L follows a
// redirect, and without it the redirect itself is printed (exit 1).
func TestCurl(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/old" {
			http.Redirect(w, r, "/new", http.StatusMovedPermanently)
			return
		}
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("X-Seen", r.Method+" "+r.Header.Get("X-Test"))
		_, _ = io.WriteString(w, "body:"+string(body))
	}))
	t.Cleanup(srv.Close)
	run := func(args ...string) (int, string) {
		var out, errOut strings.Builder
		code := Main(context.Background(), append([]string{"barrage-agent", "curl"}, args...), nil, &out, &errOut)
		return code, out.String() + errOut.String()
	}
	code, out := run("-H", "X-Test: yes", "-payload", "hello", srv.URL+"/new")
	if code != ExitOK || !strings.HasPrefix(out, "HTTP/1.1 200 OK\r\n") || !strings.Contains(out, "X-Seen: POST yes\r\n") ||
		!strings.HasSuffix(out, "\r\n\r\nbody:hello") {
		t.Errorf("curl: exit %d\n%s", code, out)
	}
	if code, out := run(srv.URL + "/old"); code != ExitFailure || !strings.HasPrefix(out, "HTTP/1.1 301 Moved Permanently\r\n") ||
		!strings.Contains(out, "Location: /new\r\n") {
		t.Errorf("curl without -L: exit %d\n%s", code, out)
	}
	if code, out := run("-L", srv.URL+"/old"); code != ExitOK || !strings.HasPrefix(out, "HTTP/1.1 200 OK\r\n") || !strings.Contains(out, "X-Seen: GET") {
		t.Errorf("curl -L: exit %d\n%s", code, out)
	}
	if code, _ := run("ftp://x/"); code != ExitUsage {
		t.Errorf("curl ftp://: exit %d, want %d", code, ExitUsage)
	}
	if code, _ := run("http://127.0.0.1:1/"); code != ExitFailure {
		t.Errorf("curl to a closed port: exit %d, want %d", code, ExitFailure)
	}
}

// TestGRPCPingUsage: bad arguments exit 2, an unreachable target 1.
func TestGRPCPingUsage(t *testing.T) {
	t.Parallel()
	for args, want := range map[string]int{
		"":                                ExitUsage,
		"-n 0 127.0.0.1:1":                ExitUsage,
		"no-port":                         ExitUsage,
		"-timeout 200ms -n 1 127.0.0.1:1": ExitFailure,
	} {
		code := Main(context.Background(), append([]string{"barrage-agent", "grpcping"}, strings.Fields(args)...), nil, io.Discard, io.Discard)
		if code != want {
			t.Errorf("grpcping %s: exit %d, want %d", args, code, want)
		}
	}
}

// TestNCUsage: bad arguments exit 2, a refused connection 1.
func TestNCUsage(t *testing.T) {
	t.Parallel()
	for args, want := range map[string]int{"": ExitUsage, "no-port": ExitUsage, "a b": ExitUsage, "tcp://127.0.0.1:1": ExitFailure} {
		code := RunNC(context.Background(), strings.Fields(args), strings.NewReader(""), io.Discard, io.Discard)
		if code != want {
			t.Errorf("nc %s: exit %d, want %d", args, code, want)
		}
	}
}
