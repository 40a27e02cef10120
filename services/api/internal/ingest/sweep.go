package ingest

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/barrage-dev/barrage/pkg/wire"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// listTimeout bounds reading the agents' heartbeats.
const listTimeout = 5 * time.Second

// BacklogGrace is how long the ingest may go without storing anything
// while snapshots wait in the stream before a shard with queued snapshots
// may be lost after all. While the ingest drains the stream, however
// slowly, a shard whose snapshots are queued stays pending (up to
// wire.SnapMaxAge, when the stream drops them): its final may be among
// them, so neither the deadline nor a finished agent's missing heartbeat
// proves it lost.
const BacklogGrace = time.Minute

// sweepLoop sweeps every SweepEvery until ctx ends.
func (in *Ingester) sweepLoop(ctx context.Context) {
	t := time.NewTicker(in.cfg.SweepEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		in.sweep(ctx)
	}
}

// sweep marks lost the pending shards whose agent has no heartbeat (once
// their run has started) or whose run is past its deadline and
// wire.FinalGrace, then finishes the runs that have no pending shard. When
// the heartbeats cannot be read, only deadlines count: a NATS outage must
// not lose every shard.
func (in *Ingester) sweep(ctx context.Context) {
	live, ok := in.liveAgents(ctx)
	if ok && in.justReconnected() {
		ok = false
	}
	grace := wire.FinalGrace
	q := in.queuedShards(ctx)
	queued, known := q.shards, q.known
	if !known {
		// Any shard may have a final waiting: only the long deadline counts.
		ok, grace = false, wire.FinalGrace+BacklogGrace
	}
	backlog := in.backlogGrace(q)
	out, err := in.cfg.Store.SweepShards(ctx, runs.Sweep{
		Now: in.cfg.Now(), Grace: grace, CheckAgents: ok, Live: live, Queued: queued, Backlog: backlog,
		Limit: in.cfg.SweepLimit,
	})
	if err != nil {
		if ctx.Err() == nil {
			in.cfg.Log.Warn("ingest: sweep shards", slog.Any("error", err))
		}
		return
	}
	for _, l := range out.Lost {
		reason := "its agent stopped heartbeating"
		if l.Deadline {
			reason = "no final snapshot by the deadline and grace"
		}
		in.cfg.Log.Warn("shard lost", slog.String("run", l.RunID.String()), slog.Int("shard", l.Shard), slog.String("reason", reason))
	}
	for _, id := range out.Settled {
		if ctx.Err() != nil {
			return
		}
		in.finish(ctx, id)
	}
}

// queue is what the sweeper reads of the snapshot stream.
type queue struct {
	// shards names the shards ("<run>/<shard>") with snapshots in the
	// stream not yet stored.
	shards []string
	// waiting is the messages in the stream, and removed how many it has
	// dropped so far: a work-queue stream drops a message once acked (or
	// past its MaxAge), so removed grows while the ingest drains it.
	waiting, removed uint64
	// known is false when the stream could not be read.
	known bool
}

// queuedShards reads the snapshot stream's queue.
func (in *Ingester) queuedShards(ctx context.Context) queue {
	ictx, cancel := context.WithTimeout(ctx, listTimeout)
	defer cancel()
	st, err := in.cfg.JS.Stream(ictx, wire.SnapStream)
	if err != nil {
		return queue{}
	}
	info, err := st.Info(ictx, jetstream.WithSubjectFilter(wire.SnapSubjects))
	if err != nil {
		return queue{}
	}
	q := queue{shards: make([]string, 0, len(info.State.Subjects)), waiting: info.State.Msgs, known: true}
	if info.State.LastSeq > info.State.Msgs {
		q.removed = info.State.LastSeq - info.State.Msgs
	}
	for subj := range info.State.Subjects {
		if _, run, shard, ok := wire.ParseSnapSubject(subj); ok {
			q.shards = append(q.shards, fmt.Sprintf("%s/%d", run, shard))
		}
	}
	return q
}

// backlogGrace is the extra grace of shards with queued snapshots: until
// wire.SnapMaxAge while the ingest drains the stream (it removed a message,
// or none waited, within the last BacklogGrace); once it has stalled that
// long, BacklogGrace after the deadline and grace. The stream is shared by
// the API replicas, so it shows any replica's progress. When it could not
// be read, the last progress seen stands.
func (in *Ingester) backlogGrace(q queue) time.Duration {
	now := in.cfg.Now()
	if q.known && (q.removed != in.removed || q.waiting == 0) || in.drainedAt.IsZero() {
		in.removed, in.drainedAt = q.removed, now
	}
	if now.Sub(in.drainedAt) < BacklogGrace {
		return wire.SnapMaxAge
	}
	return BacklogGrace
}

// justReconnected reports whether the connection to NATS came back less
// than wire.AgentTTL ago. Heartbeats do not count then: a restarted
// nats-server has lost its memory-stored agents bucket, which the API
// creates again empty (app/bus.go), and the agents, which reconnect too,
// need a heartbeat period to write theirs into it; until then every agent
// would look gone and every running shard be lost.
func (in *Ingester) justReconnected() bool {
	if in.cfg.Conn == nil {
		return false
	}
	now := in.cfg.Now()
	if n := in.cfg.Conn.Stats().Reconnects; n != in.reconnects {
		in.reconnects = n
		in.heartbeatsFrom = now.Add(wire.AgentTTL)
		in.cfg.Log.Info("ingest: NATS reconnected; heartbeats count again after a heartbeat TTL", slog.Duration("ttl", wire.AgentTTL))
	}
	return now.Before(in.heartbeatsFrom)
}

// liveAgents returns the ids of the agents with a heartbeat in the agents
// bucket (expired entries are gone from it), and false when the bucket
// could not be read.
func (in *Ingester) liveAgents(ctx context.Context) ([]uuid.UUID, bool) {
	lctx, cancel := context.WithTimeout(ctx, listTimeout)
	defer cancel()
	entries, err := wire.Entries(lctx, in.cfg.JS, in.agents, jetstream.MetaOnly())
	if err != nil {
		if ctx.Err() == nil {
			in.cfg.Log.Warn("ingest: read heartbeats; only deadlines are checked", slog.Any("error", err))
		}
		return nil, false
	}
	live := make([]uuid.UUID, 0, len(entries))
	for _, e := range entries {
		if id, err := uuid.Parse(e.Key()); err == nil {
			live = append(live, id)
		}
	}
	return live, true
}
