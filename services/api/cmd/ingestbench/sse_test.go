package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

func TestSSEStats(t *testing.T) {
	t.Parallel()
	t0 := time.Unix(1000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	tests := []struct {
		name     string
		got      []sseArrival
		pub      []time.Time
		wantLags []time.Duration
		unseen   int
	}{
		{
			name:     "events cover all",
			got:      []sseArrival{{at(100), 1}, {at(150), 3}},
			pub:      []time.Time{at(20), at(0), at(10)}, // out of order on purpose
			wantLags: []time.Duration{100 * time.Millisecond, 140 * time.Millisecond, 130 * time.Millisecond},
		},
		{
			name:     "a snapshot no event shows",
			got:      []sseArrival{{at(50), 2}},
			pub:      []time.Time{at(0), at(0), at(0)},
			wantLags: []time.Duration{50 * time.Millisecond, 50 * time.Millisecond},
			unseen:   1,
		},
		{
			name:   "no events",
			pub:    []time.Time{at(0)},
			unseen: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := &sseWatch{second: map[int][]sseArrival{0: tt.got}}
			st := w.stats([][]time.Time{tt.pub})
			if fmt.Sprint(st.lags) != fmt.Sprint(tt.wantLags) || st.unseen != tt.unseen {
				t.Errorf("lags %v unseen %d, want %v and %d", st.lags, st.unseen, tt.wantLags, tt.unseen)
			}
		})
	}
}

// TestSSEReconnect drops the first stream and checks that the client
// resumes with Last-Event-ID and counts the reconnect.
func TestSSEReconnect(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	var resumedFrom atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer tok" {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		if calls.Add(1) == 1 {
			fmt.Fprint(w, "event: status\nid: 0.0\ndata: {}\n\n: heartbeat\n\nevent: interval\nid: 0.2\ndata: {\"second\":0,\"snapshots\":2}\n\n")
			return // the stream drops
		}
		resumedFrom.Store(r.Header.Get("Last-Event-ID"))
		fmt.Fprint(w, "event: interval\nid: 0.3\ndata: {\"second\":0,\"snapshots\":3}\n\nevent: result\nid: 0.3\ndata: {}\n\n")
	}))
	defer srv.Close()
	ctx := context.Background()
	w := startSSE(ctx, srv.Client(), srv.URL, "tok", "r1")
	if err := w.waitConnected(ctx); err != nil {
		t.Fatal(err)
	}
	w.stop()
	now := time.Now()
	st := w.stats([][]time.Time{{now, now, now}})
	if got := resumedFrom.Load(); got != "0.2" {
		t.Errorf("Last-Event-ID %v, want 0.2", got)
	}
	if st.reconnects != 1 || st.unseen != 0 || len(st.lags) != 3 || !st.result || st.intervals != 2 {
		t.Errorf("stats %+v, want 1 reconnect, 3 lags, 2 intervals and the result", st)
	}
}
