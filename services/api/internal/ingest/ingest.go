// Package ingest is the API's side of the snapshot stream (docs/architecture.md §3):
// it consumes the agents' snapshots from JetStream, stores each one once
// in Postgres (shard progress, and the per-second merge of interval
// snapshots across shards), tells live hubs what changed, and finishes
// runs: when every shard has sent its final snapshot or is lost, it merges
// the finals into the run's result and summary and tells the agents the
// run is done. A sweeper marks shards lost whose agent stopped
// heartbeating or whose deadline passed.
//
// It is not the place for dispatching runs (package dispatch), for serving
// results (httpapi) or live streams (package live: this package publishes
// its events there and the streams read what it stores), nor for SQL
// (package store implements Store).
package ingest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/pkg/wire"
	"github.com/barrage-dev/barrage/services/api/internal/live"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// Store is the storage the ingester needs.
type Store interface {
	// RecordFinal stores a shard's final snapshot in one transaction;
	// Recorded.Duplicate when it was stored before, Ignored when it came
	// too late, Settled when the run is ready to be finished. NotFound
	// when the run or shard does not exist.
	RecordFinal(ctx context.Context, rec runs.SnapshotRecord) (runs.Recorded, error)
	// BeginIntervals starts storing a batch of interval snapshots in one
	// transaction, with the seconds they fall in locked for the ingester
	// to merge (runs.IntervalBatch). NotFound, and nothing stored, when a
	// run or shard of the batch does not exist.
	BeginIntervals(ctx context.Context, recs []runs.SnapshotRecord) (runs.IntervalBatch, error)
	// FinishRun ends a run whose shards are all done or lost as decide
	// says, in one transaction; finished is false when there was nothing
	// to do (ended before, or a shard still pending).
	FinishRun(ctx context.Context, id uuid.UUID, decide func(runs.Settlement) (runs.Finish, error)) (run runs.Run, finished bool, err error)
	// SweepShards marks lost the shards sw finds gone or late and returns
	// the active runs ready to be finished.
	SweepShards(ctx context.Context, sw runs.Sweep) (runs.Swept, error)
}

// Config configures an Ingester. Store and JS are required.
type Config struct {
	// Store is where snapshots and results go.
	Store Store
	// JS reads the snapshot stream and the agent and run-state buckets,
	// which must exist (wire.Setup).
	JS jetstream.JetStream
	// Conn broadcasts events to every replica's hub (live.Broadcast); nil
	// publishes none.
	Conn *nats.Conn
	// Log gets one line per dropped snapshot, lost shard and finished run;
	// nil discards.
	Log *slog.Logger
	// Now is the clock of the sweeper and of run end times; time.Now when nil.
	Now func() time.Time
	// OnInterval, when set, is called in-process with every event (this
	// replica's live hub's Local), after
	// its change committed: an interval merged, a final stored, a run
	// ended. It is called from several goroutines and must not block.
	OnInterval func(live.Event)
	// Workers is the number of batches of snapshots stored at once;
	// default 4.
	Workers int
	// BatchSize bounds the snapshots fetched and stored in one
	// transaction; default 128 (Workers batches fit in the consumer's
	// max ack pending of 512).
	BatchSize int
	// SweepEvery is the sweeper's period; default 1 s.
	SweepEvery time.Duration
	// SweepLimit bounds the shards marked lost and the runs finished per
	// sweep; default 100.
	SweepLimit int
	// RetryDelay is how long a snapshot that could not be stored (Postgres
	// unreachable) waits before it is redelivered; default 2 s.
	RetryDelay time.Duration
	// Redactor redacts the secret query parameters of written URLs before
	// they are stored, as stored specs are; the zero value knows the
	// built-in names.
	Redactor spec.Redactor
	// Metrics is told of every snapshot stored and of the stream's
	// backlog; nil tells no one.
	Metrics Observer
}

// Observer receives the ingest's figures (a *metrics.Metrics).
type Observer interface {
	// SnapshotStored is called once a snapshot is stored, with the time
	// since its interval ended (0 when unknown).
	SnapshotStored(final bool, lag time.Duration)
	// IngestBacklog is called with the snapshots still waiting in the
	// stream, as of a batch's last one.
	IngestBacklog(pending uint64)
}

// noObserver is the Observer of a Config without Metrics.
type noObserver struct{}

func (noObserver) SnapshotStored(bool, time.Duration) {}
func (noObserver) IngestBacklog(uint64)               {}

// Normalize fills the zero fields of c with the defaults.
func (c *Config) Normalize() {
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Metrics == nil {
		c.Metrics = noObserver{}
	}
	if c.Workers <= 0 {
		c.Workers = 4
	}
	if c.BatchSize <= 0 {
		c.BatchSize = 128
	}
	if c.SweepEvery <= 0 {
		c.SweepEvery = time.Second
	}
	if c.SweepLimit <= 0 {
		c.SweepLimit = 100
	}
	if c.RetryDelay <= 0 {
		c.RetryDelay = 2 * time.Second
	}
}

// Validate reports a missing required field.
func (c *Config) Validate() error {
	switch {
	case c.Store == nil:
		return errors.New("ingest: Config.Store is required")
	case c.JS == nil:
		return errors.New("ingest: Config.JS is required")
	}
	return nil
}

// Consumer settings of wire.IngestConsumer.
const (
	// maxAckPending bounds the snapshots handed out and not yet acked,
	// across every API replica.
	maxAckPending = 512
	// ackWait is how long a handed-out snapshot may stay unacked before
	// it is delivered again (an API replica died holding it).
	ackWait = 30 * time.Second
	// pullExpiry is how long one pull request of the continuous pull lives;
	// the client renews it before, and the server's heartbeats (every
	// half of it) tell when it was lost.
	pullExpiry = 10 * time.Second
	// batchLinger is how long a batch waits for more snapshots after its
	// first: the agents publish each second at about the same instant.
	batchLinger = 20 * time.Millisecond
	// drainWait bounds each wait for a snapshot still on its way when the
	// pull stops.
	drainWait = 200 * time.Millisecond
	// storeTimeout bounds storing one snapshot; it is below ackWait.
	storeTimeout = 20 * time.Second
)

// consumerConfig is the configuration of the durable consumer every API
// replica shares.
func consumerConfig() jetstream.ConsumerConfig {
	return jetstream.ConsumerConfig{
		Durable: wire.IngestConsumer, AckPolicy: jetstream.AckExplicitPolicy, DeliverPolicy: jetstream.DeliverAllPolicy,
		AckWait: ackWait, MaxAckPending: maxAckPending, MaxDeliver: -1,
		Description: "barrage-api: snapshots into Postgres",
	}
}

// Ingester consumes snapshots, sweeps shards and finishes runs. Several
// API replicas may run one each on the same stream and database.
type Ingester struct {
	cfg    Config
	cons   jetstream.Consumer
	agents jetstream.KeyValue
	states jetstream.KeyValue
	// mu guards cons, which is recreated when the consumer was deleted.
	mu sync.Mutex
	// reconnects is the connection's reconnect count the sweeper last saw,
	// and heartbeatsFrom when heartbeats count again after the last one
	// (sweep.go); both are the sweeper's alone.
	reconnects     uint64
	heartbeatsFrom time.Time
	// removed is how many messages the snapshot stream had dropped when the
	// sweeper last saw it, and drainedAt when it last saw that grow or
	// nothing waiting (sweep.go); both are the sweeper's.
	removed   uint64
	drainedAt time.Time
}

// New creates (or updates) the durable consumer and returns an Ingester.
func New(ctx context.Context, cfg Config) (*Ingester, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.Normalize()
	in := &Ingester{cfg: cfg}
	if cfg.Conn != nil {
		in.reconnects = cfg.Conn.Stats().Reconnects
	}
	var err error
	if in.agents, err = cfg.JS.KeyValue(ctx, wire.AgentsBucket); err != nil {
		return nil, fmt.Errorf("ingest: bucket %s: %w", wire.AgentsBucket, err)
	}
	if in.states, err = cfg.JS.KeyValue(ctx, wire.RunsBucket); err != nil {
		return nil, fmt.Errorf("ingest: bucket %s: %w", wire.RunsBucket, err)
	}
	if in.cons, err = cfg.JS.CreateOrUpdateConsumer(ctx, wire.SnapStream, consumerConfig()); err != nil {
		return nil, fmt.Errorf("ingest: consumer %s: %w", wire.IngestConsumer, err)
	}
	return in, nil
}

// Run consumes snapshots and sweeps shards until ctx ends. On the way out
// it stops fetching, hands undelivered snapshots back to the stream, and
// finishes storing the ones in hand. It returns nil once everything it
// started has stopped.
func (in *Ingester) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	wg.Go(func() { in.consume(ctx) })
	wg.Go(func() { in.sweepLoop(ctx) })
	wg.Wait()
	return nil
}
