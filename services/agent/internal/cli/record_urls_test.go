package cli

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// TestLoadRecordURLsThenReadThemBack posts /post/1..200 to a target that
// creates only the even ones: -record-urls writes exactly those 100 URLs,
// and a GET run with that file as -url-file reads each of them once. A GET
// run records an empty file.
func TestLoadRecordURLsThenReadThemBack(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	reads := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			mu.Lock()
			reads[r.URL.Path]++
			mu.Unlock()
			return
		}
		n, err := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/post/"))
		if err != nil || n%2 == 1 {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusCreated)
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	written := filepath.Join(dir, "written.txt")
	var stderr strings.Builder
	code := Main(context.Background(), []string{"barrage-agent", "load", "-qps", "0", "-c", "4", "-n", "200", "-X", "POST",
		"-record-urls", written, srv.URL + "/post/{seq}"}, nil, io.Discard, &stderr)
	if code != ExitOK {
		t.Fatalf("write run: exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "barrage-agent load: 100 written URLs in "+written+"\n") {
		t.Errorf("stderr lacks the count of written URLs:\n%s", stderr.String())
	}
	b, err := os.ReadFile(written)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	var want []string
	for n := 2; n <= 200; n += 2 {
		want = append(want, srv.URL+"/post/"+strconv.Itoa(n))
	}
	if got := slices.Sorted(slices.Values(lines)); !slices.Equal(got, slices.Sorted(slices.Values(want))) {
		t.Fatalf("%d lines in the file, want the 100 even URLs; first %q", len(lines), lines[:min(3, len(lines))])
	}

	code = Main(context.Background(), []string{"barrage-agent", "load", "-quiet", "-qps", "0", "-c", "2", "-n", "100",
		"-url-file", written, "-record-urls", filepath.Join(dir, "none.txt")}, nil, io.Discard, &stderr)
	if code != ExitOK {
		t.Fatalf("read run: exit %d: %s", code, stderr.String())
	}
	if len(reads) != 100 {
		t.Errorf("read run hit %d distinct paths, want the 100 written", len(reads))
	}
	for n := 2; n <= 200; n += 2 {
		if p := "/post/" + strconv.Itoa(n); reads[p] != 1 {
			t.Errorf("%s read %d times, want once", p, reads[p])
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "none.txt")); err != nil || len(b) != 0 {
		t.Errorf("a GET run recorded %q (%v), want an empty file", b, err)
	}
}
