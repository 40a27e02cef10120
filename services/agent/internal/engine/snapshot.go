package engine

import (
	"context"
	"time"

	"github.com/barrage-dev/barrage/pkg/hist"
)

// Snapshot is the measurements of one interval of a run, or with Final, of the
// whole run.
type Snapshot struct {
	// Seq numbers the snapshots of a run from 1; the final one has the last seq.
	Seq   uint64
	Final bool
	// Start and End bound the interval (the whole run for the final snapshot).
	Start, End time.Time
	// Count is the number of requests completed, Errors those that failed.
	Count, Errors int64
	// Codes counts requests by result code (see request.Result.Code).
	Codes map[int32]int64
	// Sent and Received count bytes on the wire.
	Sent, Received int64
	// Service is actual send → response done; Response is intended send →
	// response done (corrected for coordinated omission); Lag is intended → actual send.
	Service, Response, Lag *hist.Histogram
	// Server is the latency the target reported in its latency header, one
	// value per response that carried a readable one (so its count may be
	// below Count); nil unless Options.ServerLatency.
	Server *hist.Histogram
	// Phases are the request phase histograms (HTTP clients only).
	Phases PhaseHists
	// Connections is the number of connections the run uses.
	Connections int
	// Aborted is set on the final snapshot when the run stopped on an abort-on code.
	Aborted bool
	// Dropped, on the final snapshot, counts requests the pacing scheduled within
	// the duration that were never sent: the target (or the connections) did
	// not keep up. Closed loops drop nothing.
	Dropped int64
	// Entries holds each entry's part of the figures, in the order of
	// Options.Mix; nil without a mix.
	Entries []*EntrySnapshot
	// Timeline, on the final snapshot, is a uniform sample of the run's
	// requests (at most Options.Timeline of them, in no order), drawn from
	// TimelineSeen requests; nil on interval snapshots.
	Timeline     []TimelineSample
	TimelineSeen int64
	// WrittenURLs, on interval snapshots, are URLs of successful writes
	// recorded since the previous snapshot (Options.WrittenURLs), in no
	// particular order across connections; empty when none.
	WrittenURLs []string
	// URLsDropped, on the final snapshot, counts the successful writes of
	// the run whose URL no snapshot carried.
	URLsDropped int64
}

// Sink receives snapshots as a run progresses. The snapshot and its histograms
// are valid only during Publish: a sink that keeps them must copy. Publish is
// called from one goroutine at a time.
type Sink interface {
	Publish(ctx context.Context, s *Snapshot) error
}

// SinkFunc adapts a function to a Sink.
type SinkFunc func(ctx context.Context, s *Snapshot) error

// Publish implements Sink.
func (f SinkFunc) Publish(ctx context.Context, s *Snapshot) error { return f(ctx, s) }

// newSnapshot returns an empty snapshot, with a Server histogram when server
// is set and the figures of that many request-mix entries.
func newSnapshot(server bool, entries int) *Snapshot {
	s := &Snapshot{
		Entries:  newEntries(entries),
		Codes:    make(map[int32]int64),
		Service:  hist.New(),
		Response: hist.New(),
		Lag:      hist.New(),
	}
	if server {
		s.Server = hist.New()
	}
	return s
}

// add merges o's figures into s.
func (s *Snapshot) add(o *Snapshot) error {
	s.Count += o.Count
	s.Errors += o.Errors
	s.Sent += o.Sent
	s.Received += o.Received
	for code, n := range o.Codes {
		s.Codes[code] += n
	}
	for _, pair := range [][2]*hist.Histogram{{s.Service, o.Service}, {s.Response, o.Response}, {s.Lag, o.Lag}, {s.Server, o.Server}} {
		if pair[0] == nil {
			continue
		}
		if err := pair[0].Merge(pair[1]); err != nil {
			return err
		}
	}
	if err := s.Phases.add(&o.Phases); err != nil {
		return err
	}
	for i, e := range o.Entries {
		if err := s.Entries[i].add(e); err != nil {
			return err
		}
	}
	return nil
}

// reset empties s for reuse.
func (s *Snapshot) reset() {
	s.Count, s.Errors, s.Sent, s.Received = 0, 0, 0, 0
	clear(s.WrittenURLs)
	s.WrittenURLs = s.WrittenURLs[:0]
	clear(s.Codes)
	s.Service.Reset()
	s.Response.Reset()
	s.Lag.Reset()
	if s.Server != nil {
		s.Server.Reset()
	}
	s.Phases.reset()
	for _, e := range s.Entries {
		e.reset()
	}
}
