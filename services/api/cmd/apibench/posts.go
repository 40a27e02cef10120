package main

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// posts is what the POST /runs phase measured.
type posts struct {
	workers    int
	elapsed    time.Duration
	created    int
	failures   map[string]int // status or error → count
	lat        []time.Duration
	rowsBefore int64
	rowsAfter  int64
	usage      phaseUsage
}

// postWorker is what one worker saw.
type postWorker struct {
	created  int
	failures map[string]int
	lat      []time.Duration
}

// measurePosts runs cfg.postWorkers workers, each sending POST /runs back
// to back for cfg.postFor over the client's one connection pool, and
// counts the rows the table gained.
func measurePosts(ctx context.Context, cfg config, cl *client, db *pgx.Conn, pr *probe) (posts, error) {
	out := posts{workers: cfg.postWorkers, failures: map[string]int{}}
	if err := db.QueryRow(ctx, "SELECT count(*) FROM runs").Scan(&out.rowsBefore); err != nil {
		return out, fmt.Errorf("count runs: %w", err)
	}
	results := make([]postWorker, cfg.postWorkers)
	before := pr.sample()
	start := time.Now()
	deadline := start.Add(cfg.postFor)
	var wg sync.WaitGroup
	for i := range results {
		wg.Go(func() { results[i] = postLoop(ctx, cl, deadline) })
	}
	wg.Wait()
	out.elapsed = time.Since(start)
	sent := 0
	for _, r := range results {
		out.created += r.created
		out.lat = append(out.lat, r.lat...)
		sent += r.created
		for k, v := range r.failures {
			out.failures[k] += v
			sent += v
		}
	}
	out.usage = pr.since(before, "POST /runs", sent)
	if ctx.Err() != nil {
		return out, fmt.Errorf("POST /runs: %w", ctx.Err())
	}
	if err := db.QueryRow(ctx, "SELECT count(*) FROM runs").Scan(&out.rowsAfter); err != nil {
		return out, fmt.Errorf("count runs: %w", err)
	}
	if out.created == 0 && cfg.postFor > 0 {
		return out, fmt.Errorf("POST /runs: no run created: %v", out.failures)
	}
	return out, nil
}

// postLoop sends POST /runs until deadline; the latencies are of the 201s.
func postLoop(ctx context.Context, cl *client, deadline time.Time) postWorker {
	w := postWorker{failures: map[string]int{}}
	for ctx.Err() == nil && time.Now().Before(deadline) {
		status, _, lat, err := cl.createRun(ctx)
		switch {
		case err != nil:
			w.failures["error: "+err.Error()]++
		case status == http.StatusCreated:
			w.created++
			w.lat = append(w.lat, lat)
		default:
			w.failures[fmt.Sprintf("status %d", status)]++
		}
	}
	return w
}
