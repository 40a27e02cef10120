package app

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/services/api/client"
)

// openStream opens run id's event stream and returns its status and
// headers; a 200 stream stays open until close is called.
func (e *apiEnv) openStream(t *testing.T, id, token string, headers ...string) (status int, header http.Header, closeStream func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, e.URL+client.BasePath+"/runs/"+id+"/events", http.NoBody)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := e.client.Do(req)
	if err != nil {
		cancel()
		t.Fatalf("open the stream of %s: %v", id, err)
	}
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, resp.Body)
	}
	t.Cleanup(func() { cancel(); _ = resp.Body.Close() })
	return resp.StatusCode, resp.Header, func() { cancel(); _ = resp.Body.Close() }
}

// mustOpenStream opens a stream that must be served.
func (e *apiEnv) mustOpenStream(t *testing.T, id, token string, headers ...string) func() {
	t.Helper()
	status, _, closeStream := e.openStream(t, id, token, headers...)
	if status != http.StatusOK {
		t.Fatalf("stream of %s = %d, want 200", id, status)
	}
	return closeStream
}

// wantStreamRefused opens a stream that must be refused with 429.
func (e *apiEnv) wantStreamRefused(t *testing.T, id, token string, headers ...string) {
	t.Helper()
	status, header, _ := e.openStream(t, id, token, headers...)
	if status != http.StatusTooManyRequests || header.Get("Retry-After") == "" {
		t.Fatalf("stream of %s = %d (Retry-After %q), want 429 with Retry-After", id, status, header.Get("Retry-After"))
	}
}

// TestLiveStreamCaps: one user holds at most BARRAGE_STREAMS_PER_CALLER
// streams, whichever runs they follow; closing one frees its slot.
func TestLiveStreamCaps(t *testing.T) {
	t.Parallel()
	e := startAPI(t, "BARRAGE_STREAMS_PER_CALLER=2", "BARRAGE_STREAMS_PER_RUN=10")
	a := e.mustRun(t, e.AdminToken, "default", "a", nil).Id.String()
	b := e.mustRun(t, e.AdminToken, "default", "b", nil).Id.String()
	first := e.mustOpenStream(t, a, e.AdminToken)
	e.mustOpenStream(t, b, e.AdminToken)
	// Another token of the same user counts as the same caller.
	other := e.mustToken(t, "default", "viewer")
	e.wantStreamRefused(t, a, other)
	first()
	waitFor(t, 10*time.Second, func() error {
		status, _, closeStream := e.openStream(t, a, other)
		if status != http.StatusOK {
			closeStream()
			return errNotYet
		}
		return nil
	})
}

// TestAnonymousStreamCapsPerClientAndRun: a read-only server serves
// streams to anonymous callers, capped per client address (as a trusted
// proxy names it) and per run.
func TestAnonymousStreamCapsPerClientAndRun(t *testing.T) {
	t.Parallel()
	rw := startAPI(t)
	rw.mustDo(t, http.StatusOK, http.MethodPatch, "/projects/default", rw.AdminToken, map[string]any{"public_results": true})
	id := rw.mustRun(t, rw.AdminToken, "default", "public", nil).Id.String()
	ro := startAPI(t, "DATABASE_URL="+rw.DBURL, "BARRAGE_READ_ONLY=true", "BARRAGE_TRUSTED_PROXIES=127.0.0.1/32",
		"BARRAGE_STREAMS_PER_CALLER=1", "BARRAGE_STREAMS_PER_RUN=2")
	first := ro.mustOpenStream(t, id, "", "X-Forwarded-For", "198.51.100.1")
	ro.wantStreamRefused(t, id, "", "X-Forwarded-For", "198.51.100.1") // per client
	ro.mustOpenStream(t, id, "", "X-Forwarded-For", "198.51.100.2")
	ro.wantStreamRefused(t, id, "", "X-Forwarded-For", "198.51.100.3") // per run
	first()
	waitFor(t, 10*time.Second, func() error {
		status, _, closeStream := ro.openStream(t, id, "", "X-Forwarded-For", "198.51.100.3")
		if status != http.StatusOK {
			closeStream()
			return errNotYet
		}
		return nil
	})
}

// TestSlowHeadersAreCutOff: a client that sends half a request's headers
// and stalls (slowloris) is disconnected after the read-header timeout.
func TestSlowHeadersAreCutOff(t *testing.T) {
	t.Parallel()
	e := startAPI(t, "BARRAGE_HTTP_READ_HEADER_TIMEOUT=500ms")
	conn, err := net.Dial("tcp", strings.TrimPrefix(e.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	started := time.Now()
	if _, err := io.WriteString(conn, "GET /healthz HTTP/1.1\r\nHost: barrage.test\r\nX-Slow: "); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, err = bufio.NewReader(conn).ReadByte()
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("the connection was still open %v after it stalled", time.Since(started))
	}
	if !errors.Is(err, io.EOF) {
		t.Fatalf("read = %v, want EOF: the server closes the connection", err)
	}
	if took := time.Since(started); took < 400*time.Millisecond || took > 3*time.Second {
		t.Errorf("closed after %v, want about 500ms", took)
	}
}

// TestLiveStreamOutlivesServerTimeouts: with read and write timeouts of
// 1 s a live stream still delivers an event sent after 2 s: it has a
// deadline per write instead.
func TestLiveStreamOutlivesServerTimeouts(t *testing.T) {
	t.Parallel()
	e := startAPI(t, "BARRAGE_HTTP_READ_TIMEOUT=1s", "BARRAGE_HTTP_WRITE_TIMEOUT=1s", "BARRAGE_STREAM_WRITE_TIMEOUT=5s")
	id := e.mustRun(t, e.AdminToken, "default", "queued", nil).Id.String()
	opened, done := make(chan struct{}), make(chan struct{})
	var (
		got sseStream
		err error
	)
	go func() {
		defer close(done)
		first := true
		got, err = e.readEvents(t.Context(), id, "", 30*time.Second, func(sseEvent) bool {
			if first {
				first = false
				close(opened)
			}
			return false
		})
	}()
	<-opened
	time.Sleep(2 * time.Second) // past both server timeouts: what is tested is that nothing happens
	e.mustDo(t, http.StatusOK, http.MethodPost, "/runs/"+id+"/stop", e.AdminToken, nil)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the stream did not end after its run was canceled")
	}
	if err != nil || len(got.Events) != 2 || got.Events[1].Data != `{"run_id":"`+id+`","status":"canceled"}` {
		t.Fatalf("stream: %+v, err %v; want queued, then canceled 2 s later", got, err)
	}
}

// TestWaitOutlivesServerTimeouts: POST /runs?wait= waits past the server's
// read and write timeouts (1 s here) and still answers, 202 for a run that
// is still queued.
func TestWaitOutlivesServerTimeouts(t *testing.T) {
	t.Parallel()
	e := startAPI(t, "BARRAGE_HTTP_READ_TIMEOUT=1s", "BARRAGE_HTTP_WRITE_TIMEOUT=1s")
	body := map[string]any{"project": "default", "name": "waited", "spec": testSpec()}
	started := time.Now()
	raw := e.mustDo(t, http.StatusAccepted, http.MethodPost, "/runs?wait=2500ms", e.AdminToken, body)
	if took := time.Since(started); took < 2*time.Second {
		t.Errorf("answered after %v, want the 2.5 s wait", took)
	}
	if r := decode[client.Run](t, raw); r.Status != "queued" {
		t.Errorf("status %s, want queued", r.Status)
	}
}
