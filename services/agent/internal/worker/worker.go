// Package worker is a Barrage agent on NATS (docs/architecture.md): it
// announces itself with heartbeats in the agents bucket, takes shard
// assignments from its own JetStream consumer, runs each shard with the
// load engine from the assignment's start_at until its deadline, a stop or
// the fail-safe, and publishes interval and final snapshots for the API to
// ingest.
//
// `barrage-agent serve` runs one Worker per process; other processes
// (barrage-api -all-in-one, the API's tests) embed one through the public
// package services/agent/agent. It is not the NATS contract (pkg/wire owns
// the names and timings) nor the load engine.
package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/barrage-dev/barrage/pkg/natsauth"
	"github.com/barrage-dev/barrage/pkg/version"
	"github.com/barrage-dev/barrage/pkg/wire"
	"github.com/barrage-dev/barrage/services/agent/internal/agentmetrics"
)

// Defaults of Config.
const (
	// DefaultCapacity is how many shards a worker runs at once by default.
	DefaultCapacity = 4
	// DefaultShutdownTimeout bounds the wait for final snapshots on shutdown.
	DefaultShutdownTimeout = 5 * time.Second
	// DefaultNATSURL is where a worker connects when neither Conn nor NATSURL is set.
	DefaultNATSURL = nats.DefaultURL
)

// Config configures a Worker. Call New, which fills the defaults.
type Config struct {
	// NATSURL is the NATS server to dial when Conn is nil; default
	// nats://127.0.0.1:4222. The worker reconnects for as long as it runs.
	NATSURL string
	// Conn, when set, is used instead of dialing; the worker neither drains
	// nor closes it.
	Conn *nats.Conn
	// Name is the agent's human name in heartbeats (e.g. the hostname); required.
	Name string
	// Credentials, when set, are the agent's own NATS credentials (the
	// contents of a .creds file from `barrage-api agent-credentials
	// create`): the worker dials with them, takes its id from them and does
	// only what they allow (docs/architecture.md §7), so it leaves creating the streams
	// and buckets to barrage-api. Ignored when Conn is set, but for the id.
	Credentials []byte
	// Labels are matched by runs' agent selectors.
	Labels map[string]string
	// Capacity is how many shards the worker runs at once; default 4.
	Capacity int
	// Version is reported in heartbeats; default the binary's version.
	Version string
	// Logger receives the worker's logs; default slog.Default().
	Logger *slog.Logger
	// ShutdownTimeout bounds how long a shutdown waits for the shards' final
	// snapshots; default 5 s.
	ShutdownTimeout time.Duration
	// Resolver resolves target names, again on every connection a shard
	// dials (package netguard); nil means net.DefaultResolver.
	Resolver *net.Resolver
	// Metrics receives the worker's own health figures; default a set on
	// a registry of its own that no one serves.
	Metrics *agentmetrics.Metrics
	// Cores is how many CPUs the agent may use, against which its
	// snapshots report its CPU use; default GOMAXPROCS when New is called
	// (the CPUs, or the cgroup's limit), before the governor
	// (services/agent/internal/procs) lowers it.
	Cores int
}

// normalize fills the defaults and checks the rest.
func (c *Config) normalize() error {
	if c.Name == "" {
		return errors.New("worker: a name is required")
	}
	if c.Capacity == 0 {
		c.Capacity = DefaultCapacity
	}
	if c.Capacity < 1 {
		return fmt.Errorf("worker: capacity %d: must be at least 1", c.Capacity)
	}
	if c.Conn == nil && c.NATSURL == "" {
		c.NATSURL = DefaultNATSURL
	}
	if c.Version == "" {
		c.Version = version.String()
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.ShutdownTimeout <= 0 {
		c.ShutdownTimeout = DefaultShutdownTimeout
	}
	if c.Cores <= 0 {
		c.Cores = runtime.GOMAXPROCS(0)
	}
	if c.Metrics == nil {
		c.Metrics = agentmetrics.New(prometheus.NewRegistry())
	}
	return nil
}

// Worker is one agent. Create it with New and start it with Run.
type Worker struct {
	cfg Config
	id  string
	log *slog.Logger
	// creds are the agent's own NATS credentials; nil without them.
	creds *natsauth.Credentials

	// Set by Run before any shard starts.
	nc     *nats.Conn
	js     jetstream.JetStream
	agents jetstream.KeyValue
	runs   jetstream.KeyValue

	// flush bounds snapshot publishing: it ends ShutdownTimeout after a
	// shutdown starts.
	flush       context.Context
	cancelFlush context.CancelFunc

	mu     sync.Mutex
	shards map[shardKey]*shard
	// slots[i] is taken while a shard runs in slot i (its metrics' label).
	slots   []bool
	closed  bool // no new shard may start
	shardWG sync.WaitGroup

	// changed nudges the heartbeat loop when the running shards change.
	changed chan struct{}
	// Owned by the heartbeat loop.
	cpu         cpuMeter
	beatFailing bool
}

// New checks cfg and returns a worker with a fresh random id; it does no I/O.
func New(cfg Config) (*Worker, error) {
	if err := cfg.normalize(); err != nil {
		return nil, err
	}
	cfg.Labels = maps.Clone(cfg.Labels)
	id := newID()
	var creds *natsauth.Credentials
	if len(cfg.Credentials) > 0 {
		c, credID, err := natsauth.ParseCredentials(cfg.Credentials)
		if err != nil {
			return nil, fmt.Errorf("worker: %w", err)
		}
		id, creds = credID, &c
	}
	flush, cancelFlush := context.WithCancel(context.Background())
	return &Worker{
		cfg:         cfg,
		id:          id,
		creds:       creds,
		log:         cfg.Logger.With(slog.String("agent", id)),
		flush:       flush,
		cancelFlush: cancelFlush,
		shards:      make(map[shardKey]*shard),
		slots:       make([]bool, cfg.Capacity),
		changed:     make(chan struct{}, 1),
	}, nil
}

// ID is the agent id: the one its credentials were issued for, or a
// random UUID, new for every Worker, without credentials.
func (w *Worker) ID() string { return w.id }

// Run connects, announces the agent and runs assignments until ctx is done,
// then shuts down gracefully: the shards stop and flush their final
// snapshots (for at most ShutdownTimeout), the heartbeat is deleted and the
// connection drained. While NATS is unreachable it keeps retrying. It returns
// nil after a graceful shutdown, or an error when the worker could not start
// (a malformed NATS URL). Run is called once per Worker.
func (w *Worker) Run(ctx context.Context) error {
	defer w.cancelFlush()
	if err := w.connect(); err != nil {
		return err
	}
	defer w.disconnect()
	if err := w.setup(ctx); err != nil {
		if ctx.Err() != nil {
			return nil // canceled while waiting for NATS
		}
		return err
	}
	if err := w.outliveLastRun(ctx); err != nil {
		return nil //nolint:nilerr // only ctx ends the wait: canceled before starting
	}
	w.log.Info("agent started", slog.String("name", w.cfg.Name), slog.Int("capacity", w.cfg.Capacity),
		slog.String("version", w.cfg.Version))
	w.beat(ctx)
	in, err := w.startIntake(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	w.loop(ctx, in)
	w.shutdown(in)
	return nil
}

// loop heartbeats until ctx is done.
func (w *Worker) loop(ctx context.Context, in *intake) {
	tick := time.NewTicker(wire.HeartbeatEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			w.beat(ctx)
		case <-w.changed:
			w.beat(ctx)
		case <-in.broken:
			in.repair(ctx)
		}
	}
}

// shutdown stops taking work, stops the shards and waits (bounded) for their
// final snapshots, then removes the agent's heartbeat and consumer.
func (w *Worker) shutdown(in *intake) {
	w.log.Info("agent stopping")
	in.stop()
	w.mu.Lock()
	w.closed = true
	for _, sh := range w.shards {
		sh.stop(errShutdown)
	}
	w.mu.Unlock()
	stopFlush := time.AfterFunc(w.cfg.ShutdownTimeout, w.cancelFlush)
	defer stopFlush.Stop()
	done := make(chan struct{})
	go func() {
		w.shardWG.Wait()
		close(done)
	}()
	// The shards bound their own flush by ShutdownTimeout; the extra second
	// covers closing their connections.
	wait := time.NewTimer(w.cfg.ShutdownTimeout + time.Second)
	defer wait.Stop()
	select {
	case <-done:
	case <-wait.C:
		w.log.Warn("agent stopped without every final snapshot", slog.Duration("waited", w.cfg.ShutdownTimeout))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := w.agents.Delete(ctx, w.id); err != nil {
		w.log.Warn("delete heartbeat", slog.Any("error", err))
	}
	in.delete(ctx)
	w.log.Info("agent stopped")
}

// connect dials NATS, unless the config brings a connection.
func (w *Worker) connect() error {
	if w.cfg.Conn != nil {
		w.nc = w.cfg.Conn
		w.cfg.Metrics.SetConn(w.nc)
		return nil
	}
	log := w.log
	log.Info("connecting to NATS", slog.String("url", redactURL(w.cfg.NATSURL)))
	opts := []nats.Option{
		nats.Name("barrage-agent " + w.cfg.Name),
		nats.RetryOnFailedConnect(true),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(time.Second),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if err != nil {
				log.Warn("NATS disconnected", slog.Any("error", err))
			}
		}),
		nats.ReconnectHandler(func(c *nats.Conn) {
			log.Info("NATS reconnected", slog.String("url", c.ConnectedUrlRedacted()))
		}),
	}
	if w.creds != nil {
		opts = append(opts, nats.UserJWTAndSeed(w.creds.JWT, string(w.creds.Seed)),
			nats.CustomInboxPrefix(natsauth.InboxPrefix(w.id)))
	}
	nc, err := nats.Connect(w.cfg.NATSURL, opts...)
	if err != nil {
		return fmt.Errorf("worker: connect to NATS: %w", err)
	}
	w.nc = nc
	w.cfg.Metrics.SetConn(nc)
	return nil
}

// disconnect drains a connection the worker dialed.
func (w *Worker) disconnect() {
	if w.cfg.Conn != nil || w.nc == nil {
		return
	}
	if !w.nc.IsConnected() {
		w.nc.Close() // nothing to flush to
		return
	}
	closed := make(chan struct{})
	w.nc.SetClosedHandler(func(*nats.Conn) { close(closed) })
	if err := w.nc.Drain(); err != nil {
		w.nc.Close()
		return
	}
	t := time.NewTimer(5 * time.Second)
	defer t.Stop()
	select {
	case <-closed:
	case <-t.C:
		w.nc.Close()
	}
}

// setup creates the streams and buckets (idempotent) and opens the buckets,
// retrying until NATS answers or ctx is done.
func (w *Worker) setup(ctx context.Context) error {
	js, err := jetstream.New(w.nc)
	if err != nil {
		return fmt.Errorf("worker: jetstream: %w", err)
	}
	w.js = js
	return retry(ctx, w.log, "NATS setup", func(ctx context.Context) error {
		// An agent with its own credentials may not create streams:
		// barrage-api does, and until it has, the binds below fail and
		// are retried.
		if w.creds == nil {
			if err := wire.Setup(ctx, js); err != nil {
				return err
			}
		}
		if w.agents, err = js.KeyValue(ctx, wire.AgentsBucket); err != nil {
			return err
		}
		w.runs, err = js.KeyValue(ctx, wire.RunsBucket)
		return err
	})
}

// retry calls fn, each call bounded to 5 s, until it succeeds or ctx is
// done, waiting longer between failures (up to 5 s) and logging them.
func retry(ctx context.Context, log *slog.Logger, what string, fn func(context.Context) error) error {
	wait := 250 * time.Millisecond
	for {
		callCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
		err := fn(callCtx)
		cancel()
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("%s: %w", what, errors.Join(err, ctx.Err()))
		}
		log.Warn(what+" failed; retrying", slog.Any("error", err), slog.Duration("in", wait))
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%s: %w", what, errors.Join(err, ctx.Err()))
		case <-t.C:
		}
		wait = min(2*wait, 5*time.Second)
	}
}

// nudge asks the heartbeat loop for a beat soon.
func (w *Worker) nudge() {
	select {
	case w.changed <- struct{}{}:
	default:
	}
}

// redactURL hides the password of NATS URLs ("nats://user:pass@host",
// comma-separated lists too) for logs.
func redactURL(raw string) string {
	parts := strings.Split(raw, ",")
	for i, p := range parts {
		if u, err := url.Parse(strings.TrimSpace(p)); err == nil {
			parts[i] = u.Redacted()
		}
	}
	return strings.Join(parts, ",")
}
