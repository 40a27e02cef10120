// Package agent embeds a Barrage agent in another process: New checks the
// Options, Run connects to NATS, announces the agent with heartbeats, takes
// shard assignments from barrage-api and runs them with the load engine,
// publishing their snapshots, until its context ends.
// `barrage-api -all-in-one` and the API's tests run agents this way;
// `barrage-agent serve` runs the same worker.
//
// It is the agent's only public package: the worker, the load engine, the
// protocol clients and the spec mapping stay under
// services/agent/internal. It is not the NATS contract (package
// pkg/wire owns the subjects, buckets and timings) nor a load library.
package agent

import (
	"context"
	"log/slog"
	"net"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/barrage-dev/barrage/services/agent/internal/agentmetrics"
	"github.com/barrage-dev/barrage/services/agent/internal/worker"
)

// Options configure an Agent.
type Options struct {
	// NATSURL is the NATS server of barrage-api; default
	// nats://127.0.0.1:4222. The agent reconnects for as long as it runs.
	NATSURL string
	// Name is the agent's human name in the API's agent list, e.g. the
	// hostname; required.
	Name string
	// Credentials, when set, are the agent's own NATS credentials (the
	// contents of a .creds file from `barrage-api agent-credentials
	// create`): the agent dials with them, takes its id from them and
	// leaves creating the streams and buckets to barrage-api.
	Credentials []byte
	// Labels are matched by runs' agent selectors.
	Labels map[string]string
	// Capacity is how many shards the agent runs at once; default 4.
	Capacity int
	// Resolver resolves target names, again on every connection a shard
	// dials; default net.DefaultResolver.
	Resolver *net.Resolver
	// Logger receives the agent's logs; default slog.Default().
	Logger *slog.Logger
	// Registry, when set, receives the agent's own metrics (shards
	// running, requests by slot, snapshot publishing...; package
	// services/agent/internal/agentmetrics). Use a registry per agent.
	Registry *prometheus.Registry
}

// Agent is one Barrage agent. Create it with New and start it with Run.
type Agent struct {
	w *worker.Worker
}

// New checks opts and returns an agent; it does no I/O. Its id is the one
// its Credentials were issued for, or without them a random UUID, new for
// every Agent.
func New(opts Options) (*Agent, error) {
	cfg := worker.Config{
		NATSURL: opts.NATSURL, Name: opts.Name, Credentials: opts.Credentials, Labels: opts.Labels,
		Capacity: opts.Capacity, Resolver: opts.Resolver, Logger: opts.Logger,
	}
	if opts.Registry != nil {
		cfg.Metrics = agentmetrics.New(opts.Registry)
	}
	w, err := worker.New(cfg)
	if err != nil {
		return nil, err
	}
	return &Agent{w: w}, nil
}

// ID is the agent's id: the key of its heartbeat and the name barrage-api
// assigns shards to.
func (a *Agent) ID() string { return a.w.ID() }

// Run connects, announces the agent and runs assignments until ctx is
// done, then shuts down gracefully: running shards stop and publish their
// final snapshots (for 5 s at most), and the heartbeat is deleted. While
// NATS is unreachable it keeps retrying. It returns nil after a graceful
// shutdown, or an error when the agent could not start (a malformed NATS
// URL). Run is called once per Agent.
func (a *Agent) Run(ctx context.Context) error { return a.w.Run(ctx) }
