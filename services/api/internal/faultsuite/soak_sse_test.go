//go:build faults || soak

package faultsuite

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"
)

// subscriber is one client of a run's events stream: it records, for
// every second that ends after it connected, the lag from the second's end
// (the run's start_at + second + 1 s) to the arrival of the event that
// holds every shard's snapshot of it.
type subscriber struct {
	url, token string
	startAt    time.Time
	shards     int

	connectedAt time.Time
	lags        []time.Duration
	lagOf       map[int]time.Duration // by second
	seen        map[int]bool
	lastID      string
	reconnects  int
	result      bool
	err         error
}

// subscribe runs n subscribers on run id until each has the result event
// or ctx ends; it returns them once all have returned.
func (s *stack) subscribe(ctx context.Context, id string, startAt time.Time, shards, n int) []*subscriber {
	tr := &http.Transport{MaxIdleConnsPerHost: n, DisableCompression: true}
	client := &http.Client{Transport: tr}
	subs := make([]*subscriber, n)
	var wg sync.WaitGroup
	for i := range subs {
		subs[i] = &subscriber{url: s.apiURL + "/api/v1/runs/" + id + "/events", token: s.token,
			startAt: startAt, shards: shards, seen: map[int]bool{}, lagOf: map[int]time.Duration{}}
		wg.Go(func() { subs[i].watch(ctx, client) })
	}
	wg.Wait()
	tr.CloseIdleConnections()
	return subs
}

// watch reads the stream, reconnecting with Last-Event-ID when it drops.
func (sb *subscriber) watch(ctx context.Context, client *http.Client) {
	for ctx.Err() == nil && !sb.result {
		if err := sb.read(ctx, client); err != nil {
			sb.err = err
		}
		if sb.result || ctx.Err() != nil {
			return
		}
		sb.reconnects++
		select {
		case <-ctx.Done():
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func (sb *subscriber) read(ctx context.Context, client *http.Client) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, sb.url, http.NoBody)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+sb.token)
	req.Header.Set("Accept", "text/event-stream")
	if sb.lastID != "" {
		req.Header.Set("Last-Event-ID", sb.lastID)
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET events: %d", resp.StatusCode)
	}
	if sb.connectedAt.IsZero() {
		sb.connectedAt = time.Now()
	}
	br := bufio.NewReaderSize(resp.Body, 64<<10)
	var event, data string
	for !sb.result {
		line, err := br.ReadString('\n')
		if err != nil {
			return fmt.Errorf("read events: %w", err)
		}
		field, value, _ := strings.Cut(strings.TrimRight(line, "\r\n"), ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "event":
			event = value
		case "id":
			sb.lastID = value
		case "data":
			data += value
		case "":
			if line == "\n" || line == "\r\n" {
				sb.handle(time.Now(), event, data)
				event, data = "", ""
			}
		}
	}
	return nil
}

func (sb *subscriber) handle(at time.Time, event, data string) {
	switch event {
	case "result":
		sb.result = true
	case "interval":
		var iv struct{ Second, Snapshots int }
		if json.Unmarshal([]byte(data), &iv) != nil || iv.Snapshots < sb.shards || sb.seen[iv.Second] {
			return
		}
		sb.seen[iv.Second] = true
		end := sb.startAt.Add(time.Duration(iv.Second+1) * time.Second)
		if end.After(sb.connectedAt) { // not a replayed second
			sb.lags = append(sb.lags, at.Sub(end))
			sb.lagOf[iv.Second] = at.Sub(end)
		}
	}
}

// pct is the q-th percentile of sorted d (nearest rank).
func pct(d []time.Duration, q float64) time.Duration {
	i := int(q/100*float64(len(d))+0.5) - 1
	return d[min(max(i, 0), len(d)-1)]
}
