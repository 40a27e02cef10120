package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"google.golang.org/protobuf/proto"

	"github.com/barrage-dev/barrage/pkg/netguard"
	"github.com/barrage-dev/barrage/pkg/reqtemplate"
	pkgscenario "github.com/barrage-dev/barrage/pkg/scenario"
	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/pkg/wire"
	barragev1 "github.com/barrage-dev/barrage/proto/barrage/v1"
	"github.com/barrage-dev/barrage/services/agent/internal/engine"
	"github.com/barrage-dev/barrage/services/agent/internal/plan"
	"github.com/barrage-dev/barrage/services/agent/internal/request"
)

// statePoll is how often a shard reads its run's state.
const statePoll = time.Second

// Why a shard stopped early (the cause of its context).
var (
	errShutdown    = errors.New("the agent is shutting down")
	errStopMessage = errors.New("stop message received")
	errDeadline    = errors.New("assignment deadline reached")
	errRunStopped  = errors.New("run is no longer running")
	errFailSafe    = errors.New("fail-safe")
)

// shardKey names one shard of one run.
type shardKey struct {
	run   string
	shard uint32
}

// shard is one admitted assignment.
type shard struct {
	key     shardKey
	spec    spec.Spec
	factory request.Factory
	// guard is the run's target policy; every connection is dialed
	// through it.
	guard    netguard.Guard
	startAt  time.Time
	deadline time.Time
	ctx      context.Context
	cancel   context.CancelCauseFunc
	// shards is the number of shards of the run (1 when not given).
	shards int
	// slot is the shard's place among the worker's capacity, set by admit:
	// the label of its metrics.
	slot int
	// plan is a scenario shard's compiled scenario (scenario.go); nil for
	// a single-request run, which has a factory instead.
	plan *pkgscenario.Plan
}

// stop ends the shard's sending with cause (the first cause wins).
func (sh *shard) stop(cause error) { sh.cancel(cause) }

// newShard checks an assignment and prepares its load. The spec is the
// shard's own, with its part of the run's rate and connections, and runs
// as given. It carries the run's secrets: errors name fields, never values.
func (w *Worker) newShard(a *barragev1.Assignment, now time.Time) (*shard, error) {
	if !validToken(a.GetRunId()) {
		return nil, fmt.Errorf("run id %q is not a NATS subject token", a.GetRunId())
	}
	if a.GetShardCount() > 0 && a.GetShard() >= a.GetShardCount() {
		return nil, fmt.Errorf("shard %d of %d", a.GetShard(), a.GetShardCount())
	}
	if a.GetDeadline() == nil {
		return nil, errors.New("no deadline")
	}
	deadline := a.GetDeadline().AsTime()
	if !deadline.After(now) {
		return nil, fmt.Errorf("deadline %s has passed", deadline.Format(time.RFC3339))
	}
	startAt := now
	if a.GetStartAt() != nil {
		startAt = a.GetStartAt().AsTime()
	}
	s, err := spec.Parse(a.GetSpec())
	if err != nil {
		return nil, err
	}
	if s.PayloadFile != "" {
		return nil, errors.New("payload_file: an agent does not read local files for a run")
	}
	guard, err := w.targetGuard(a)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	if s.IsScenario() {
		p, err := compileScenario(s)
		if err != nil {
			cancel(err)
			return nil, err
		}
		return &shard{
			key: shardKey{run: a.GetRunId(), shard: a.GetShard()}, spec: s, plan: p, guard: guard,
			startAt: startAt, deadline: deadline, ctx: ctx, cancel: cancel, shards: int(max(a.GetShardCount(), 1)),
		}, nil
	}
	f, err := plan.NewFactory(s, []byte(s.Payload), request.DialFunc(w.cfg.Metrics.CountDials(guard.DialContext)), reqtemplate.NewSeq(a.GetSeqStart(), a.GetSeqStride()))
	if err != nil {
		cancel(err)
		return nil, redact(err, s)
	}
	return &shard{
		key: shardKey{run: a.GetRunId(), shard: a.GetShard()}, spec: s, factory: f, guard: guard,
		startAt: startAt, deadline: deadline, ctx: ctx, cancel: cancel, shards: int(max(a.GetShardCount(), 1)),
	}, nil
}

// targetGuard is the Guard of an assignment's target policy: only what its
// project's allow-list names, inside the organisation's policy when the
// assignment carries it, never the control plane.
func (w *Worker) targetGuard(a *barragev1.Assignment) (netguard.Guard, error) {
	allow, err := netguard.ParseAllowList(a.GetTargetAllow())
	if err != nil {
		return netguard.Guard{}, fmt.Errorf("target_allow: %w", err)
	}
	deny, err := netguard.ParseAllowList(a.GetTargetDeny())
	if err != nil {
		return netguard.Guard{}, fmt.Errorf("target_deny: %w", err)
	}
	g := netguard.Guard{Allow: allow, RequireListed: true, Deny: deny, Resolver: w.cfg.Resolver}
	if a.GetTargetBounded() {
		outer, err := netguard.ParseAllowList(a.GetTargetOuter())
		if err != nil {
			return netguard.Guard{}, fmt.Errorf("target_outer: %w", err)
		}
		g.Outer = &outer
	}
	return g, nil
}

// checkTarget resolves the shard's target and checks it against the
// run's policy before any connection is made: a refused target fails the
// shard at once with the refusal as its error. Each dial checks again.
func (sh *shard) checkTarget(ctx context.Context) error {
	network, addr := sh.spec.DialTarget()
	return sh.guard.CheckAddr(ctx, network, addr)
}

// validToken reports whether id can be one token of a NATS subject.
func validToken(id string) bool {
	return id != "" && len(id) <= 128 && !strings.ContainsAny(id, ".*> \t\r\n")
}

// redact replaces the target URL in a client error with its redacted form.
func redact(err error, s spec.Spec) error {
	msg := err.Error()
	safe := s.Redacted().URL
	msg = strings.ReplaceAll(msg, strconv.Quote(s.URL), strconv.Quote(safe))
	msg = strings.ReplaceAll(msg, s.URL, safe)
	return errors.New(msg)
}

// runShard runs an admitted shard to its end and frees its slot.
func (w *Worker) runShard(sh *shard, log *slog.Logger) {
	defer w.release(sh)
	ctx, cancel := context.WithDeadlineCause(sh.ctx, sh.deadline, errDeadline)
	defer cancel()
	unwatch := w.watch(ctx, sh, log)
	defer unwatch()
	if sh.plan != nil {
		w.runScenario(ctx, sh, log)
		return
	}
	opts := plan.EngineOptions(sh.spec, sh.factory)
	opts.StartAt = sh.startAt
	if opts.WrittenURLs > 0 {
		opts.WrittenURLs /= sh.shards
		opts.URLBytesPerSnapshot = urlBytesPerSnapshot
	}
	sink := &snapSink{w: w, key: sh.key, slot: sh.slot, codeName: sh.factory.CodeName, log: log,
		load: newGenLoad(w.cfg.Cores, sh.spec, sh.startAt, time.Now())}
	opts.Sink = sink
	if err := sh.checkTarget(ctx); err != nil {
		log.Error("shard refused its target", slog.Any("error", err))
		sink.publishFailed(err)
		return
	}
	log.Info("shard starting", slog.Time("start_at", sh.startAt), slog.Time("deadline", sh.deadline),
		slog.Int("connections", sh.spec.Connections), slog.Float64("qps", sh.spec.QPS),
		slog.String("pacing", string(sh.spec.Pacing)), slog.String("protocol", sh.factory.RunType()))
	final, err := engine.Run(ctx, opts)
	if err != nil {
		err = redact(err, sh.spec)
		log.Error("shard failed", slog.Any("error", err))
		if sink.published == 0 {
			// The reason goes to the run: a gRPC method the target lacks,
			// say, fails every connection before a request is sent.
			sink.publishFailed(err)
		}
		return
	}
	reason := "completed"
	if cause := context.Cause(ctx); cause != nil {
		reason = cause.Error()
	}
	log.Info("shard finished", slog.String("reason", reason), slog.Int64("count", final.Count),
		slog.Int64("errors", final.Errors), slog.Uint64("snapshots", final.Seq))
	if se, ok := sh.factory.(interface{ SocketError() error }); ok && se.SocketError() != nil {
		// Such requests only count as -1 (ERROR for gRPC); say why once,
		// as barrage-agent load does: a certificate not verified, a
		// refused version or client certificate.
		log.Warn("connection error (requests counted as code -1, or as errors for gRPC)",
			slog.Any("error", redact(se.SocketError(), sh.spec)))
	}
}

// watch stops sh on a stop message, a run state other than running, or no
// readable run state for wire.FailSafeAfter. The returned function ends the
// watch.
func (w *Worker) watch(ctx context.Context, sh *shard, log *slog.Logger) func() {
	sub, err := w.nc.Subscribe(wire.ControlSubject(sh.key.run), func(m *nats.Msg) {
		c := &barragev1.Control{}
		if err := proto.Unmarshal(m.Data, c); err != nil {
			log.Warn("unreadable control message", slog.Any("error", err))
			return
		}
		if c.GetAction() == barragev1.Action_ACTION_STOP && (c.GetRunId() == "" || c.GetRunId() == sh.key.run) {
			sh.stop(errStopMessage)
		}
	})
	if err != nil {
		log.Warn("subscribe to run control; relying on the run state", slog.Any("error", err))
	}
	pollCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		w.pollState(pollCtx, sh, log)
	}()
	return func() {
		cancel()
		if sub != nil {
			_ = sub.Unsubscribe()
		}
		<-done
	}
}

// pollState reads the run state every statePoll until ctx is done or the
// shard must stop.
func (w *Worker) pollState(ctx context.Context, sh *shard, log *slog.Logger) {
	tick := time.NewTicker(statePoll)
	defer tick.Stop()
	lastRunning := time.Now()
	for {
		phase, err := w.runPhase(ctx, sh.key.run)
		switch {
		case ctx.Err() != nil:
			return
		case err == nil && phase == barragev1.RunPhase_RUN_PHASE_RUNNING:
			lastRunning = time.Now()
		case err == nil && (phase == barragev1.RunPhase_RUN_PHASE_STOPPING || phase == barragev1.RunPhase_RUN_PHASE_DONE):
			sh.stop(fmt.Errorf("%w: %s", errRunStopped, phase))
			return
		}
		if since := time.Since(lastRunning); since >= wire.FailSafeAfter {
			why := "run state " + phase.String()
			if err != nil {
				why = err.Error()
			}
			log.Warn("fail-safe: no running state for the run; stopping the shard",
				slog.Duration("for", since.Round(time.Millisecond)), slog.String("last_error", why))
			sh.stop(fmt.Errorf("%w: no running state for %s (%s)", errFailSafe, wire.FailSafeAfter, why))
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// runPhase reads a run's phase from the runs bucket.
func (w *Worker) runPhase(ctx context.Context, run string) (barragev1.RunPhase, error) {
	ctx, cancel := context.WithTimeout(ctx, statePoll)
	defer cancel()
	e, err := w.runs.Get(ctx, run)
	if err != nil {
		return barragev1.RunPhase_RUN_PHASE_UNSPECIFIED, fmt.Errorf("read run state: %w", err)
	}
	st := &barragev1.RunState{}
	if err := proto.Unmarshal(e.Value(), st); err != nil {
		return barragev1.RunPhase_RUN_PHASE_UNSPECIFIED, fmt.Errorf("decode run state: %w", err)
	}
	return st.GetPhase(), nil
}
