package wire

import (
	"context"
	"fmt"
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
		cfg := &streams[i]
		if _, err := js.CreateOrUpdateStream(ctx, *cfg); err != nil {
			return fmt.Errorf("stream %s: %w", cfg.Name, err)
		}
	}
	buckets := []jetstream.KeyValueConfig{
		{Bucket: AgentsBucket, TTL: AgentTTL, History: 1, Storage: jetstream.MemoryStorage},
		{Bucket: RunsBucket, TTL: RunStateTTL, History: 1, Storage: jetstream.FileStorage},
	}
	for i := range buckets {
		cfg := &buckets[i]
		if _, err := js.CreateOrUpdateKeyValue(ctx, *cfg); err != nil {
			return fmt.Errorf("bucket %s: %w", cfg.Bucket, err)
		}
	}
	return nil
}
