// Package dispatch sends runs to agents: it publishes the outbox that run
// changes write (new runs and stops), picks agents from their heartbeats,
// splits each run into shards, stores the plan and publishes one
// assignment per shard over JetStream, and moves the run to running once
// every agent has taken its assignment (docs/architecture.md §3).
//
// It is not the place for results: the ingest package stores snapshots
// and finishes runs.
package dispatch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/pkg/wire"
	barragev1 "github.com/barrage-dev/barrage/proto/barrage/v1"
	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
	"github.com/barrage-dev/barrage/services/api/internal/sealer"
	"github.com/barrage-dev/barrage/services/api/internal/tracing"
)

// Store is the storage the dispatcher uses.
type Store interface {
	ClaimOutbox(ctx context.Context, limit int, fn func([]runs.OutboxMessage) runs.OutboxOutcome) (int, error)
	PlanRun(ctx context.Context, p runs.Plan) (runs.Run, error)
	GetRun(ctx context.Context, id uuid.UUID) (runs.Run, error)
	RunShards(ctx context.Context, id uuid.UUID) ([]runs.Shard, error)
	MoveRun(ctx context.Context, m runs.Move) (runs.Run, error)
	// ProjectAgentPools returns the agent pools project id's runs are
	// restricted to (org admins grant them); empty for every agent.
	ProjectAgentPools(ctx context.Context, id uuid.UUID) ([]string, error)
}

// Config configures a Dispatcher.
type Config struct {
	Store Store
	Conn  *nats.Conn
	JS    jetstream.JetStream
	Log   *slog.Logger
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// Poll is how often the outbox is read; 100 ms when zero.
	Poll time.Duration
	// AckTimeout is how long after start_at agents may take to ack their
	// assignments before the run fails; 10 s when zero.
	AckTimeout time.Duration
	// Wait is how long a run stays queued waiting for a matching agent
	// with a free slot before it fails; 0 fails it at once.
	Wait time.Duration
	// MaxRunFor bounds runs whose length is not known in advance (a call
	// count, or until stopped): they stop at start_at plus this. 0 means
	// spec.MaxDuration. Timed runs were checked against the server's limit
	// when created.
	MaxRunFor time.Duration
	// Sealer opens the sealed specs of dispatch messages; it must hold
	// the key runs.Service sealed them with.
	Sealer *sealer.Sealer
	// Registry, when set, gets the live heartbeats every
	// wire.HeartbeatEvery, for the agent list.
	Registry Registry
	// Live, when set, is told of every status change the dispatcher
	// makes (dispatching, running, failed), so that live streams need
	// not poll for it; a live.Hub.
	Live runs.Notifier
	// AgentAccount, in operator mode, is the public key of the account
	// that signs agent credentials: a heartbeat's credential must verify
	// against it, and the agent's pool and capacity cap come from it
	// (PoolLabel). Empty: no agent has a pool.
	AgentAccount string
	// MaxAgentCapacity caps every agent's capacity, whatever it claims;
	// 0 for no cap.
	MaxAgentCapacity int
	// Metrics, when set, observes the time from each outbox row's commit
	// to its publish (a *metrics.Metrics).
	Metrics Observer
	// Tracer makes a span of each dispatch of a run, the child of the
	// creating request's span (DispatchMessage.TraceParent), whose W3C
	// traceparent goes to the agents in the assignments' headers; nil
	// for none (package tracing).
	Tracer trace.Tracer
}

// Observer receives the dispatcher's figures.
type Observer interface {
	// Dispatched is called for each outbox row published, with its topic
	// and the time since it was committed.
	Dispatched(topic string, since time.Duration)
}

// noObserver is the Observer of a Config without Metrics.
type noObserver struct{}

func (noObserver) Dispatched(string, time.Duration) {}

// waitRetry is how often a run waiting for an agent looks again.
const waitRetry = time.Second

// Dispatcher publishes the outbox. Several API replicas may run one each.
type Dispatcher struct {
	cfg    Config
	agents jetstream.KeyValue
	states jetstream.KeyValue
	assign jetstream.Stream
	// watchers are the ack watchers Run waits for before it returns.
	watchers sync.WaitGroup
}

// New returns a dispatcher; the streams and buckets must exist (wire.Setup).
func New(ctx context.Context, cfg Config) (*Dispatcher, error) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Poll == 0 {
		cfg.Poll = 100 * time.Millisecond
	}
	if cfg.AckTimeout == 0 {
		cfg.AckTimeout = 10 * time.Second
	}
	if cfg.MaxRunFor <= 0 || cfg.MaxRunFor > spec.MaxDuration {
		cfg.MaxRunFor = spec.MaxDuration
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Metrics == nil {
		cfg.Metrics = noObserver{}
	}
	if cfg.Tracer == nil {
		cfg.Tracer = tracing.Off().Tracer()
	}
	d := &Dispatcher{cfg: cfg}
	var err error
	if d.agents, err = cfg.JS.KeyValue(ctx, wire.AgentsBucket); err != nil {
		return nil, fmt.Errorf("dispatch: bucket %s: %w", wire.AgentsBucket, err)
	}
	if d.states, err = cfg.JS.KeyValue(ctx, wire.RunsBucket); err != nil {
		return nil, fmt.Errorf("dispatch: bucket %s: %w", wire.RunsBucket, err)
	}
	if d.assign, err = cfg.JS.Stream(ctx, wire.AssignStream); err != nil {
		return nil, fmt.Errorf("dispatch: stream %s: %w", wire.AssignStream, err)
	}
	return d, nil
}

// Run publishes the outbox until ctx is done.
func (d *Dispatcher) Run(ctx context.Context) error {
	t := time.NewTicker(d.cfg.Poll)
	defer t.Stop()
	defer d.watchers.Wait()
	if d.cfg.Registry != nil {
		d.watchers.Go(func() { d.syncRegistry(ctx, wire.HeartbeatEvery) })
	}
	for {
		if _, err := d.cfg.Store.ClaimOutbox(ctx, 20, func(msgs []runs.OutboxMessage) runs.OutboxOutcome {
			return d.publish(ctx, msgs)
		}); err != nil && ctx.Err() == nil {
			d.cfg.Log.Warn("dispatch: read outbox", slog.Any("error", err))
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// publish handles claimed outbox rows.
func (d *Dispatcher) publish(ctx context.Context, msgs []runs.OutboxMessage) runs.OutboxOutcome {
	out := runs.OutboxOutcome{Later: map[int64]time.Time{}}
	for _, m := range msgs {
		var err error
		switch m.Topic {
		case runs.TopicRunDispatch:
			var later time.Time
			later, err = d.dispatch(ctx, m.Payload)
			if err == nil && !later.IsZero() {
				out.Later[m.ID] = later
				continue
			}
		case runs.TopicRunControl:
			err = d.control(ctx, m.Payload)
		default:
			d.cfg.Log.Error("dispatch: unknown outbox topic; dropped", slog.String("topic", m.Topic), slog.Int64("id", m.ID))
		}
		if err != nil {
			d.cfg.Log.Warn("dispatch: publish failed; will retry", slog.String("topic", m.Topic),
				slog.String("key", m.Key), slog.Int("attempts", m.Attempts+1), slog.Any("error", err))
			continue
		}
		out.Published = append(out.Published, m.ID)
		if !m.CreatedAt.IsZero() {
			d.cfg.Metrics.Dispatched(m.Topic, d.cfg.Now().Sub(m.CreatedAt))
		}
	}
	return out
}

// dispatch plans a new run and publishes its assignments. A run that was
// planned by an earlier attempt (the publish failed after the plan was
// stored) is published again from its stored plan; message ids make the
// repeat harmless. A non-zero later asks to be called again then: the run
// waits for an agent.
func (d *Dispatcher) dispatch(ctx context.Context, payload []byte) (later time.Time, err error) {
	var p runs.DispatchMessage
	if err := json.Unmarshal(payload, &p); err != nil {
		d.cfg.Log.Error("dispatch: bad run payload; dropped", slog.Any("error", err))
		return time.Time{}, nil
	}
	ctx, span := d.cfg.Tracer.Start(tracing.WithTraceParent(ctx, p.TraceParent), "dispatch run",
		trace.WithSpanKind(trace.SpanKindProducer), trace.WithAttributes(
			attribute.String("barrage.run.id", p.RunID.String()),
			attribute.String("messaging.system", "nats"),
			attribute.String("messaging.destination.name", wire.AssignStream)))
	defer func() {
		if err != nil {
			span.RecordError(err)
			span.SetStatus(codes.Error, "dispatch failed")
		}
		if !later.IsZero() {
			span.SetAttributes(attribute.Bool("barrage.run.waiting", true))
		}
		span.End()
	}()
	run, err := d.cfg.Store.GetRun(ctx, p.RunID)
	if apperr.Is(err, apperr.NotFound) {
		return time.Time{}, nil // deleted meanwhile
	}
	if err != nil {
		return time.Time{}, err
	}
	if run.Status != runs.Queued && run.Status != runs.Dispatching {
		return time.Time{}, nil // stopped or finished before it was dispatched
	}
	sp, err := p.RealSpec(d.cfg.Sealer)
	if err != nil {
		reason := "cannot read the run's secrets: " + err.Error()
		if errors.Is(err, sealer.ErrWrongKey) {
			reason += " (the run was queued under a key this server does not hold: configure it in BARRAGE_SECRET_KEYS_PREVIOUS)"
		}
		return time.Time{}, d.fail(ctx, run.ID, run.Status, reason)
	}
	tp := targetPolicy{allow: p.TargetAllow, deny: p.TargetDeny, outer: p.TargetOuter, bounded: p.TargetBounded}
	switch run.Status {
	case runs.Queued:
		return d.plan(ctx, run, sp, tp, p.RequestID)
	case runs.Dispatching:
		shards, err := d.cfg.Store.RunShards(ctx, run.ID)
		if err != nil {
			return time.Time{}, err
		}
		return time.Time{}, d.send(ctx, run, split(sp, len(shards)), tp, shards, p.RequestID)
	default:
		return time.Time{}, nil // stopped or finished before it was dispatched
	}
}

// plan picks agents, stores the plan and sends the assignments. With no
// agent to take the run it waits up to Wait from the run's creation, then
// fails it.
func (d *Dispatcher) plan(ctx context.Context, run runs.Run, sp spec.Spec, tp targetPolicy, requestID string) (later time.Time, err error) {
	live, restriction, err := d.eligible(ctx, run.ProjectID)
	if err != nil {
		return time.Time{}, err
	}
	chosen, err := pick(live, sp.Agents)
	if err != nil && restriction != "" {
		err = fmt.Errorf("%s: %w", restriction, err)
	}
	if err != nil {
		now := d.cfg.Now()
		if now.Before(run.CreatedAt.Add(d.cfg.Wait)) {
			return now.Add(waitRetry), nil
		}
		reason := "no agent available: " + err.Error()
		if d.cfg.Wait > 0 {
			reason = fmt.Sprintf("no agent available within %s: %s", d.cfg.Wait, err)
		}
		return time.Time{}, d.fail(ctx, run.ID, runs.Queued, reason)
	}
	specs := split(sp, len(chosen))
	startAt := d.cfg.Now().Add(wire.StartDelay).UTC().Truncate(time.Millisecond)
	plan := runs.Plan{RunID: run.ID, StartAt: startAt, Deadline: deadline(sp, startAt, d.cfg.MaxRunFor)}
	for i := range specs {
		id, err := uuid.Parse(chosen[i].GetAgentId())
		if err != nil {
			return time.Time{}, fmt.Errorf("agent id %q: %w", chosen[i].GetAgentId(), err)
		}
		plan.Shards = append(plan.Shards, runs.Shard{
			Index: i, AgentID: id, AgentName: chosen[i].GetName(), QPS: specs[i].QPS, Connections: specs[i].Connections,
		})
	}
	planned, err := d.cfg.Store.PlanRun(ctx, plan)
	if apperr.Is(err, apperr.Conflict) {
		return time.Time{}, nil // stopped meanwhile, or another replica took it
	}
	if err != nil {
		return time.Time{}, err
	}
	d.moved(planned)
	d.cfg.Log.Info("run dispatched", slog.String("run", run.ID.String()), slog.Int("shards", len(plan.Shards)),
		slog.Time("start_at", startAt), slog.String("request_id", requestID))
	return time.Time{}, d.send(ctx, planned, specs, tp, plan.Shards, requestID)
}

// deadline is when the shards must have stopped: start_at plus the run's
// length and a little slack for the final snapshot, or maxRunFor when its
// length is not known in advance (count, until stopped).
func deadline(sp spec.Spec, startAt time.Time, maxRunFor time.Duration) time.Time {
	if d := sp.RunFor(); d > 0 {
		return startAt.Add(d + 2*time.Second)
	}
	return startAt.Add(maxRunFor)
}

// targetPolicy is what a run's agents may dial: its project's target
// allow-list at submit, its bound and the control plane's addresses.
type targetPolicy struct {
	allow, deny, outer []string
	bounded            bool
}

// send writes the run state, then publishes one assignment per shard, with
// the shard's spec from split (specs[i] is shards[i]'s) and, in its
// headers, the id of the request that created the run, and watches for the
// agents' acks.
func (d *Dispatcher) send(ctx context.Context, run runs.Run, specs []spec.Spec, tp targetPolicy, shards []runs.Shard, requestID string) error {
	if err := d.putState(ctx, run.ID, barragev1.RunPhase_RUN_PHASE_RUNNING); err != nil {
		return err
	}
	if len(specs) != len(shards) {
		return fmt.Errorf("run %s: stored plan has %d shards, the spec splits into %d", run.ID, len(shards), len(specs))
	}
	trace.SpanFromContext(ctx).SetAttributes(attribute.Int("barrage.shards", len(shards)))
	seqs := make([]uint64, len(shards))
	for i, sh := range shards {
		b, err := json.Marshal(specs[i])
		if err != nil {
			return fmt.Errorf("encode shard spec: %w", err)
		}
		msg, err := proto.Marshal(&barragev1.Assignment{
			RunId: run.ID.String(), Shard: uint32(sh.Index), ShardCount: uint32(len(shards)), Spec: b,
			StartAt: timestamppb.New(run.StartAt), Deadline: timestamppb.New(run.Deadline),
			TargetAllow: tp.allow, TargetDeny: tp.deny, TargetOuter: tp.outer, TargetBounded: tp.bounded,
			SeqStart: uint64(sh.Index) + 1, SeqStride: uint64(len(shards)),
		})
		if err != nil {
			return fmt.Errorf("encode assignment: %w", err)
		}
		m := nats.NewMsg(wire.AssignSubject(sh.AgentID.String()))
		m.Data = msg
		if requestID != "" {
			m.Header.Set(wire.RequestIDHeader, requestID)
		}
		if tp := tracing.TraceParent(ctx); tp != "" {
			m.Header.Set(wire.TraceParentHeader, tp)
		}
		ack, err := d.cfg.JS.PublishMsg(ctx, m, jetstream.WithMsgID(wire.AssignMsgID(run.ID.String(), uint32(sh.Index))))
		if err != nil {
			return fmt.Errorf("publish assignment %d of run %s: %w", sh.Index, run.ID, err)
		}
		seqs[i] = ack.Sequence
	}
	d.watchers.Go(func() { d.watchAcks(ctx, run, seqs) })
	return nil
}

// watchAcks moves the run to running once every assignment was acked (a
// work-queue stream deletes acked messages), or fails it when the agents
// have not taken them AckTimeout after start_at. It gives up when ctx
// ends; the ingest sweeper then settles the run by its deadline.
func (d *Dispatcher) watchAcks(ctx context.Context, run runs.Run, seqs []uint64) {
	give := run.StartAt.Add(d.cfg.AckTimeout)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		pending := 0
		for _, seq := range seqs {
			_, err := d.assign.GetMsg(ctx, seq)
			switch {
			case errors.Is(err, jetstream.ErrMsgNotFound):
			case err != nil:
				pending++ // NATS unreachable: keep waiting until the deadline
			default:
				pending++
			}
		}
		if pending == 0 {
			moved, err := d.cfg.Store.MoveRun(ctx, runs.Move{RunID: run.ID, To: runs.Running, At: d.cfg.Now().UTC()})
			switch {
			case err == nil:
				d.moved(moved)
			case !apperr.Is(err, apperr.Conflict):
				d.cfg.Log.Warn("dispatch: mark run running", slog.String("run", run.ID.String()), slog.Any("error", err))
			}
			return
		}
		if d.cfg.Now().After(give) {
			reason := fmt.Sprintf("%d of %d agents did not take their assignment within %s of the start", pending, len(seqs), d.cfg.AckTimeout)
			if err := d.fail(ctx, run.ID, runs.Dispatching, reason); err != nil {
				d.cfg.Log.Warn("dispatch: fail run", slog.String("run", run.ID.String()), slog.Any("error", err))
			}
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// moved tells cfg.Live that r moved to its status.
func (d *Dispatcher) moved(r runs.Run) {
	if d.cfg.Live != nil {
		d.cfg.Live.RunMoved(r)
	}
}

// fail ends a run that could not be dispatched and tells any agent that
// took a shard to stop.
func (d *Dispatcher) fail(ctx context.Context, id uuid.UUID, from runs.Status, reason string) error {
	d.cfg.Log.Warn("run failed to dispatch", slog.String("run", id.String()), slog.String("reason", reason))
	moved, err := d.cfg.Store.MoveRun(ctx, runs.Move{RunID: id, To: runs.Failed, Error: reason, At: d.cfg.Now().UTC()})
	if err != nil && !apperr.Is(err, apperr.Conflict) {
		return err
	}
	if err == nil {
		d.moved(moved)
	}
	if from == runs.Queued {
		return nil
	}
	return d.stop(ctx, id, barragev1.RunPhase_RUN_PHASE_DONE)
}

// control publishes a stop.
func (d *Dispatcher) control(ctx context.Context, payload []byte) error {
	var c runs.ControlMessage
	if err := json.Unmarshal(payload, &c); err != nil || c.Action != "stop" {
		d.cfg.Log.Error("dispatch: bad control payload; dropped", slog.String("action", c.Action), slog.Any("error", err))
		return nil
	}
	return d.stop(ctx, c.RunID, barragev1.RunPhase_RUN_PHASE_STOPPING)
}

// stop records the phase in the run-state bucket, where agents poll it,
// and publishes a stop on the run's control subject for a prompt reaction.
func (d *Dispatcher) stop(ctx context.Context, id uuid.UUID, phase barragev1.RunPhase) error {
	if err := d.putState(ctx, id, phase); err != nil {
		return err
	}
	msg, err := proto.Marshal(&barragev1.Control{RunId: id.String(), Action: barragev1.Action_ACTION_STOP})
	if err != nil {
		return fmt.Errorf("encode control: %w", err)
	}
	if err := d.cfg.Conn.Publish(wire.ControlSubject(id.String()), msg); err != nil {
		return fmt.Errorf("publish stop of run %s: %w", id, err)
	}
	return nil
}

func (d *Dispatcher) putState(ctx context.Context, id uuid.UUID, phase barragev1.RunPhase) error {
	b, err := proto.Marshal(&barragev1.RunState{RunId: id.String(), Phase: phase, UpdatedAt: timestamppb.New(d.cfg.Now())})
	if err != nil {
		return fmt.Errorf("encode run state: %w", err)
	}
	if _, err := d.states.Put(ctx, id.String(), b); err != nil {
		return fmt.Errorf("put state of run %s: %w", id, err)
	}
	return nil
}

// live returns the heartbeats in the agents bucket (expired ones are gone)
// that it trusts, as trust rewrote them.
func (d *Dispatcher) live(ctx context.Context) ([]*barragev1.Heartbeat, error) {
	entries, err := wire.Entries(ctx, d.cfg.JS, d.agents)
	if err != nil {
		return nil, fmt.Errorf("list agents: %w", err)
	}
	out := make([]*barragev1.Heartbeat, 0, len(entries))
	for _, e := range entries {
		hb := &barragev1.Heartbeat{}
		if err := proto.Unmarshal(e.Value(), hb); err != nil {
			d.cfg.Log.Warn("dispatch: unreadable heartbeat; agent skipped", slog.String("key", e.Key()), slog.Any("error", err))
			continue
		}
		if err := d.trust(e.Key(), hb); err != nil {
			d.cfg.Log.Warn("dispatch: untrusted heartbeat; agent skipped", slog.String("key", e.Key()), slog.Any("error", err))
			continue
		}
		out = append(out, hb)
	}
	return out, nil
}
