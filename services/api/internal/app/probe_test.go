package app

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestMainBadLogFormat(t *testing.T) {
	t.Parallel()
	code, _, stderr := runMain(t, []string{"BARRAGE_LOG_FORMAT=xml", "BARRAGE_LISTEN=127.0.0.1:0"}, "serve")
	if code != exitUsage || !strings.Contains(stderr, "BARRAGE_LOG_FORMAT") {
		t.Errorf("exit code %d, stderr %q; want 2 naming BARRAGE_LOG_FORMAT", code, stderr)
	}
}

func TestMainHealthcheck(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/healthz" {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	t.Cleanup(srv.Close)
	listen := strings.TrimPrefix(srv.URL, "http://")
	tests := []struct {
		name    string
		environ []string
		args    []string
		want    int
	}{
		{name: "healthy via BARRAGE_LISTEN", environ: []string{"BARRAGE_LISTEN=" + listen}, want: exitOK},
		{name: "healthy via -url", args: []string{"-url", srv.URL + "/healthz"}, want: exitOK},
		{name: "not 200", args: []string{"-url", srv.URL + "/readyz"}, want: exitFailure},
		{name: "nobody listening", environ: []string{"BARRAGE_LISTEN=127.0.0.1:1"}, want: exitFailure},
		{name: "bad argument", args: []string{"extra"}, want: exitUsage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, _, stderr := runMain(t, tt.environ, append([]string{"healthcheck"}, tt.args...)...)
			if code != tt.want {
				t.Errorf("exit code = %d, want %d (stderr %q)", code, tt.want, stderr)
			}
		})
	}
}
