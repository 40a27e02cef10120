package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// Settings of the bench's SSE client.
const (
	// sseRetryEvery is the wait before reconnecting a dropped stream.
	sseRetryEvery = 100 * time.Millisecond
	// sseMaxReconnects bounds the reconnects of one phase's stream.
	sseMaxReconnects = 1000
	// sseConnectWait is how long a phase waits for the stream's first event.
	sseConnectWait = 10 * time.Second
	// sseEndWait is how long a phase waits, after the run ended, for the
	// stream's result event.
	sseEndWait = 15 * time.Second
)

// sseArrival is one interval event as the client received it.
type sseArrival struct {
	at        time.Time
	snapshots int
}

// sseWatch reads one run's GET /runs/{id}/events as a dashboard would,
// reconnecting with Last-Event-ID when the stream drops, and records when
// each interval event arrived and how many shard snapshots it held.
type sseWatch struct {
	client *http.Client
	url    string
	token  string

	mu         sync.Mutex
	second     map[int][]sseArrival // in arrival order
	events     int
	reconnects int
	lastID     string
	result     bool
	err        error

	connected chan struct{} // closed at the first event
	done      chan struct{} // closed when watch returns
	cancel    context.CancelFunc
}

// startSSE opens the events stream of run id and reads it in the
// background until the result event, stop or too many reconnects.
func startSSE(ctx context.Context, client *http.Client, base, token, id string) *sseWatch {
	ctx, cancel := context.WithCancel(ctx)
	w := &sseWatch{
		client: client, url: base + "/api/v1/runs/" + id + "/events", token: token,
		second: map[int][]sseArrival{}, connected: make(chan struct{}), done: make(chan struct{}), cancel: cancel,
	}
	go func() {
		defer close(w.done)
		err := w.watch(ctx)
		w.mu.Lock()
		w.err = err
		w.mu.Unlock()
	}()
	return w
}

// waitConnected waits for the stream's first event (the run's status).
func (w *sseWatch) waitConnected(ctx context.Context) error {
	t := time.NewTimer(sseConnectWait)
	defer t.Stop()
	select {
	case <-w.connected:
		return nil
	case <-w.done:
		return fmt.Errorf("events stream: %w", w.failure())
	case <-t.C:
		return fmt.Errorf("events stream: no event within %v", sseConnectWait)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// stop waits up to sseEndWait for the result event, then closes the
// stream and waits for its reader.
func (w *sseWatch) stop() {
	t := time.NewTimer(sseEndWait)
	defer t.Stop()
	select {
	case <-w.done:
	case <-t.C:
	}
	w.close()
}

// close closes the stream now and waits for its reader.
func (w *sseWatch) close() {
	w.cancel()
	<-w.done
}

// failure returns why the reader stopped, or a generic error.
func (w *sseWatch) failure() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	return errors.New("stream closed")
}

// watch connects and reads until the result event, reconnecting with
// Last-Event-ID when the stream ends without one.
func (w *sseWatch) watch(ctx context.Context) error {
	for attempt := 0; ; attempt++ {
		err := w.read(ctx)
		w.mu.Lock()
		result := w.result
		w.mu.Unlock()
		switch {
		case result:
			return nil
		case ctx.Err() != nil:
			return nil //nolint:nilerr // stopped by the phase
		case attempt >= sseMaxReconnects:
			return fmt.Errorf("events stream dropped %d times, last: %w", attempt, err)
		}
		if err := sleepUntil(ctx, time.Now().Add(sseRetryEvery)); err != nil {
			return nil //nolint:nilerr // stopped by the phase
		}
		w.mu.Lock()
		w.reconnects++
		w.mu.Unlock()
	}
}

// read makes one request and reads its events until the stream ends.
func (w *sseWatch) read(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, w.url, http.NoBody)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+w.token)
	req.Header.Set("Accept", "text/event-stream")
	w.mu.Lock()
	if w.lastID != "" {
		req.Header.Set("Last-Event-ID", w.lastID)
	}
	w.mu.Unlock()
	resp, err := w.client.Do(req)
	if err != nil {
		return fmt.Errorf("GET events: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return fmt.Errorf("GET events = %d: %s", resp.StatusCode, raw)
	}
	br := bufio.NewReader(resp.Body)
	var event, id, data string
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return fmt.Errorf("read events: %w", err)
		}
		line = strings.TrimRight(line, "\r\n")
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "event":
			event = value
		case "id":
			id = value
		case "data":
			data += value
		case "": // a blank line ends an event; ": ..." is a comment
			if line == "" && event != "" {
				w.record(time.Now(), event, id, data)
			}
			if line == "" {
				event, id, data = "", "", ""
			}
		}
		if w.resulted() {
			return nil
		}
	}
}

// resulted reports whether the result event came.
func (w *sseWatch) resulted() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.result
}

// record notes one event received at at.
func (w *sseWatch) record(at time.Time, event, id, data string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.events == 0 {
		close(w.connected)
	}
	w.events++
	if id != "" {
		w.lastID = id
	}
	switch event {
	case "result":
		w.result = true
	case "interval":
		var iv struct {
			Second    int `json:"second"`
			Snapshots int `json:"snapshots"`
		}
		if json.Unmarshal([]byte(data), &iv) == nil {
			w.second[iv.Second] = append(w.second[iv.Second], sseArrival{at: at, snapshots: iv.Snapshots})
		}
	}
}

// sseStats is what the stream showed of one phase.
type sseStats struct {
	lags       []time.Duration
	events     int // every event received, status and result included
	intervals  int // interval events
	reconnects int
	unseen     int // interval snapshots no interval event accounted for
	result     bool
	err        error
}

// stats computes, second by second, the lag of the k-th snapshot
// published (in publish order) as the arrival of the first interval event
// of that second holding at least k snapshots minus its publish time.
// sent[s] holds the publish times of second s's snapshots.
func (w *sseWatch) stats(sent [][]time.Time) sseStats {
	w.mu.Lock()
	defer w.mu.Unlock()
	st := sseStats{events: w.events, reconnects: w.reconnects, result: w.result, err: w.err}
	for s, pub := range sent {
		got := w.second[s]
		st.intervals += len(got)
		pub = slices.Clone(pub)
		slices.SortFunc(pub, func(a, b time.Time) int { return a.Compare(b) })
		j := 0
		for k := 1; k <= len(pub); k++ {
			for j < len(got) && got[j].snapshots < k {
				j++
			}
			if j == len(got) {
				st.unseen += len(pub) - k + 1
				break
			}
			st.lags = append(st.lags, got[j].at.Sub(pub[k-1]))
		}
	}
	return st
}
