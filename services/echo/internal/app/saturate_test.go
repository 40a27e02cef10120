package app

import (
	"bufio"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestSaturateGrowsWithInFlight checks the saturate parameter over real
// HTTP/1.1 and h2c: with nothing else in flight a request waits about base;
// with four slow requests in flight, once the 200 ms window has seen them,
// base + per × 4 or a little more (the probes themselves count too).
func TestSaturateGrowsWithInFlight(t *testing.T) {
	t.Parallel()
	a := startApp(t, func(c *Config) { c.ServerTimeHeader, c.MaxDelay = "X-Server-Time", 2*time.Second })
	base := "http://" + a.HTTPAddr()
	protocols := new(http.Protocols)
	protocols.SetUnencryptedHTTP2(true)
	h2c := &http.Client{Transport: &http.Transport{Protocols: protocols}}
	for name, client := range map[string]*http.Client{"http/1.1": {}, "h2c": h2c} {
		// The first request turns the tracking on; the window may still hold
		// the previous protocol's slow requests for 200 ms.
		alone := time.Hour
		for end := time.Now().Add(time.Second); alone >= 50*time.Millisecond && time.Now().Before(end); {
			alone = serverTime(t, client, base+"/?saturate=10ms:20ms")
		}
		if alone < 10*time.Millisecond || alone >= 50*time.Millisecond {
			t.Errorf("%s: alone it took %v, want about 10ms", name, alone)
		}
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() { serverTime(t, client, base+"/?delay=1s") })
		}
		waitInFlight(t, base, 4)
		var loaded time.Duration
		for end := time.Now().Add(700 * time.Millisecond); loaded < 90*time.Millisecond && time.Now().Before(end); {
			loaded = serverTime(t, client, base+"/?saturate=10ms:20ms")
		}
		if loaded < 90*time.Millisecond || loaded > 150*time.Millisecond {
			t.Errorf("%s: with 4 in flight it took %v, want 10ms + 20ms × 4 = 90ms, or a little more", name, loaded)
		}
		wg.Wait()
	}
}

// serverTime makes one GET and returns the server's own time for it.
func serverTime(t *testing.T, c *http.Client, url string) time.Duration {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Error(err)
		return 0
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	us, err := strconv.ParseInt(resp.Header.Get("X-Server-Time"), 10, 64)
	if err != nil {
		t.Errorf("X-Server-Time %q", resp.Header.Get("X-Server-Time"))
	}
	return time.Duration(us) * time.Microsecond
}

// waitInFlight polls /metrics until the server has n HTTP requests in flight.
func waitInFlight(t *testing.T, base string, n int) {
	t.Helper()
	want := "barrage_echo_http_in_flight_requests " + strconv.Itoa(n)
	end := time.Now().Add(5 * time.Second)
	for time.Now().Before(end) {
		resp, err := http.Get(base + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(resp.Body)
		found := false
		for sc.Scan() {
			found = found || strings.TrimSpace(sc.Text()) == want
		}
		_ = resp.Body.Close()
		if found {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("%d requests never in flight", n)
}
