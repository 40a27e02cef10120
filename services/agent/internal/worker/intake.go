package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"google.golang.org/protobuf/proto"

	"github.com/barrage-dev/barrage/pkg/wire"
	barragev1 "github.com/barrage-dev/barrage/proto/barrage/v1"
)

const (
	// consumerInactive is how long the consumer of an agent that stopped
	// pulling (it died) outlives it on the server.
	consumerInactive = time.Minute
	// busyRetry is when an assignment that found every slot taken comes back.
	busyRetry = time.Second
	// pullExpiry bounds one pull request.
	pullExpiry = 10 * time.Second
	// pullHeartbeat is how often the server says an open pull is alive: two
	// missed, and the consumer is re-created. After a cluster node dies,
	// the pulls it led go quiet; noticing within 2 s rather than the
	// default half of pullExpiry's 10 lets a run submitted just then be
	// taken within the dispatcher's 10 s (docs/reliability.md, section 9).
	pullHeartbeat = time.Second
	// repairTimeout bounds one try to re-create the consumer, and
	// repairRetry is the wait before the next while its leader is elected.
	repairTimeout = 3 * time.Second
	repairRetry   = time.Second
)

// Why an assignment is not run now.
var (
	errFull      = errors.New("every shard slot is taken")
	errDuplicate = errors.New("this shard is already running here")
	errClosed    = errors.New("the agent is shutting down")
)

// intake is the agent's durable pull consumer of assignments.
type intake struct {
	w    *Worker
	cons jetstream.Consumer
	cc   jetstream.ConsumeContext
	// broken asks the heartbeat loop to re-create the consumer (the server
	// dropped it, or pulls stopped being answered).
	broken chan struct{}
}

// startIntake creates the consumer and starts taking assignments, retrying
// until NATS answers or ctx is done.
func (w *Worker) startIntake(ctx context.Context) (*intake, error) {
	in := &intake{w: w, broken: make(chan struct{}, 1)}
	if err := retry(ctx, w.log, "assignment consumer", in.create); err != nil {
		return nil, err
	}
	if err := in.consume(); err != nil {
		return nil, err
	}
	return in, nil
}

func (in *intake) config() jetstream.ConsumerConfig {
	return jetstream.ConsumerConfig{
		Durable:           wire.AgentConsumer(in.w.id),
		FilterSubject:     wire.AssignSubject(in.w.id),
		AckPolicy:         jetstream.AckExplicitPolicy,
		MaxAckPending:     in.w.cfg.Capacity,
		InactiveThreshold: consumerInactive,
	}
}

// create creates the consumer, or finds it unchanged.
func (in *intake) create(ctx context.Context) error {
	c, err := in.w.js.CreateOrUpdateConsumer(ctx, wire.AssignStream, in.config())
	if err != nil {
		return err
	}
	in.cons = c
	return nil
}

func (in *intake) consume() error {
	cc, err := in.cons.Consume(in.w.handle,
		jetstream.PullMaxMessages(in.w.cfg.Capacity),
		jetstream.PullExpiry(pullExpiry),
		jetstream.PullHeartbeat(pullHeartbeat),
		jetstream.ConsumeErrHandler(in.onError))
	if err != nil {
		return fmt.Errorf("consume assignments: %w", err)
	}
	in.cc = cc
	return nil
}

func (in *intake) onError(_ jetstream.ConsumeContext, err error) {
	in.w.log.Warn("assignment consumer", slog.Any("error", err))
	if errors.Is(err, jetstream.ErrConsumerDeleted) || errors.Is(err, jetstream.ErrConsumerNotFound) ||
		errors.Is(err, jetstream.ErrNoHeartbeat) {
		in.flag()
	}
}

// flag asks the heartbeat loop to repair the consumer.
func (in *intake) flag() {
	select {
	case in.broken <- struct{}{}:
	default:
	}
}

// repair re-creates the consumer (a no-op when it is still there) and
// consumes again if consuming stopped. A try that fails (the consumer is
// electing a leader) is tried again repairRetry later, without holding up
// the heartbeat loop it runs in.
func (in *intake) repair(ctx context.Context) {
	cctx, cancel := context.WithTimeout(ctx, repairTimeout)
	defer cancel()
	if err := in.create(cctx); err != nil {
		in.w.log.Warn("re-create assignment consumer failed; retrying", slog.Any("error", err), slog.Duration("in", repairRetry))
		time.AfterFunc(repairRetry, in.flag)
		return
	}
	select {
	case <-in.cc.Closed():
		if err := in.consume(); err != nil {
			in.w.log.Warn("restart assignment consumer", slog.Any("error", err))
		}
	default:
	}
}

// stop stops taking assignments; those buffered but not acked are
// redelivered to the consumer, which is deleted next.
func (in *intake) stop() {
	in.cc.Stop()
	t := time.NewTimer(2 * time.Second)
	defer t.Stop()
	select {
	case <-in.cc.Closed():
	case <-t.C:
	}
}

// delete removes the consumer, which would otherwise linger for consumerInactive.
func (in *intake) delete(ctx context.Context) {
	err := in.w.js.DeleteConsumer(ctx, wire.AssignStream, wire.AgentConsumer(in.w.id))
	if err != nil && !errors.Is(err, jetstream.ErrConsumerNotFound) {
		in.w.log.Warn("delete assignment consumer", slog.Any("error", err))
	}
}

// handle takes one assignment: a malformed one is terminated, one that finds
// every slot taken comes back later, and any other is acked and run.
func (w *Worker) handle(msg jetstream.Msg) {
	a := &barragev1.Assignment{}
	if err := proto.Unmarshal(msg.Data(), a); err != nil {
		w.terminate(msg, a, fmt.Errorf("decode: %w", err))
		return
	}
	sh, err := w.newShard(a, time.Now())
	if err != nil {
		w.terminate(msg, a, err)
		return
	}
	log := w.log.With(slog.String("run", sh.key.run), slog.Uint64("shard", uint64(sh.key.shard)))
	if id := msg.Headers().Get(wire.RequestIDHeader); wire.ValidRequestID(id) {
		log = log.With(slog.String("request_id", id))
	}
	if id, ok := wire.TraceIDOf(msg.Headers().Get(wire.TraceParentHeader)); ok {
		log = log.With(slog.String("trace_id", id))
	}
	switch err := w.admit(sh); {
	case errors.Is(err, errFull), errors.Is(err, errClosed):
		sh.stop(nil)
		log.Debug("assignment deferred", slog.String("reason", err.Error()))
		if err := msg.NakWithDelay(busyRetry); err != nil {
			log.Warn("nak assignment", slog.Any("error", err))
		}
		return
	case err != nil:
		sh.stop(nil)
		w.terminate(msg, a, err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := msg.DoubleAck(ctx); err != nil {
		// Not run: the server redelivers what it did not see acked.
		log.Warn("ack assignment", slog.Any("error", err))
		w.release(sh)
		return
	}
	go w.runShard(sh, log)
	w.nudge()
}

// terminate drops an assignment that can never run, with a log line that
// names it but never shows its spec.
func (w *Worker) terminate(msg jetstream.Msg, a *barragev1.Assignment, reason error) {
	w.log.Warn("assignment rejected", slog.String("run", a.GetRunId()), slog.Uint64("shard", uint64(a.GetShard())),
		slog.String("subject", msg.Subject()), slog.String("reason", reason.Error()))
	if err := msg.TermWithReason(reason.Error()); err != nil {
		w.log.Warn("terminate assignment", slog.Any("error", err))
	}
}

// admit takes a slot for sh.
func (w *Worker) admit(sh *shard) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case w.closed:
		return errClosed
	case w.shards[sh.key] != nil:
		return errDuplicate
	case len(w.shards) >= w.cfg.Capacity:
		return errFull
	}
	w.shards[sh.key] = sh
	sh.slot = slices.Index(w.slots, false)
	w.slots[sh.slot] = true
	w.shardWG.Add(1)
	w.cfg.Metrics.ShardStarted(sh.slot)
	return nil
}

// release frees sh's slot.
func (w *Worker) release(sh *shard) {
	w.mu.Lock()
	delete(w.shards, sh.key)
	w.slots[sh.slot] = false
	w.mu.Unlock()
	w.cfg.Metrics.ShardEnded(sh.slot)
	sh.stop(nil)
	w.shardWG.Done()
	w.nudge()
}
