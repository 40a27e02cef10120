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

// SetupOptions shape the streams and buckets Setup makes.
type SetupOptions struct {
	// Replicas is how many servers of a JetStream cluster hold each
	// stream and bucket: 3 on a 3-node cluster, so that losing one node
	// loses nothing (docs/reliability.md). Setup creates them so and
	// scales existing ones to it. 0 creates them with one replica and
	// leaves existing ones as they are: what agents and tools use, so
	// that they never undo barrage-api's setting.
	//
	// The heartbeat buckets (agents, echoes) keep memory storage but are
	// replicated too: an R1 one would vanish with its node, and every
	// agent would look gone to the sweeper until it came back.
	Replicas int
}

// Setup creates the streams and buckets of the contract with default
// options (see SetupOptions.Replicas). Both the API and agents call it at
// start, so either may come up first.
func Setup(ctx context.Context, js jetstream.JetStream) error {
	return SetupWith(ctx, js, SetupOptions{})
}

// SetupWith creates or updates the streams and buckets of the contract as
// o says.
func SetupWith(ctx context.Context, js jetstream.JetStream, o SetupOptions) error {
	if o.Replicas < 0 {
		return fmt.Errorf("wire: replicas %d: must be 0 or more", o.Replicas)
	}
	streams := []jetstream.StreamConfig{
		{
			Name: AssignStream, Subjects: []string{AssignSubjects}, Retention: jetstream.WorkQueuePolicy,
			Storage: jetstream.FileStorage, Duplicates: DuplicateWindow, MaxAge: SnapMaxAge, Replicas: o.Replicas,
		},
		{
			Name: SnapStream, Subjects: []string{SnapSubjects}, Retention: jetstream.WorkQueuePolicy,
			Storage: jetstream.FileStorage, Duplicates: DuplicateWindow, MaxAge: SnapMaxAge, Replicas: o.Replicas,
		},
	}
	for i := range streams {
		if err := ensureStream(ctx, js, streams[i]); err != nil {
			return fmt.Errorf("stream %s: %w", streams[i].Name, err)
		}
	}
	buckets := []jetstream.KeyValueConfig{
		{Bucket: AgentsBucket, TTL: AgentTTL, History: 1, Storage: jetstream.MemoryStorage, Replicas: o.Replicas},
		{Bucket: RunsBucket, TTL: RunStateTTL, History: 1, Storage: jetstream.FileStorage, Replicas: o.Replicas},
		{Bucket: EchoesBucket, TTL: EchoTTL, History: 1, Storage: jetstream.MemoryStorage, Replicas: o.Replicas},
		{Bucket: EchoProfilesBucket, History: 1, Storage: jetstream.FileStorage, Replicas: o.Replicas},
	}
	for i := range buckets {
		if err := ensureBucket(ctx, js, buckets[i]); err != nil {
			return fmt.Errorf("bucket %s: %w", buckets[i].Bucket, err)
		}
	}
	return nil
}

// ensureStream creates the stream, or updates it only when its settings
// differ from cfg's (its replicas only when cfg sets them). An update that changes nothing still rewrites the
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
	if cfg.Replicas == 0 {
		cfg.Replicas = have.Replicas
	}
	if slices.Equal(have.Subjects, cfg.Subjects) && have.Retention == cfg.Retention && have.Storage == cfg.Storage &&
		have.Duplicates == cfg.Duplicates && have.MaxAge == cfg.MaxAge && have.Replicas == cfg.Replicas {
		return nil
	}
	_, err = js.UpdateStream(ctx, cfg)
	return err
}

// ensureBucket creates the bucket, or updates it only when its TTL, history,
// storage or (when cfg sets them) replicas differ from cfg's (see
// ensureStream).
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
	have := backingConfig(st)
	if cfg.Replicas == 0 {
		cfg.Replicas = have.Replicas
	}
	if st.TTL() == cfg.TTL && st.History() == int64(max(cfg.History, 1)) && st.BackingStore() == "JetStream" &&
		have.Storage == cfg.Storage && have.Replicas == cfg.Replicas {
		return nil
	}
	_, err = js.UpdateKeyValue(ctx, cfg)
	return err
}

// backingConfig is the config of a bucket's backing stream; an unknown
// status gives a storage of -1, which matches no bucket's.
func backingConfig(st jetstream.KeyValueStatus) jetstream.StreamConfig {
	if js, ok := st.(*jetstream.KeyValueBucketStatus); ok {
		return js.StreamInfo().Config
	}
	return jetstream.StreamConfig{Storage: -1}
}
