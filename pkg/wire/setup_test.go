package wire_test

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/barrage-dev/barrage/pkg/natsembed"
	"github.com/barrage-dev/barrage/pkg/wire"
)

// connectJS starts an embedded server and connects to it; the connection
// closes when the test ends.
func connectJS(t *testing.T) (*nats.Conn, jetstream.JetStream) {
	t.Helper()
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
	return nc, js
}

func TestSetupIsIdempotentAndDedupesByMsgID(t *testing.T) {
	_, js := connectJS(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for range 2 {
		if err := wire.Setup(ctx, js); err != nil {
			t.Fatalf("setup: %v", err)
		}
	}
	subj := wire.SnapSubject("a1", "r1", 2)
	if subj != "barrage.v1.snap.a1.r1.2" {
		t.Fatalf("snap subject = %q", subj)
	}
	id := wire.SnapMsgID("r1", 2, 7)
	if id != "r1/2/7" {
		t.Fatalf("snap msg id = %q", id)
	}
	for range 3 {
		if _, err := js.Publish(ctx, subj, []byte("x"), jetstream.WithMsgID(id)); err != nil {
			t.Fatal(err)
		}
	}
	st, err := js.Stream(ctx, wire.SnapStream)
	if err != nil {
		t.Fatal(err)
	}
	info, err := st.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.State.Msgs != 1 {
		t.Fatalf("stream holds %d messages after 3 publishes of one msg id, want 1", info.State.Msgs)
	}
	kv, err := js.KeyValue(ctx, wire.AgentsBucket)
	if err != nil {
		t.Fatal(err)
	}
	st2, err := kv.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st2.TTL() != wire.AgentTTL {
		t.Fatalf("agents bucket TTL = %s, want %s", st2.TTL(), wire.AgentTTL)
	}
}

// TestSetupUpdatesOnlyWhatDiffers: a second Setup leaves streams and buckets
// alone (nats-server announces every stream update, and a no-op update races
// with consumers being added), while one whose settings were changed by hand
// gets them back.
func TestSetupUpdatesOnlyWhatDiffers(t *testing.T) {
	nc, js := connectJS(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := wire.Setup(ctx, js); err != nil {
		t.Fatal(err)
	}
	updates, err := nc.SubscribeSync("$JS.EVENT.ADVISORY.STREAM.UPDATED.>")
	if err != nil {
		t.Fatal(err)
	}
	if err := wire.Setup(ctx, js); err != nil {
		t.Fatal(err)
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	if msg, err := updates.NextMsg(300 * time.Millisecond); err == nil {
		t.Fatalf("a second Setup updated %s", msg.Subject)
	}
	st, err := js.Stream(ctx, wire.SnapStream)
	if err != nil {
		t.Fatal(err)
	}
	cfg := st.CachedInfo().Config
	cfg.MaxAge = wire.SnapMaxAge + time.Hour
	if _, err := js.UpdateStream(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	if _, err := js.UpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: wire.AgentsBucket, TTL: time.Hour, Storage: jetstream.MemoryStorage}); err != nil {
		t.Fatal(err)
	}
	if err := wire.Setup(ctx, js); err != nil {
		t.Fatal(err)
	}
	if st, err = js.Stream(ctx, wire.SnapStream); err != nil || st.CachedInfo().Config.MaxAge != wire.SnapMaxAge {
		t.Fatalf("snap stream MaxAge after Setup = %v (%v), want %v", st.CachedInfo().Config.MaxAge, err, wire.SnapMaxAge)
	}
	kv, err := js.KeyValue(ctx, wire.AgentsBucket)
	if err != nil {
		t.Fatal(err)
	}
	if status, err := kv.Status(ctx); err != nil || status.TTL() != wire.AgentTTL {
		t.Fatalf("agents bucket TTL after Setup = %v (%v), want %v", status.TTL(), err, wire.AgentTTL)
	}
}
