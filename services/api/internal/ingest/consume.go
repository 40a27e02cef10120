package ingest

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/barrage-dev/barrage/pkg/wire"
	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/live"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// consume reads snapshots from a continuous pull, which the client keeps
// open and renews before it runs out (with heartbeats, so a pull the
// server dropped is noticed), and hands them to the workers in batches
// until ctx ends. When the pull fails (the consumer was deleted, NATS
// stayed away) it makes sure the consumer exists and pulls again.
func (in *Ingester) consume(ctx context.Context) {
	batches := make(chan []jetstream.Msg)
	var workers sync.WaitGroup
	for range in.cfg.Workers {
		workers.Go(func() {
			for b := range batches {
				in.handleBatch(ctx, b)
			}
		})
	}
	defer workers.Wait()
	defer close(batches)
	for ctx.Err() == nil {
		it, err := in.consumer().Messages(
			jetstream.PullMaxMessages(in.cfg.BatchSize),
			jetstream.PullExpiry(pullExpiry),
			jetstream.WithMessagesErrOnMissingHeartbeat(true),
		)
		if err == nil {
			err = in.pump(ctx, it, batches)
		}
		if err != nil {
			in.pullFailed(ctx, err)
		}
	}
}

// pump hands what it reads to batches until ctx ends (nil) or the pull
// fails (its error). A batch is the snapshots that arrived within
// batchLinger of its first, at most BatchSize. On the way out it hands
// back to the stream whatever it read and could not pass on, so that
// another replica gets it at once rather than after the ack wait.
func (in *Ingester) pump(ctx context.Context, it jetstream.MessagesContext, batches chan<- []jetstream.Msg) (failed error) {
	var batch []jetstream.Msg
	defer func() {
		it.Drain()
		for {
			m, err := it.Next(jetstream.NextMaxWait(drainWait))
			if err != nil {
				break
			}
			batch = append(batch, m)
		}
		in.handBack(batch)
	}()
	for {
		first, err := it.Next(jetstream.NextContext(ctx))
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		batch = append(batch[:0], first)
		deadline := time.Now().Add(batchLinger)
	fill:
		for len(batch) < in.cfg.BatchSize {
			wait := time.Until(deadline)
			if wait <= 0 {
				break
			}
			m, err := it.Next(jetstream.NextMaxWait(wait))
			switch {
			case err == nil:
				batch = append(batch, m)
			case errors.Is(err, nats.ErrTimeout):
				break fill
			default:
				failed = err // the batch in hand is still stored
				break fill
			}
		}
		select {
		case batches <- batch:
			batch = nil
		case <-ctx.Done():
			return nil
		}
		if failed != nil {
			return failed
		}
	}
}

// handBack asks for the redelivery of snapshots read but not stored.
func (in *Ingester) handBack(msgs []jetstream.Msg) {
	for _, m := range msgs {
		if err := m.Nak(); err != nil {
			in.cfg.Log.Debug("ingest: hand back snapshot", slog.String("subject", m.Subject()), slog.Any("error", err))
		}
	}
}

// consumer returns the current consumer.
func (in *Ingester) consumer() jetstream.Consumer {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.cons
}

// pullFailed logs a failed pull, creates the consumer again in case it
// was deleted (a no-op when it exists as configured), and waits a little
// before the next pull.
func (in *Ingester) pullFailed(ctx context.Context, err error) {
	if ctx.Err() != nil {
		return
	}
	in.cfg.Log.Warn("ingest: pull snapshots", slog.Any("error", err))
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	cons, cerr := in.cfg.JS.CreateOrUpdateConsumer(cctx, wire.SnapStream, consumerConfig())
	cancel()
	if cerr == nil {
		in.mu.Lock()
		in.cons = cons
		in.mu.Unlock()
	} else {
		in.cfg.Log.Warn("ingest: create consumer", slog.String("consumer", wire.IngestConsumer), slog.Any("error", cerr))
	}
	t := time.NewTimer(time.Second)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// handleBatch stores a batch of snapshots: the interval snapshots in one
// transaction (storeIntervals), then the finals one by one. A malformed
// snapshot is terminated: no redelivery would make it valid.
func (in *Ingester) handleBatch(ctx context.Context, msgs []jetstream.Msg) {
	var (
		ivMsgs, finalMsgs   []jetstream.Msg
		ivSnaps, finalSnaps []*snapshot
	)
	for _, m := range msgs {
		snap, err := decodeSnapshot(m.Subject(), m.Data())
		if err == nil {
			snap.redactURLs(in.cfg.Redactor)
		}
		switch {
		case err != nil:
			in.terminate(m, err)
		case snap.rec.Final:
			finalMsgs, finalSnaps = append(finalMsgs, m), append(finalSnaps, snap)
		default:
			ivMsgs, ivSnaps = append(ivMsgs, m), append(ivSnaps, snap)
		}
	}
	if md, err := msgs[len(msgs)-1].Metadata(); err == nil {
		in.cfg.Metrics.IngestBacklog(md.NumPending)
	}
	if len(ivMsgs) > 0 {
		in.storeIntervals(ctx, ivMsgs, ivSnaps)
	}
	for i, m := range finalMsgs {
		in.store(ctx, m, finalSnaps[i])
	}
}

// storeIntervals stores interval snapshots in one transaction, merging
// each second once, and acks them all once it committed; if it fails they
// are all redelivered after RetryDelay. When a run or shard of the batch
// does not exist, each snapshot is stored on its own instead, so that only
// the ones that can never be stored are terminated. The snapshots in hand
// are stored even when ctx ends meanwhile.
func (in *Ingester) storeIntervals(ctx context.Context, msgs []jetstream.Msg, snaps []*snapshot) {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeTimeout)
	defer cancel()
	recs := make([]runs.SnapshotRecord, len(snaps))
	for i, s := range snaps {
		recs[i] = s.rec
	}
	out, err := in.recordIntervals(sctx, recs, snaps)
	if apperr.Is(err, apperr.NotFound) {
		for i, m := range msgs {
			in.store(ctx, m, snaps[i])
		}
		return
	}
	if err != nil {
		in.cfg.Log.Warn("ingest: store snapshots; will retry", slog.Int("snapshots", len(msgs)), slog.Any("error", err))
		for _, m := range msgs {
			if err := m.NakWithDelay(in.cfg.RetryDelay); err != nil {
				in.cfg.Log.Debug("ingest: nak snapshot", slog.String("subject", m.Subject()), slog.Any("error", err))
			}
		}
		return
	}
	// One event per second the batch changed: a stream reads the second
	// once whatever the number of its snapshots (live.Stream.burst), so a
	// run of 20 shards needs one event a second, not 20.
	changed := make(map[live.Event]struct{}, len(msgs))
	for i, m := range msgs {
		if err := m.Ack(); err != nil {
			// Stored: a redelivery will be found a duplicate.
			in.cfg.Log.Debug("ingest: ack snapshot", slog.String("subject", m.Subject()), slog.Any("error", err))
		}
		if out[i].Duplicate || out[i].Ignored {
			continue
		}
		in.stored(snaps[i])
		e := live.Event{RunID: recs[i].RunID, Second: out[i].Second}
		if _, ok := changed[e]; !ok {
			changed[e] = struct{}{}
			in.emit(e)
		}
	}
}

// store stores one snapshot and acks it once stored. One for a run or
// shard that does not exist is terminated. Any other failure (Postgres
// away) asks for a redelivery after RetryDelay. The snapshot in hand is
// stored even when ctx ends meanwhile.
func (in *Ingester) store(ctx context.Context, m jetstream.Msg, snap *snapshot) {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeTimeout)
	defer cancel()
	out, err := in.record(sctx, snap)
	if apperr.Is(err, apperr.NotFound) {
		in.terminate(m, err)
		return
	}
	if err != nil {
		in.cfg.Log.Warn("ingest: store snapshot; will retry", slog.String("subject", m.Subject()), slog.Any("error", err))
		if err := m.NakWithDelay(in.cfg.RetryDelay); err != nil {
			in.cfg.Log.Debug("ingest: nak snapshot", slog.String("subject", m.Subject()), slog.Any("error", err))
		}
		return
	}
	if err := m.Ack(); err != nil {
		// Stored: a redelivery will be found a duplicate.
		in.cfg.Log.Debug("ingest: ack snapshot", slog.String("subject", m.Subject()), slog.Any("error", err))
	}
	if !out.Duplicate && !out.Ignored {
		in.stored(snap)
	}
	switch {
	case out.Duplicate, out.Ignored:
		return
	case snap.rec.Final:
		in.emit(live.Event{RunID: snap.rec.RunID, Final: true})
	default:
		in.emit(live.Event{RunID: snap.rec.RunID, Second: out.Second})
	}
	if out.Settled {
		in.finish(sctx, snap.rec.RunID)
	}
}

// stored tells the metrics of a snapshot stored.
func (in *Ingester) stored(snap *snapshot) {
	var lag time.Duration
	if !snap.end.IsZero() {
		lag = in.cfg.Now().Sub(snap.end)
	}
	in.cfg.Metrics.SnapshotStored(snap.rec.Final, lag)
}

// terminate drops a snapshot that can never be stored, and says why.
func (in *Ingester) terminate(m jetstream.Msg, reason error) {
	in.cfg.Log.Warn("ingest: snapshot dropped", slog.String("subject", m.Subject()), slog.Any("reason", reason))
	if err := m.Term(); err != nil {
		in.cfg.Log.Debug("ingest: terminate snapshot", slog.String("subject", m.Subject()), slog.Any("error", err))
	}
}

// emit hands e to the in-process hook and broadcasts it to every replica.
func (in *Ingester) emit(e live.Event) {
	if in.cfg.OnInterval != nil {
		in.cfg.OnInterval(e)
	}
	if err := live.Broadcast(in.cfg.Conn, e); err != nil {
		in.cfg.Log.Debug("ingest: publish event", slog.String("run", e.RunID.String()), slog.Any("error", err))
	}
}
