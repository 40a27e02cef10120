package app

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestNewLoggerFormats(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		environ []string
		json    bool
	}{
		{name: "default is JSON", environ: nil, json: true},
		{name: "json", environ: []string{"BARRAGE_LOG_FORMAT=json"}, json: true},
		{name: "text", environ: []string{"BARRAGE_LOG_FORMAT=text"}, json: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			log, err := newLogger(&buf, slog.LevelInfo, tt.environ)
			if err != nil {
				t.Fatal(err)
			}
			log.Info("listening", slog.String("addr", "127.0.0.1:8080"))
			line := strings.TrimSpace(buf.String())
			var m map[string]any
			isJSON := json.Unmarshal([]byte(line), &m) == nil
			if isJSON != tt.json {
				t.Fatalf("log line %q: JSON = %v, want %v", line, isJSON, tt.json)
			}
			if tt.json && (m["msg"] != "listening" || m["addr"] != "127.0.0.1:8080" || m["level"] != "INFO") {
				t.Errorf("JSON log line = %v", m)
			}
			if !tt.json && !strings.Contains(line, "msg=listening") {
				t.Errorf("text log line = %q", line)
			}
		})
	}
}

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

func TestLocalURL(t *testing.T) {
	t.Parallel()
	for listen, want := range map[string]string{
		"":               "http://127.0.0.1:8080",
		":8080":          "http://127.0.0.1:8080",
		"0.0.0.0:9000":   "http://127.0.0.1:9000",
		"[::]:9000":      "http://127.0.0.1:9000",
		"10.0.0.5:8080":  "http://10.0.0.5:8080",
		"localhost:8081": "http://localhost:8081",
	} {
		if got := localURL(listen); got != want {
			t.Errorf("localURL(%q) = %q, want %q", listen, got, want)
		}
	}
}
