package worker

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/barrage-dev/barrage/pkg/hist"
	pkgscenario "github.com/barrage-dev/barrage/pkg/scenario"
	"github.com/barrage-dev/barrage/pkg/spec"
	barragev1 "github.com/barrage-dev/barrage/proto/barrage/v1"
	"github.com/barrage-dev/barrage/services/agent/internal/engine"
	"github.com/barrage-dev/barrage/services/agent/internal/scenario"
	"github.com/barrage-dev/barrage/services/agent/internal/tlsconf"
)

// A scenario shard (docs/scenarios.md) runs the scenario executor
// (services/agent/internal/scenario) at the shard's part of the run's
// iterations per second, for the shard's count of iterations or the run's
// duration, and publishes a snapshot a second as a plain shard does: its
// count, codes and histograms add up every step's requests, and its
// scenario fields (steps, the iteration histogram and counts) hold each
// step's part. The final snapshot holds the whole shard.

// compileScenario compiles a scenario spec's plan; errors name fields.
func compileScenario(s spec.Spec) (*pkgscenario.Plan, error) {
	p, err := pkgscenario.Compile(s.Scenario)
	if err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	return p, nil
}

// checkScenarioTargets checks every step's target against the run's policy
// before any connection is made; each dial checks again.
func (sh *shard) checkScenarioTargets(ctx context.Context) error {
	for i := range sh.spec.Scenario.Steps {
		_, addr, err := spec.StepTarget(sh.spec.Scenario.Steps[i].URL)
		if err != nil {
			return fmt.Errorf("scenario.steps[%d].url: %w", i, err)
		}
		if err := sh.guard.CheckAddr(ctx, "tcp", addr); err != nil {
			return fmt.Errorf("scenario.steps[%d].url: %w", i, err)
		}
	}
	return nil
}

// runScenario runs a scenario shard to its end.
func (w *Worker) runScenario(ctx context.Context, sh *shard, log *slog.Logger) {
	sink := &snapSink{w: w, key: sh.key, slot: sh.slot, codeName: func(c int32) string { return strconv.Itoa(int(c)) }, log: log}
	if err := sh.checkScenarioTargets(ctx); err != nil {
		log.Error("shard refused its target", slog.Any("error", err))
		sink.publishFailed(err)
		return
	}
	log.Info("scenario shard starting", slog.Time("start_at", sh.startAt), slog.Time("deadline", sh.deadline),
		slog.Float64("iterations_per_second", sh.spec.IterationsPerSecond), slog.Int64("iterations", sh.spec.Count),
		slog.Int("steps", len(sh.plan.Steps)))
	tlsCfg, err := tlsconf.Config(sh.spec) // the https:// steps' roots, client certificate, SNI, version
	if err != nil {
		log.Error("scenario shard cannot build its TLS configuration", slog.Any("error", err))
		sink.publishFailed(err)
		return
	}
	if !sleepUntil(ctx, sh.startAt) {
		sink.publishFailed(nil)
		return
	}
	opts := scenario.Options{TLS: tlsCfg,
		Plan: sh.plan, IterationsPerSecond: sh.spec.IterationsPerSecond, Duration: sh.spec.RunFor(), MaxIterations: sh.spec.Count,
		Concurrency: sh.spec.Connections, Timeout: sh.spec.Timeout.Std(), Live: &scenario.Live{},
		DialContext: w.cfg.Metrics.CountDials(sh.guard.DialContext), Seed: uint64(sh.key.shard),
		IterationStart: int64(sh.key.shard), IterationStride: int64(sh.shards), // {{.iteration}} unique across the shards
	}
	if opts.Duration <= 0 && opts.MaxIterations <= 0 { // until stopped: the deadline ends it
		opts.Duration = time.Until(sh.deadline)
	}
	c := &scenarioCollector{sink: sink, live: opts.Live, from: time.Now(), total: &scenario.Interval{}}
	c.total.Iteration = hist.New()
	start := c.from
	done := make(chan error, 1)
	go func() {
		_, err := scenario.Run(ctx, opts)
		done <- err
	}()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	var runErr error
loop:
	for {
		select {
		case <-tick.C:
			c.publish(time.Now())
		case runErr = <-done:
			break loop
		}
	}
	if runErr != nil {
		log.Error("scenario shard failed", slog.Any("error", runErr))
		if sink.published == 0 {
			sink.publishFailed(runErr)
			return
		}
	}
	c.publish(time.Now()) // what is left, as the last interval
	c.final(start, time.Now())
	log.Info("scenario shard finished", slog.Int64("iterations", c.total.Started), slog.Uint64("snapshots", c.seq))
}

// sleepUntil waits for t; false when ctx ended first.
func sleepUntil(ctx context.Context, t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err() == nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-timer.C:
		return true
	}
}

// scenarioCollector turns a Live's drains into snapshots.
type scenarioCollector struct {
	sink  *snapSink
	live  *scenario.Live
	from  time.Time
	seq   uint64
	total *scenario.Interval
}

// publish sends what was recorded since the previous snapshot.
func (c *scenarioCollector) publish(end time.Time) {
	iv := c.live.Drain()
	if iv == nil {
		return
	}
	if err := c.total.Add(iv); err != nil {
		c.sink.log.Warn("scenario interval not added to the total", slog.Any("error", err))
	}
	c.seq++
	snap := stepsSnapshot(iv)
	snap.Seq, snap.Start, snap.End = c.seq, c.from, end
	c.from = end
	c.send(snap, iv)
}

// final sends the whole shard.
func (c *scenarioCollector) final(start, end time.Time) {
	c.seq++
	snap := stepsSnapshot(c.total)
	snap.Seq, snap.Final, snap.Start, snap.End = c.seq, true, start, end
	c.send(snap, c.total)
}

func (c *scenarioCollector) send(snap *engine.Snapshot, iv *scenario.Interval) {
	fields, err := scenarioFields(iv)
	if err != nil {
		c.sink.log.Warn("scenario snapshot fields", slog.Any("error", err))
	}
	c.sink.extra = func(m *barragev1.Snapshot) {
		m.Steps, m.IterationHdr = fields.Steps, fields.IterationHdr
		m.IterationsStarted, m.IterationsCompleted, m.IterationsFailed = fields.IterationsStarted, fields.IterationsCompleted, fields.IterationsFailed
	}
	if err := c.sink.Publish(context.Background(), snap); err != nil {
		c.sink.log.Error("final snapshot lost", slog.Any("error", err))
	}
	c.sink.extra = nil
}

// stepsSnapshot is the engine snapshot of an interval: every step's
// requests added up.
func stepsSnapshot(iv *scenario.Interval) *engine.Snapshot {
	snap := &engine.Snapshot{Codes: map[int32]int64{}, Service: hist.New(), Response: hist.New(), Lag: hist.New()}
	for _, st := range iv.Steps {
		snap.Count += st.Count
		snap.Errors += st.Errors
		for code, n := range st.Codes {
			snap.Codes[int32(code)] += n
		}
		_ = snap.Response.Merge(st.Response) // one configuration: cannot fail
		_ = snap.Service.Merge(st.Service)
		_ = snap.Lag.Merge(st.Lag)
	}
	return snap
}

// scenarioFields encodes an interval's scenario fields (a Snapshot's
// fields 31 to 35).
func scenarioFields(iv *scenario.Interval) (*barragev1.Snapshot, error) {
	out := &barragev1.Snapshot{
		IterationsStarted: uint64(max(iv.Started, 0)), IterationsCompleted: uint64(max(iv.Completed, 0)),
		IterationsFailed: uint64(max(iv.Failed, 0)),
	}
	var err error
	if iv.Iteration != nil {
		if out.IterationHdr, err = iv.Iteration.Encode(); err != nil {
			return out, err
		}
	}
	for i, st := range iv.Steps {
		m := &barragev1.StepResult{
			Index: uint32(i), Count: uint64(max(st.Count, 0)), Errors: uint64(max(st.Errors, 0)), Skipped: uint64(max(st.Skipped, 0)),
			RetCodes: map[string]uint64{}, FailedChecks: counts(st.FailedChecks), FailedExtractions: counts(st.FailedVars), TransportErrors: counts(st.Transport),
		}
		for code, n := range st.Codes {
			m.RetCodes[strconv.Itoa(code)] += uint64(max(n, 0))
		}
		for _, h := range []struct {
			h   *hist.Histogram
			dst *[]byte
		}{{st.Response, &m.ResponseHdr}, {st.Service, &m.ServiceHdr}, {st.Lag, &m.LagHdr}} {
			if *h.dst, err = h.h.Encode(); err != nil {
				return out, err
			}
		}
		out.Steps = append(out.Steps, m)
	}
	return out, nil
}

func counts(m map[string]int64) map[string]uint64 {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]uint64, len(m))
	for k, v := range m {
		out[k] = uint64(max(v, 0))
	}
	return out
}
