package wire

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// DuplicateWindow is how long JetStream remembers message ids.
const DuplicateWindow = 2 * time.Minute

// Setup creates or updates the streams and buckets of the contract. Both
// the API and agents call it at start, so either may come up first.
func Setup(ctx context.Context, js jetstream.JetStream) error {
	streams := []jetstream.StreamConfig{
		{
			Name: AssignStream, Subjects: []string{AssignSubjects}, Retention: jetstream.WorkQueuePolicy,
			Storage: jetstream.FileStorage, Duplicates: DuplicateWindow, MaxAge: SnapMaxAge,
		},
		{
			Name: SnapStream, Subjects: []string{SnapSubjects}, Retention: jetstream.WorkQueuePolicy,
			Storage: jetstream.FileStorage, Duplicates: DuplicateWindow, MaxAge: SnapMaxAge,
		},
	}
	for i := range streams {
		if err := ensureStream(ctx, js, streams[i]); err != nil {
			return fmt.Errorf("stream %s: %w", streams[i].Name, err)
		}
	}
	buckets := []jetstream.KeyValueConfig{
		{Bucket: AgentsBucket, TTL: AgentTTL, History: 1, Storage: jetstream.MemoryStorage},
		{Bucket: RunsBucket, TTL: RunStateTTL, History: 1, Storage: jetstream.FileStorage},
		{Bucket: EchoesBucket, TTL: EchoTTL, History: 1, Storage: jetstream.MemoryStorage},
		{Bucket: EchoProfilesBucket, History: 1, Storage: jetstream.FileStorage},
	}
	for i := range buckets {
		if err := ensureBucket(ctx, js, buckets[i]); err != nil {
			return fmt.Errorf("bucket %s: %w", buckets[i].Bucket, err)
		}
	}
	return nil
}

// ensureStream creates the stream, or updates it only when its settings
// differ from cfg's. An update that changes nothing still rewrites the
// stream's store config inside nats-server, racing with a consumer being
// added at the same moment (a data race there that -race reports when an API
// and agents start together), so a stream already as wanted is left alone.
func ensureStream(ctx context.Context, js jetstream.JetStream, cfg jetstream.StreamConfig) error {
	s, err := js.Stream(ctx, cfg.Name)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		if _, err = js.CreateStream(ctx, cfg); !errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
			return err
		}
		s, err = js.Stream(ctx, cfg.Name) // created meanwhile by another process
	}
	if err != nil {
		return err
	}
	have := s.CachedInfo().Config
	if slices.Equal(have.Subjects, cfg.Subjects) && have.Retention == cfg.Retention && have.Storage == cfg.Storage &&
		have.Duplicates == cfg.Duplicates && have.MaxAge == cfg.MaxAge {
		return nil
	}
	_, err = js.UpdateStream(ctx, cfg)
	return err
}

// ensureBucket creates the bucket, or updates it only when its TTL, history
// or storage differ from cfg's (see ensureStream).
func ensureBucket(ctx context.Context, js jetstream.JetStream, cfg jetstream.KeyValueConfig) error {
	kv, err := js.KeyValue(ctx, cfg.Bucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		if _, err = js.CreateKeyValue(ctx, cfg); !errors.Is(err, jetstream.ErrBucketExists) {
			return err
		}
		kv, err = js.KeyValue(ctx, cfg.Bucket)
	}
	if err != nil {
		return err
	}
	st, err := kv.Status(ctx)
	if err != nil {
		return err
	}
	if st.TTL() == cfg.TTL && st.History() == int64(max(cfg.History, 1)) && st.BackingStore() == "JetStream" &&
		storageOf(st) == cfg.Storage {
		return nil
	}
	_, err = js.UpdateKeyValue(ctx, cfg)
	return err
}

// storageOf is the storage of a bucket's backing stream.
func storageOf(st jetstream.KeyValueStatus) jetstream.StorageType {
	if js, ok := st.(*jetstream.KeyValueBucketStatus); ok {
		return js.StreamInfo().Config.Storage
	}
	return -1
}
