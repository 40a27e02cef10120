package app

import (
	"bytes"
	"crypto/md5" //nolint:gosec // index.tsv's checksum
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/barrage-dev/barrage/pkg/fortiojson"
)

// TestCLIImportAndSync drives `barrage import` and `barrage sync` with the
// real binary: outcomes per file and per object, and their exit codes.
func TestCLIImportAndSync(t *testing.T) {
	t.Parallel()
	e := startAPI(t)
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(good, fortioDoc(t, "http_errors_max.json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte(`{"DurationHistogram":{"Count":-3}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	res := runCLI(t, e.URL, e.AdminToken, "import", "-project", "default", good, bad, filepath.Join(dir, "missing.json"))
	want := docSummary(t, fortioDoc(t, "http_errors_max.json"))
	if res.code != 2 || !regexp.MustCompile(`imported .*good\.json as run [0-9a-f-]{36} .*: `+strconv.FormatInt(want.count, 10)+` calls`).MatchString(res.stdout) ||
		!strings.Contains(res.stderr, "DurationHistogram.Count") || !strings.Contains(res.stderr, "missing.json") {
		t.Errorf("import: exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	if n := e.count(t, "SELECT count(*) FROM runs WHERE source = 'import'"); n != 1 {
		t.Errorf("%d imported runs, want 1", n)
	}

	// A peer serving an index.tsv: one good entry, one whose MD5 is wrong.
	docA, docB := fortioDoc(t, "http_duration.json"), fortioDoc(t, "tcp.json")
	peer := httptest.NewServer(nil)
	t.Cleanup(peer.Close)
	var index bytes.Buffer
	sumA := md5.Sum(docA)              //nolint:gosec // checksum
	wrong := md5.Sum([]byte("not it")) //nolint:gosec // checksum
	if err := fortiojson.WriteIndex(&index, []fortiojson.IndexEntry{
		{URL: peer.URL + "/data/a.json", Size: int64(len(docA)), MD5: sumA[:]},
		{URL: peer.URL + "/data/b.json", Size: int64(len(docB)), MD5: wrong[:]},
	}); err != nil {
		t.Fatal(err)
	}
	peer.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/data/index.tsv":
			_, _ = w.Write(index.Bytes())
		case "/data/a.json":
			_, _ = w.Write(docA)
		case "/data/b.json":
			_, _ = w.Write(docB)
		default:
			http.NotFound(w, r)
		}
	})
	e.mustDo(t, http.StatusOK, http.MethodPatch, "/projects/default", e.AdminToken, map[string]any{"target_allow_list": []string{"127.0.0.1"}})
	add := runCLI(t, e.URL, e.AdminToken, "sync", "add", "-project", "default", "-name", "peer", "-url", peer.URL+"/data/index.tsv")
	id := regexp.MustCompile(`[0-9a-f-]{36}`).FindString(add.stdout)
	if add.code != 0 || id == "" {
		t.Fatalf("sync add: exit %d %s %s", add.code, add.stdout, add.stderr)
	}
	run := runCLI(t, e.URL, e.AdminToken, "sync", "run", id, "-wait", "30s")
	if run.code != 97 || !strings.Contains(run.stdout, "partial, 1 pages, 1 imported, 0 unchanged, 0 skipped, 1 failed") ||
		!regexp.MustCompile(`imported\s+[0-9a-f-]{36}\s+`+regexp.QuoteMeta(peer.URL+"/data/a.json")).MatchString(run.stdout) ||
		!regexp.MustCompile(`failed\s+-\s+`+regexp.QuoteMeta(peer.URL+"/data/b.json")+`\s+MD5 mismatch`).MatchString(run.stdout) {
		t.Errorf("sync run: exit %d\n%s\n%s", run.code, run.stdout, run.stderr)
	}
	list := runCLI(t, e.URL, e.AdminToken, "sync", "list", "-project", "default")
	if list.code != 0 || !regexp.MustCompile(`peer\s+tsv\s+on demand\s+partial .*\s+1\s+0\s+1\s+`).MatchString(list.stdout) {
		t.Errorf("sync list: exit %d\n%s", list.code, list.stdout)
	}
	if bad := runCLI(t, e.URL, e.AdminToken, "sync", "run"); bad.code != 2 {
		t.Errorf("sync run without an id: exit %d", bad.code)
	}
}
