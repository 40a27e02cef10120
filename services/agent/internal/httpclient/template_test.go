package httpclient

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"

	"github.com/barrage-dev/barrage/pkg/reqtemplate"
	"github.com/barrage-dev/barrage/services/agent/internal/cannedhttp"
)

// TestTemplatedRequests sends a templated path and body to net/http's
// server: every request carries its own sequence number in both, with a
// Content-Length that matches the rendered body.
func TestTemplatedRequests(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	paths := map[string]string{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			t.Error(err)
		}
		mu.Lock()
		paths[r.URL.RequestURI()] = string(b)
		mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	f := mustFactory(t, Options{
		URL:     srv.URL + "/ignored",
		Targets: []*reqtemplate.Template{reqtemplate.MustParse("/post/XXXXX?tag={alpha:4}", reqtemplate.Options{Aliases: true})},
		Body:    reqtemplate.MustParse(`{"id":{seq}}`, reqtemplate.Options{}),
		Seq:     reqtemplate.NewSeq(7, 10),
	})
	c := mustClient(t, f)
	for range 50 {
		if res := c.Do(context.Background()); res.Code != 200 {
			t.Fatalf("templated request: %+v", res)
		}
	}
	if len(paths) != 50 {
		t.Fatalf("server saw %d distinct URLs, want 50", len(paths))
	}
	for uri, body := range paths {
		// /post/00007?tag=abcd carries {"id":7}.
		id, err := strconv.Atoi(uri[len("/post/") : len("/post/")+5])
		if err != nil || len(uri) != len("/post/00007?tag=abcd") || body != `{"id":`+strconv.Itoa(id)+`}` || id%10 != 7 {
			t.Errorf("request %s carried %q, want /post/<seq ≡ 7 mod 10>?tag=xxxx with the same id in the body", uri, body)
		}
	}
}

func TestTemplatedDoDoesNotAllocate(t *testing.T) {
	f := mustFactory(t, Options{
		URL:     "http://" + cannedhttp.Serve(t, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok") + "/",
		Targets: []*reqtemplate.Template{reqtemplate.MustParse("/post/{seq:8}?r={rand:100}&u={uuid}", reqtemplate.Options{})},
		Body:    reqtemplate.MustParse(`{"id":{seq},"n":"{alpha:16}"}`, reqtemplate.Options{}),
	})
	c := mustClient(t, f)
	ctx := context.Background()
	c.Do(ctx) // connect and size the buffers
	if allocs := testing.AllocsPerRun(500, func() { c.Do(ctx) }); allocs != 0 {
		t.Errorf("templated Do allocates %.1f times per request, want 0", allocs)
	}
}

func BenchmarkTemplatedDo(b *testing.B) {
	f := mustFactory(b, Options{
		URL:     "http://" + cannedhttp.Serve(b, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok") + "/",
		Targets: []*reqtemplate.Template{reqtemplate.MustParse("/post/{seq:8}?r={rand:100}", reqtemplate.Options{})},
	})
	c := mustClient(b, f)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		c.Do(ctx)
	}
}

// TestURLList goes round a list of targets in order, or picks them at
// random, and counts each one's requests.
func TestURLList(t *testing.T) {
	t.Parallel()
	for _, random := range []bool{false, true} {
		var mu sync.Mutex
		hits := map[string]int{}
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			hits[r.URL.RequestURI()]++
			mu.Unlock()
		}))
		list := []*reqtemplate.Template{reqtemplate.Literal("/a"), reqtemplate.Literal("/b?x=1"), reqtemplate.Literal("/c")}
		c := mustClient(t, mustFactory(t, Options{URL: srv.URL + "/", Targets: list, RandomTarget: random}))
		for range 300 {
			if res := c.Do(context.Background()); res.Code != 200 {
				t.Fatalf("%+v", res)
			}
		}
		srv.Close()
		for _, p := range []string{"/a", "/b?x=1", "/c"} {
			lo, hi := 100, 100
			if random {
				lo, hi = 70, 130
			}
			if hits[p] < lo || hits[p] > hi {
				t.Errorf("random %v: %s hit %d times of 300, want %d..%d (%v)", random, p, hits[p], lo, hi, hits)
			}
		}
	}
}
