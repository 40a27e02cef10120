package ingest

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/barrage-dev/barrage/pkg/wire"
	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// consume fetches snapshots in batches and hands each batch to a worker
// until ctx ends.
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
		batch, err := in.consumer().Fetch(in.cfg.BatchSize, jetstream.FetchMaxWait(fetchWait))
		if err != nil {
			in.fetchFailed(ctx, err)
			continue
		}
		// Drain the batch even after ctx ended: its pull request is live
		// until it expires, and whatever it brings is handed back at once
		// rather than left to wait out the ack wait.
		var got []jetstream.Msg
		for m := range batch.Messages() {
			got = append(got, m)
		}
		if len(got) > 0 && ctx.Err() == nil {
			select {
			case batches <- got:
				got = nil
			case <-ctx.Done():
			}
		}
		for _, m := range got {
			if err := m.Nak(); err != nil {
				in.cfg.Log.Debug("ingest: hand back snapshot", slog.String("subject", m.Subject()), slog.Any("error", err))
			}
		}
		if err := batch.Error(); err != nil { // a pull that simply expired is not an error
			in.fetchFailed(ctx, err)
		}
	}
}

// consumer returns the current consumer.
func (in *Ingester) consumer() jetstream.Consumer {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.cons
}

// fetchFailed logs a failed pull, recreates the consumer when it is gone,
// and waits a little before the next one.
func (in *Ingester) fetchFailed(ctx context.Context, err error) {
	if ctx.Err() != nil {
		return
	}
	in.cfg.Log.Warn("ingest: fetch snapshots", slog.Any("error", err))
	if errors.Is(err, jetstream.ErrConsumerDeleted) || errors.Is(err, jetstream.ErrConsumerNotFound) {
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		cons, cerr := in.cfg.JS.CreateOrUpdateConsumer(cctx, wire.SnapStream, consumerConfig())
		cancel()
		if cerr == nil {
			in.mu.Lock()
			in.cons = cons
			in.mu.Unlock()
		}
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
	out, err := in.cfg.Store.RecordIntervals(sctx, recs, func(cur runs.Interval, fresh []int) (runs.Interval, error) {
		sel := make([]*snapshot, len(fresh))
		for j, i := range fresh {
			sel[j] = snaps[i]
		}
		return mergeAll(cur, sel)
	})
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
	for i, m := range msgs {
		if err := m.Ack(); err != nil {
			// Stored: a redelivery will be found a duplicate.
			in.cfg.Log.Debug("ingest: ack snapshot", slog.String("subject", m.Subject()), slog.Any("error", err))
		}
		if !out[i].Duplicate {
			in.emit(Event{RunID: recs[i].RunID, Second: out[i].Second})
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
	out, err := in.cfg.Store.RecordSnapshot(sctx, snap.rec, snap.merge)
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
	switch {
	case out.Duplicate, out.Ignored:
		return
	case snap.rec.Final:
		in.emit(Event{RunID: snap.rec.RunID, Final: true})
	default:
		in.emit(Event{RunID: snap.rec.RunID, Second: out.Second})
	}
	if out.Settled {
		in.finish(sctx, snap.rec.RunID)
	}
}

// terminate drops a snapshot that can never be stored, and says why.
func (in *Ingester) terminate(m jetstream.Msg, reason error) {
	in.cfg.Log.Warn("ingest: snapshot dropped", slog.String("subject", m.Subject()), slog.Any("reason", reason))
	if err := m.Term(); err != nil {
		in.cfg.Log.Debug("ingest: terminate snapshot", slog.String("subject", m.Subject()), slog.Any("error", err))
	}
}

// emit hands e to the in-process hook and publishes it to every replica.
func (in *Ingester) emit(e Event) {
	if in.cfg.OnInterval != nil {
		in.cfg.OnInterval(e)
	}
	if in.cfg.Conn == nil {
		return
	}
	b, err := json.Marshal(e)
	if err != nil { // a struct of a uuid, ints, a bool and a string always marshals
		return
	}
	if err := in.cfg.Conn.Publish(wire.NotifySubject, b); err != nil {
		in.cfg.Log.Debug("ingest: publish event", slog.String("run", e.RunID.String()), slog.Any("error", err))
	}
}
