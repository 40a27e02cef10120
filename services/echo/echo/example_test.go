package echo_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/barrage-dev/barrage/services/echo/echo"
)

// Example runs an HTTP echo on a free loopback port, asks it for a plain
// reply and for an injected status, and stops it.
func Example() {
	srv, err := echo.New(echo.Options{
		HTTPAddr: "127.0.0.1:0", MaxDelay: time.Second, MaxPayload: 64 << 10,
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	for _, query := range []string{"", "?status=418"} {
		resp, err := http.Get("http://" + srv.HTTPAddr() + "/" + query)
		if err != nil {
			fmt.Println(err)
			break
		}
		_ = resp.Body.Close()
		fmt.Printf("GET /%s: %s\n", query, resp.Status)
	}
	cancel()
	fmt.Println("stopped:", <-done)
	// Output:
	// GET /: 200 OK
	// GET /?status=418: 418 I'm a teapot
	// stopped: <nil>
}
