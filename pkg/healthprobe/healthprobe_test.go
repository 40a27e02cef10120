package healthprobe

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

func TestLoopback(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"": "127.0.0.1:8080", ":9000": "127.0.0.1:9000", "0.0.0.0:81": "127.0.0.1:81", "[::]:82": "127.0.0.1:82",
		"10.0.0.5:83": "10.0.0.5:83", "[::1]:84": "[::1]:84", "nonsense": "nonsense",
	} {
		if got := Loopback(in, ":8080"); got != want {
			t.Errorf("Loopback(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestGet(t *testing.T) {
	t.Parallel()
	var code atomic.Int32
	code.Store(http.StatusOK)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(int(code.Load())) }))
	t.Cleanup(srv.Close)
	if err := Get(context.Background(), nil, srv.URL+"/healthz"); err != nil {
		t.Errorf("healthy server: %v", err)
	}
	code.Store(http.StatusServiceUnavailable)
	if err := Get(context.Background(), srv.Client(), srv.URL+"/healthz"); err == nil || !strings.Contains(err.Error(), "503") {
		t.Errorf("unhealthy server: %v, want the 503", err)
	}
	srv.Close()
	if err := Get(context.Background(), nil, srv.URL+"/healthz"); err == nil {
		t.Error("closed server: no error")
	}
}
