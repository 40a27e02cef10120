package sideserver_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/barrage-dev/barrage/pkg/sideserver"
)

func TestStartServesUntilStopped(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /x", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "side") })
	stop, bound, err := sideserver.Start(context.Background(), "127.0.0.1:0", "test listener", &http.Server{Handler: mux}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get("http://" + bound.String() + "/x")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if string(body) != "side" {
		t.Errorf("body %q, want side", body)
	}
	stop()
	if c, err := net.Dial("tcp", bound.String()); err == nil {
		_ = c.Close()
		t.Error("still listening after stop")
	}
}

func TestStartRefusesABadAddress(t *testing.T) {
	t.Parallel()
	_, _, err := sideserver.Start(context.Background(), "127.0.0.1:nope", "test listener", &http.Server{}, slog.New(slog.DiscardHandler))
	if err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("err = %v, want the bad port named", err)
	}
}
