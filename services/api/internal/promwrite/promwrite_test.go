package promwrite_test

import (
	"context"
	"encoding/base64"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/services/api/internal/promtest"
	"github.com/barrage-dev/barrage/services/api/internal/promwrite"
)

func series(name string, v float64, at time.Time, extra ...promwrite.Label) promwrite.Sample {
	return promwrite.Sample{Labels: append([]promwrite.Label{{Name: "job", Value: "t"}, {Name: "__name__", Value: name}}, extra...), Value: v, At: at}
}

// TestSendsToARealPrometheus sends samples through a proxy that checks the
// credentials and fails the first requests with a 503: the retries get
// them through, and Prometheus answers PromQL with exactly what was sent.
func TestSendsToARealPrometheus(t *testing.T) {
	t.Parallel()
	prom := promtest.Start(t)
	target, err := url.Parse(prom.URL)
	if err != nil {
		t.Fatal(err)
	}
	var failFirst atomic.Int32
	failFirst.Store(2)
	proxy := httputil.NewSingleHostReverseProxy(target)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		want := "Basic " + base64.StdEncoding.EncodeToString([]byte("barrage:s3cret"))
		if r.Header.Get("Authorization") != want || r.Header.Get("X-Scope-OrgID") != "tenant-1" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		if failFirst.Add(-1) >= 0 {
			http.Error(w, "warming up", http.StatusServiceUnavailable)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)

	s, err := promwrite.New(promwrite.Options{
		URL:        front.URL + "/api/v1/write",
		Auth:       promwrite.Auth{Username: "barrage", Password: "s3cret", Headers: map[string]string{"X-Scope-OrgID": "tenant-1"}},
		MinBackoff: 10 * time.Millisecond, MaxBackoff: 50 * time.Millisecond, BatchSize: 3,
	})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().Add(-10 * time.Second).Truncate(time.Second)
	for i := range 5 {
		s.Enqueue(series("barrage_test_requests_total", float64(100*(i+1)), now.Add(time.Duration(i)*time.Second), promwrite.Label{Name: "run", Value: "r1"}))
	}
	s.Enqueue(series("barrage_test_p99_seconds", 0.0125, now.Add(4*time.Second)))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	st := s.Stats()
	if st.Sent != 6 || st.Dropped != 0 || st.Rejected != 0 || st.Retries != 2 {
		t.Fatalf("stats %+v, want 6 sent after 2 retries", st)
	}
	if v := prom.Value(t, `barrage_test_requests_total{run="r1",job="t"}`); v != 500 {
		t.Errorf("the last requests_total is %v, want 500", v)
	}
	if v := prom.Value(t, `count_over_time(barrage_test_requests_total{run="r1"}[1m])`); v != 5 {
		t.Errorf("%v samples of requests_total stored, want 5", v)
	}
	if v := prom.Value(t, `barrage_test_p99_seconds`); v != 0.0125 {
		t.Errorf("p99 %v, want 0.0125", v)
	}
}

// TestQueueDropsTheOldest fills a queue with nowhere to send: the oldest
// samples go, counted, and Enqueue never waits.
func TestQueueDropsTheOldest(t *testing.T) {
	t.Parallel()
	s, err := promwrite.New(promwrite.Options{URL: "http://127.0.0.1:1/api/v1/write", QueueSize: 4})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Now()
	for i := range 10 {
		s.Enqueue(series("x", float64(i), at))
	}
	if q, d := s.Queued(), s.Stats().Dropped; q != 4 || d != 6 {
		t.Fatalf("queued %d, dropped %d; want 4 and 6", q, d)
	}
}

// TestRefusedBatchIsCountedAndDropped: a 400 is not retried, and the
// bearer token goes with the request.
func TestRefusedBatchIsCountedAndDropped(t *testing.T) {
	t.Parallel()
	var calls, authorized atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.Header.Get("Authorization") == "Bearer t0ken" {
			authorized.Add(1)
		}
		http.Error(w, "out of order sample", http.StatusBadRequest)
	}))
	t.Cleanup(srv.Close)
	s, err := promwrite.New(promwrite.Options{URL: srv.URL, Auth: promwrite.Auth{BearerToken: "t0ken"}})
	if err != nil {
		t.Fatal(err)
	}
	s.Enqueue(series("x", 1, time.Now()), series("x", 2, time.Now()))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if st := s.Stats(); st.Rejected != 2 || st.Sent != 0 || calls.Load() != 1 || authorized.Load() != 1 {
		t.Fatalf("stats %+v after %d calls (%d with the token); want 2 rejected in 1 authorized call", st, calls.Load(), authorized.Load())
	}
	if _, err := promwrite.New(promwrite.Options{URL: srv.URL, Auth: promwrite.Auth{BearerToken: "a", Username: "b"}}); err == nil {
		t.Fatal("basic auth and a bearer token together were accepted")
	}
}

// TestNetworkErrorsHideTheQuery: an endpoint's query may hold a key; the
// error logged when the endpoint is unreachable does not show it.
func TestNetworkErrorsHideTheQuery(t *testing.T) {
	t.Parallel()
	logs := &strings.Builder{}
	s, err := promwrite.New(promwrite.Options{URL: "http://127.0.0.1:1/api/v1/write?api_key=s3cret", MaxRetries: 1,
		MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond, Log: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	s.Enqueue(series("x", 1, time.Now()))
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_ = s.Flush(ctx)
	if !strings.Contains(logs.String(), "receiver unavailable") || strings.Contains(logs.String(), "s3cret") {
		t.Fatalf("logs: %s", logs)
	}
}
