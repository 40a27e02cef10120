package live

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// bulkySource is a running run with seconds seconds stored, each of which
// encodes to a large event (bulkyEncoder).
type bulkySource struct{ seconds int }

func (bulkySource) Run(context.Context) (runs.Run, error) { return runs.Run{}, nil }
func (bulkySource) Result(context.Context, runs.Run) (runs.Result, error) {
	return runs.Result{}, nil
}

func (s bulkySource) Marks(_ context.Context, from, limit int) ([]runs.IntervalMark, error) {
	var out []runs.IntervalMark
	for sec := from; sec < s.seconds && len(out) < limit; sec++ {
		out = append(out, runs.IntervalMark{Second: sec, Snapshots: 1, Count: 1})
	}
	return out, nil
}

func (s bulkySource) Intervals(_ context.Context, from, _ int) ([]runs.Interval, error) {
	return []runs.Interval{{Second: from, Snapshots: 1}}, nil
}

// bulkyEncoder renders every second as 64 KiB.
type bulkyEncoder struct{}

func (bulkyEncoder) Interval(*runs.Interval) ([]byte, error) {
	return bytes.Repeat([]byte("x"), 64<<10), nil
}
func (bulkyEncoder) Result(runs.Run, runs.Result) ([]byte, error) {
	return []byte("{}"), nil
}

// TestStreamWriteDeadlineCutsOffAStalledClient: a client that opens a
// stream and stops reading is cut off after WriteTimeout, on a real
// connection, although the server has no WriteTimeout of its own.
func TestStreamWriteDeadlineCutsOffAStalledClient(t *testing.T) {
	t.Parallel()
	hub := New(Options{})
	id := uuid.New()
	served := make(chan time.Duration, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		started := time.Now()
		NewStream(StreamOptions{
			Source: bulkySource{seconds: 2000}, Run: runs.Run{ID: id, Status: runs.Running, ShardCount: 1},
			Sub: hub.Subscribe(id), Encoder: bulkyEncoder{}, WriteTimeout: 200 * time.Millisecond,
		}).Serve(r.Context(), w)
		served <- time.Since(started)
	}))
	defer srv.Close()
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetReadBuffer(4 << 10)
	}
	if _, err := conn.Write([]byte("GET /events HTTP/1.1\r\nHost: x\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	// The client reads nothing: 125 MiB of replay cannot fit in the buffers.
	select {
	case took := <-served:
		if took > 10*time.Second {
			t.Errorf("the stream ended after %v", took)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("a stream to a client that reads nothing was still writing after 20s")
	}
}
