package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/barrage-dev/barrage/services/agent/internal/report"
)

// TestJSONIsFortios: -json FILE writes Fortio's result JSON (the same
// bytes as -format fortio), -native-json FILE the native one, and
// `-json -` makes stdout Fortio's JSON only, as `fortio load -json -` does.
func TestJSONIsFortios(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") }))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	fj, nj, fo := filepath.Join(dir, "f.json"), filepath.Join(dir, "n.json"), filepath.Join(dir, "fo.json")
	var stderr strings.Builder
	code := Main(context.Background(), []string{"barrage-agent", "load", "-quiet", "-qps", "0", "-c", "1", "-n", "12",
		"-json", fj, "-native-json", nj, "-format", "fortio", "-o", fo, srv.URL}, nil, io.Discard, &stderr)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	fortio, err := os.ReadFile(fj)
	if err != nil {
		t.Fatal(err)
	}
	if other, _ := os.ReadFile(fo); !bytes.Equal(other, fortio) {
		t.Fatalf("-json wrote %d bytes, -format fortio %d: not the same document", len(fortio), len(other))
	}
	var f struct {
		RunType           string
		RetCodes          map[string]int64
		DurationHistogram struct{ Count int64 }
	}
	if err := json.Unmarshal(fortio, &f); err != nil || f.RunType != "HTTP" || f.RetCodes["200"] != 12 || f.DurationHistogram.Count != 12 {
		t.Fatalf("-json: %+v (%v)", f, err)
	}
	var native report.Result
	mustReadJSON(t, nj, &native)
	if native.Count != 12 || native.Response.HDR == "" {
		t.Fatalf("-native-json: count %d hdr %q", native.Count, native.Response.HDR)
	}

	var stdout strings.Builder
	code = Main(context.Background(), []string{"barrage-agent", "load", "-quiet", "-qps", "0", "-c", "1", "-n", "5", "-json", "-", srv.URL},
		nil, &stdout, &stderr)
	if err := json.Unmarshal([]byte(stdout.String()), &f); code != ExitOK || err != nil || f.DurationHistogram.Count != 5 {
		t.Fatalf("-json -: exit %d, %v, stdout %q", code, err, stdout.String())
	}
	stderr.Reset()
	code = Main(context.Background(), []string{"barrage-agent", "load", "-json", "-", "-native-json", "-", srv.URL}, nil, io.Discard, &stderr)
	if code != ExitUsage || !strings.Contains(stderr.String(), "both write to stdout") {
		t.Fatalf("-json - -native-json -: exit %d %q", code, stderr.String())
	}
}
