package engine_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/barrage-dev/barrage/pkg/reqtemplate"
	"github.com/barrage-dev/barrage/services/agent/internal/engine"
	"github.com/barrage-dev/barrage/services/agent/internal/httpclient"
)

// evenCreated is a loopback target that answers 201 to /post/N for an even
// N and 500 for an odd one, and counts what it answered.
func evenCreated(t *testing.T) (url string, created *atomic.Int64) {
	t.Helper()
	created = &atomic.Int64{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, err := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/post/"))
		if err != nil || n%2 == 1 {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		created.Add(1)
		w.WriteHeader(http.StatusCreated)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, created
}

// urlSink keeps the written URLs of every snapshot and the final one.
type urlSink struct {
	mu    sync.Mutex
	urls  []string
	sizes []int // URLs per interval snapshot
	final *engine.Snapshot
}

func (s *urlSink) Publish(_ context.Context, snap *engine.Snapshot) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if snap.Final {
		if len(snap.WrittenURLs) != 0 {
			return fmt.Errorf("final snapshot carries %d URLs", len(snap.WrittenURLs))
		}
		s.final = snap
		return nil
	}
	s.urls = append(s.urls, snap.WrittenURLs...)
	s.sizes = append(s.sizes, len(snap.WrittenURLs))
	return nil
}

// runWrites runs n requests of method to /post/{seq} on 4 connections.
func runWrites(t *testing.T, url, method string, n int64, o engine.Options) *urlSink {
	t.Helper()
	f, err := httpclient.New(httpclient.Options{
		URL: url + "/", Method: method,
		Targets: []*reqtemplate.Template{reqtemplate.MustParse("/post/{seq}", reqtemplate.Options{})},
	})
	if err != nil {
		t.Fatal(err)
	}
	sink := &urlSink{}
	o.Factory, o.Connections, o.Pacing, o.Count, o.Sink = f, 4, engine.Closed, n, sink
	final, err := engine.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if final.Count != n {
		t.Fatalf("%d requests, want %d", final.Count, n)
	}
	return sink
}

// TestWrittenURLsAreTheSuccessfulWrites posts /post/1..200 to a target that
// creates the even ones only: exactly the 100 even URLs are recorded, once
// each, with the target's scheme and host.
func TestWrittenURLsAreTheSuccessfulWrites(t *testing.T) {
	t.Parallel()
	url, created := evenCreated(t)
	sink := runWrites(t, url, "POST", 200, engine.Options{WrittenURLs: 1000, URLPrefix: url})
	if created.Load() != 100 {
		t.Fatalf("target created %d, want 100", created.Load())
	}
	got := slices.Sorted(slices.Values(sink.urls))
	var want []string
	for n := 2; n <= 200; n += 2 {
		want = append(want, url+"/post/"+strconv.Itoa(n))
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("recorded %d URLs %v..., want the 100 even ones %v...", len(got), got[:min(3, len(got))], want[:3])
	}
	if sink.final.URLsDropped != 0 || sink.final.Codes[201] != 100 || sink.final.Codes[500] != 100 {
		t.Errorf("final: %d dropped, codes %v; want 0 dropped, 100 × 201 and 100 × 500", sink.final.URLsDropped, sink.final.Codes)
	}
}

// TestWrittenURLsNotForReads records nothing for GETs, and nothing at all
// when the option is off.
func TestWrittenURLsNotForReads(t *testing.T) {
	t.Parallel()
	url, _ := evenCreated(t)
	if sink := runWrites(t, url, "GET", 200, engine.Options{WrittenURLs: 1000, URLPrefix: url}); len(sink.urls) != 0 || sink.final.URLsDropped != 0 {
		t.Errorf("a GET run recorded %d URLs, dropped %d; want none", len(sink.urls), sink.final.URLsDropped)
	}
	if sink := runWrites(t, url, "POST", 200, engine.Options{}); len(sink.urls) != 0 || sink.final.URLsDropped != 0 {
		t.Errorf("a run without recording recorded %d URLs, dropped %d; want none", len(sink.urls), sink.final.URLsDropped)
	}
}

// TestWrittenURLsBounds keeps at most WrittenURLs and counts the rest, and
// drops the URLs over MaxURLLength.
func TestWrittenURLsBounds(t *testing.T) {
	t.Parallel()
	url, _ := evenCreated(t)
	sink := runWrites(t, url, "PUT", 200, engine.Options{WrittenURLs: 30, URLPrefix: url})
	if len(sink.urls) != 30 || sink.final.URLsDropped != 70 {
		t.Errorf("bound 30: kept %d, dropped %d; want 30 and 70", len(sink.urls), sink.final.URLsDropped)
	}
	// /post/N is 7 bytes for N < 10, 8 for N < 100, 9 from 100 on: a limit
	// of the prefix + 8 keeps 2..98.
	sink = runWrites(t, url, "PUT", 200, engine.Options{WrittenURLs: 1000, URLPrefix: url, MaxURLLength: len(url) + 8})
	if len(sink.urls) != 49 || sink.final.URLsDropped != 51 {
		t.Errorf("length limit: kept %d, dropped %d; want 49 and 51", len(sink.urls), sink.final.URLsDropped)
	}
}

// TestWrittenURLsPerSnapshotBudget keeps every snapshot's URLs within the
// byte budget and drops what is still waiting when the run ends.
func TestWrittenURLsPerSnapshotBudget(t *testing.T) {
	t.Parallel()
	url, _ := evenCreated(t)
	// A URL is the prefix, /post/N (7 to 9 bytes) and 4 bytes of overhead:
	// the budget holds 10 of the longest. 200 loopback requests take far
	// less than the 1 s interval, so one or two snapshots carry URLs and
	// most of the 100 are dropped.
	budget := 10 * (len(url) + 9 + 4)
	sink := runWrites(t, url, "POST", 200, engine.Options{WrittenURLs: 1000, URLPrefix: url, URLBytesPerSnapshot: budget})
	if got := len(sink.urls) + int(sink.final.URLsDropped); got != 100 {
		t.Fatalf("kept %d + dropped %d = %d, want 100", len(sink.urls), sink.final.URLsDropped, got)
	}
	at := 0
	for i, n := range sink.sizes {
		size := 0
		for _, u := range sink.urls[at : at+n] {
			size += len(u) + 4
		}
		at += n
		if size > budget {
			t.Errorf("snapshot %d carried %d URLs of %d bytes, over the budget of %d", i, n, size, budget)
		}
	}
	if len(sink.urls) < 10 || sink.final.URLsDropped == 0 {
		t.Errorf("kept %d, dropped %d: want a full snapshot kept and the rest dropped", len(sink.urls), sink.final.URLsDropped)
	}
	for _, u := range sink.urls {
		if !strings.HasPrefix(u, url+"/post/") {
			t.Fatalf("URL %q is not on the target %s", u, url)
		}
	}
}
