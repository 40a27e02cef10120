package worker

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"google.golang.org/protobuf/proto"

	"github.com/barrage-dev/barrage/pkg/natsembed"
	"github.com/barrage-dev/barrage/pkg/wire"
	barragev1 "github.com/barrage-dev/barrage/proto/barrage/v1"
	"github.com/barrage-dev/barrage/services/agent/internal/engine"
)

// TestIntervalSnapshotsHeldUntilTheStreamAnswers: interval snapshots that
// find no stream to take them (as while a NATS cluster elects the snapshot
// stream's new leader) are not lost: the next publish that gets through
// sends them first, in order, and the final goes last.
func TestIntervalSnapshotsHeldUntilTheStreamAnswers(t *testing.T) {
	srv := natsembed.StartT(t)
	nc, err := nats.Connect(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	w := &Worker{js: js, flush: context.Background(), id: "a1"}
	sink := &snapSink{w: w, key: shardKey{run: "r1", shard: 0}, codeName: func(int32) string { return "200" },
		log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	snap := func(seq uint64, final bool) *engine.Snapshot {
		now := time.Now()
		return &engine.Snapshot{Seq: seq, Final: final, Start: now, End: now, Count: int64(seq)}
	}
	// No stream yet: seconds 1 and 2 are held, not lost.
	for seq := uint64(1); seq <= 2; seq++ {
		if err := sink.Publish(context.Background(), snap(seq, false)); err != nil {
			t.Fatal(err)
		}
	}
	if len(sink.backlog) != 2 {
		t.Fatalf("backlog holds %d snapshots, want 2", len(sink.backlog))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := wire.Setup(ctx, js); err != nil {
		t.Fatal(err)
	}
	if err := sink.Publish(context.Background(), snap(3, false)); err != nil {
		t.Fatal(err)
	}
	if err := sink.Publish(context.Background(), snap(4, true)); err != nil {
		t.Fatal(err)
	}
	if len(sink.backlog) != 0 {
		t.Fatalf("backlog holds %d snapshots after the stream answered, want 0", len(sink.backlog))
	}
	st, err := js.Stream(ctx, wire.SnapStream)
	if err != nil {
		t.Fatal(err)
	}
	for seq := uint64(1); seq <= 4; seq++ {
		m, err := st.GetMsg(ctx, seq)
		if err != nil {
			t.Fatalf("stream message %d: %v", seq, err)
		}
		var got barragev1.Snapshot
		if err := proto.Unmarshal(m.Data, &got); err != nil {
			t.Fatal(err)
		}
		if got.Seq != seq || got.Final != (seq == 4) {
			t.Errorf("stream message %d is snapshot %d (final %v), want %d in order, the final last", seq, got.Seq, got.Final, seq)
		}
	}
}
