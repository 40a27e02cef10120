// Package promwrite sends samples to a Prometheus remote-write endpoint
// with the remote write 1.0 protocol (a protobuf WriteRequest,
// proto/remotewrite/v1, snappy-compressed; the HTTP exchange, compression
// and retries with backoff are client_golang/exp's api/remote).
//
// A Sender holds a bounded queue: Enqueue never blocks, and when the queue
// is full the oldest samples go first, counted in Stats.Dropped, so a slow
// or absent receiver never holds up its caller (the run exporter in package
// remotewrite, fed by the ingest's figures). Run sends the queue in
// batches until its context ends. It knows nothing of runs or projects.
package promwrite

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/exp/api/remote"

	remotewritev1 "github.com/barrage-dev/barrage/proto/remotewrite/v1"
)

// Label is one label of a series.
type Label struct{ Name, Value string }

// Sample is one value of one series at one time.
type Sample struct {
	// Labels name the series, __name__ among them; any order.
	Labels []Label
	Value  float64
	At     time.Time
}

// Auth is how the sender authenticates: extra headers, and basic auth or
// a bearer token (at most one of them).
type Auth struct {
	Headers            map[string]string
	Username, Password string
	BearerToken        string
}

// Defaults of Options.
const (
	DefaultQueueSize  = 50_000
	DefaultBatchSize  = 2_000
	DefaultMinBackoff = 100 * time.Millisecond
	DefaultMaxBackoff = 5 * time.Second
	DefaultMaxRetries = 5
)

// Options configure a Sender.
type Options struct {
	// URL is the receiver's write endpoint, e.g.
	// http://prometheus:9090/api/v1/write; required.
	URL  string
	Auth Auth
	// Client sends the requests; its Transport is where a target policy
	// belongs (a dialer that refuses what the policy does not allow).
	// Default: a client with a 10 s timeout.
	Client *http.Client
	// QueueSize bounds the samples waiting; BatchSize the samples of one
	// request.
	QueueSize, BatchSize int
	// MinBackoff, MaxBackoff and MaxRetries shape the retries of a request
	// the receiver may take later (a network error, a 5xx, a 429).
	MinBackoff, MaxBackoff time.Duration
	MaxRetries             int
	// Log gets a line for each batch given up on; nil discards.
	Log *slog.Logger
}

// Stats counts what a Sender did with its samples.
type Stats struct {
	// Sent were accepted by the receiver; Dropped left a full queue
	// unsent; Rejected were refused for good (a 4xx) or given up on after
	// the retries; Retries counts the requests tried again.
	Sent, Dropped, Rejected, Retries int64
}

// Sender queues samples and sends them. Its methods are safe for
// concurrent use.
type Sender struct {
	opts Options
	api  *remote.API

	mu    sync.Mutex
	queue []Sample
	wake  chan struct{}

	sent, dropped, rejected, retries atomic.Int64
}

// New checks opts and returns a Sender; it does no I/O.
func New(opts Options) (*Sender, error) {
	if opts.URL == "" {
		return nil, errors.New("promwrite: a URL is required")
	}
	if opts.Auth.BearerToken != "" && (opts.Auth.Username != "" || opts.Auth.Password != "") {
		return nil, errors.New("promwrite: basic auth and a bearer token: give one")
	}
	if opts.Client == nil {
		opts.Client = &http.Client{Timeout: 10 * time.Second}
	}
	if opts.QueueSize <= 0 {
		opts.QueueSize = DefaultQueueSize
	}
	if opts.BatchSize <= 0 {
		opts.BatchSize = DefaultBatchSize
	}
	if opts.MinBackoff <= 0 {
		opts.MinBackoff = DefaultMinBackoff
	}
	if opts.MaxBackoff <= 0 {
		opts.MaxBackoff = DefaultMaxBackoff
	}
	if opts.MaxRetries <= 0 {
		opts.MaxRetries = DefaultMaxRetries
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	client := *opts.Client
	client.Transport = &authTransport{base: client.Transport, auth: opts.Auth}
	api, err := remote.NewAPI(opts.URL,
		remote.WithAPIHTTPClient(&client),
		remote.WithAPIPath(""),
		remote.WithAPIBackoff(remote.BackoffConfig{Min: opts.MinBackoff, Max: opts.MaxBackoff, MaxRetries: opts.MaxRetries}),
		remote.WithAPILogger(slog.New(slog.DiscardHandler)),
	)
	if err != nil {
		return nil, fmt.Errorf("promwrite: %w", err)
	}
	return &Sender{opts: opts, api: api, wake: make(chan struct{}, 1)}, nil
}

// Enqueue queues samples for Run to send, dropping the oldest queued ones
// beyond QueueSize. It never blocks on the network.
func (s *Sender) Enqueue(samples ...Sample) {
	if len(samples) == 0 {
		return
	}
	s.mu.Lock()
	s.queue = append(s.queue, samples...)
	if over := len(s.queue) - s.opts.QueueSize; over > 0 {
		s.queue = slices.Delete(s.queue, 0, over)
		s.dropped.Add(int64(over))
	}
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Queued is the number of samples waiting.
func (s *Sender) Queued() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue)
}

// Stats returns the counts so far.
func (s *Sender) Stats() Stats {
	return Stats{Sent: s.sent.Load(), Dropped: s.dropped.Load(), Rejected: s.rejected.Load(), Retries: s.retries.Load()}
}

// Run sends the queue, a batch at a time, whenever it holds samples, until
// ctx is done.
func (s *Sender) Run(ctx context.Context) {
	for {
		for s.Queued() > 0 && ctx.Err() == nil {
			s.sendBatch(ctx)
		}
		select {
		case <-ctx.Done():
			return
		case <-s.wake:
		}
	}
}

// Flush sends every sample queued now, for callers that need them out
// before they go on (a test, a shutdown); it returns ctx's error if ctx
// ends first.
func (s *Sender) Flush(ctx context.Context) error {
	for s.Queued() > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		s.sendBatch(ctx)
	}
	return nil
}

// sendBatch sends the oldest batch. A batch the receiver may take later
// stays at the head of the queue after the retries (a wait of MaxBackoff
// first); one it refuses is counted and dropped.
func (s *Sender) sendBatch(ctx context.Context) {
	s.mu.Lock()
	n := min(len(s.queue), s.opts.BatchSize)
	batch := slices.Clone(s.queue[:n])
	s.mu.Unlock()
	if n == 0 {
		return
	}
	_, err := s.api.Write(ctx, remote.WriteV1MessageType, encode(batch),
		remote.WithWriteRetryCallback(func(error) { s.retries.Add(1) }))
	switch {
	case err == nil:
		s.sent.Add(int64(n))
		s.take(batch)
	case ctx.Err() != nil:
	case retryable(err):
		s.opts.Log.Warn("remote write: receiver unavailable; the batch waits", slog.Int("samples", n), slog.String("error", s.redacted(err)))
		t := time.NewTimer(s.opts.MaxBackoff)
		select {
		case <-ctx.Done():
		case <-t.C:
		}
		t.Stop()
	default:
		s.opts.Log.Warn("remote write: batch refused", slog.Int("samples", n), slog.String("error", s.redacted(err)))
		s.rejected.Add(int64(n))
		s.take(batch)
	}
}

// take removes batch from the head of the queue, unless Enqueue dropped
// (some of) it meanwhile.
func (s *Sender) take(batch []Sample) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for n < len(batch) && n < len(s.queue) && sameSample(s.queue[n], batch[n]) {
		n++
	}
	s.queue = slices.Delete(s.queue, 0, n)
}

func sameSample(a, b Sample) bool {
	return a.Value == b.Value && a.At.Equal(b.At) && slices.Equal(a.Labels, b.Labels)
}

// redacted is err's text with the query of the endpoint's URL, which may
// carry a key, replaced: network errors quote the URL.
func (s *Sender) redacted(err error) string {
	msg := err.Error()
	if u, perr := url.Parse(s.opts.URL); perr == nil && u.RawQuery != "" {
		msg = strings.ReplaceAll(msg, u.RawQuery, "[redacted]")
	}
	return msg
}

// retryable reports whether err is one the receiver may not repeat: a
// network error or a 5xx or 429 answer (api/remote's retryable errors tell
// their Retry-After), after api.Write's own retries.
func retryable(err error) bool {
	var later interface{ RetryAfter() time.Duration }
	return errors.As(err, &later)
}

// encode builds the WriteRequest of a batch: one series per sample, labels
// sorted by name as the protocol requires.
func encode(batch []Sample) *remotewritev1.WriteRequest {
	req := &remotewritev1.WriteRequest{Timeseries: make([]*remotewritev1.TimeSeries, len(batch))}
	for i, smp := range batch {
		labels := make([]*remotewritev1.Label, len(smp.Labels))
		for j, l := range smp.Labels {
			labels[j] = &remotewritev1.Label{Name: l.Name, Value: l.Value}
		}
		slices.SortFunc(labels, func(a, b *remotewritev1.Label) int { return strings.Compare(a.Name, b.Name) })
		req.Timeseries[i] = &remotewritev1.TimeSeries{
			Labels:  labels,
			Samples: []*remotewritev1.Sample{{Value: smp.Value, Timestamp: smp.At.UnixMilli()}},
		}
	}
	return req
}

// authTransport adds the configured headers and credentials to each request.
type authTransport struct {
	base http.RoundTripper
	auth Auth
}

func (t *authTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for k, v := range t.auth.Headers {
		req.Header.Set(k, v)
	}
	switch {
	case t.auth.BearerToken != "":
		req.Header.Set("Authorization", "Bearer "+t.auth.BearerToken)
	case t.auth.Username != "" || t.auth.Password != "":
		req.SetBasicAuth(t.auth.Username, t.auth.Password)
	}
	base := t.base
	if base == nil {
		base = http.DefaultTransport
	}
	return base.RoundTrip(req)
}
