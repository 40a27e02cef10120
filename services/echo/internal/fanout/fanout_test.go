package fanout

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// target records what it received and answers with its name.
type target struct {
	mu   sync.Mutex
	seen []string
	srv  *httptest.Server
}

func newTarget(t *testing.T, name string, code int) *target {
	t.Helper()
	tg := &target{}
	tg.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		tg.mu.Lock()
		tg.seen = append(tg.seen, r.Method+" "+r.URL.RequestURI()+" "+string(b)+" "+r.Header.Get("X-Test"))
		tg.mu.Unlock()
		w.Header().Set("X-From", name)
		w.WriteHeader(code)
		_, _ = io.WriteString(w, "answer of "+name)
	}))
	t.Cleanup(tg.srv.Close)
	return tg
}

func TestFanOut(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name          string
		o             Options
		wantURI, base string
	}{
		{"parallel, mirrored", Options{MirrorOrigin: true}, "/base/p/q?x=1", "/base"},
		{"serial, not mirrored", Options{Serial: true}, "/base", "/base"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a, b := newTarget(t, "a", 201), newTarget(t, "b", 500)
			ua, _ := url.Parse(a.srv.URL + tt.base)
			ub, _ := url.Parse(b.srv.URL + tt.base)
			tt.o.MaxBody = 1 << 10
			proxy := httptest.NewServer(Handler([]*url.URL{ua, ub}, tt.o))
			t.Cleanup(proxy.Close)
			req, _ := http.NewRequest(http.MethodPost, proxy.URL+"/p/q?x=1", strings.NewReader("payload"))
			req.Header.Set("X-Test", "yes")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			if resp.StatusCode != 201 || string(body) != "answer of a" || resp.Header.Get("X-From") != "a" {
				t.Errorf("client got %d %q from %q, want the first target's 201", resp.StatusCode, body, resp.Header.Get("X-From"))
			}
			want := "POST " + tt.wantURI + " payload yes"
			for name, tg := range map[string]*target{"a": a, "b": b} {
				tg.mu.Lock()
				seen := strings.Join(tg.seen, "|")
				tg.mu.Unlock()
				if seen != want {
					t.Errorf("target %s saw %q, want %q", name, seen, want)
				}
			}
		})
	}
}

func TestFanOutFirstTargetDown(t *testing.T) {
	t.Parallel()
	down, _ := url.Parse("http://127.0.0.1:1/")
	b := newTarget(t, "b", 200)
	ub, _ := url.Parse(b.srv.URL)
	proxy := httptest.NewServer(Handler([]*url.URL{down, ub}, Options{MaxBody: 10}))
	t.Cleanup(proxy.Close)
	resp, err := http.Get(proxy.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusBadGateway {
		t.Errorf("first target down: %d, want 502", resp.StatusCode)
	}
	resp, err = http.Post(proxy.URL+"/", "text/plain", strings.NewReader(strings.Repeat("x", 11)))
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("body over MaxBody: %d, want 413", resp.StatusCode)
	}
}

func TestParseRoute(t *testing.T) {
	t.Parallel()
	r, err := ParseRoute(":9000 http://a:1/x https://b/")
	if err != nil || r.Listen != ":9000" || len(r.Targets) != 2 || r.Targets[1].Host != "b" {
		t.Fatalf("route %+v, err %v", r, err)
	}
	for _, bad := range []string{":9000", ":9000 ftp://a/", ":9000 a:1", ""} {
		if _, err := ParseRoute(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}
