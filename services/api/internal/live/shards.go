package live

import (
	"context"

	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// ShardSource is a Source that also reads the per-shard series
// (runs.Watch is one); a stream whose Source is one sends a shards event
// after each interval event.
type ShardSource interface {
	// ShardSeconds returns the per-shard rows of up to limit stored
	// seconds from second from on.
	ShardSeconds(ctx context.Context, from, limit int) ([]runs.ShardSecond, int, error)
}

// ShardEncoder is an Encoder that renders one second's per-shard rows as
// the data of a shards event.
type ShardEncoder interface {
	Shards(second int, rows []runs.ShardSecond) ([]byte, error)
}

// sendShards sends the shards event of a second just sent with snapshots,
// when the stream's Source and Encoder can: rendered once per second and
// snapshots for all the run's streams (Renders). Old clients do not listen
// for it.
func (es *Stream) sendShards(second, snapshots int) error {
	src, ok1 := es.opts.Source.(ShardSource)
	enc, ok2 := es.opts.Encoder.(ShardEncoder)
	if !ok1 || !ok2 {
		return nil
	}
	data, ok := es.opts.Renders.cachedShards(es.run.ID, second, snapshots)
	if !ok {
		rows, _, err := src.ShardSeconds(es.ctx, second, 1)
		if err != nil {
			return err
		}
		mine := rows[:0:0]
		for _, r := range rows {
			if r.Second == second {
				mine = append(mine, r)
			}
		}
		if data, err = enc.Shards(second, mine); err != nil {
			return err
		}
		es.opts.Renders.putShards(es.run.ID, second, snapshots, data)
	}
	return es.sendData("shards", data)
}
