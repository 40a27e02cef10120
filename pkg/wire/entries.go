package wire

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/nats-io/nats.go/jetstream"
)

// Entries returns the current entries of kv, one for every key
// that holds a value, ordered by key. opts go to the watcher that reads
// most of them (jetstream.MetaOnly to skip the values).
//
// A watcher alone is not enough: while keys are being rewritten, its
// "every current value delivered" marker can come before some keys were
// delivered (nats-server#4824), and agents and echoes rewrite their keys
// every few seconds, so a listing could leave out a live agent. The
// stream's subject list is exact, so each key it names that the watcher
// did not deliver is read on its own; a key deleted meanwhile is left out.
func Entries(ctx context.Context, js jetstream.JetStream, kv jetstream.KeyValue, opts ...jetstream.WatchOpt) ([]jetstream.KeyValueEntry, error) {
	bucket := kv.Bucket()
	keys, err := bucketKeys(ctx, js, bucket)
	if err != nil {
		return nil, err
	}
	got, err := watchCurrent(ctx, kv, opts)
	if err != nil {
		return nil, fmt.Errorf("bucket %s: %w", bucket, err)
	}
	for _, k := range keys {
		if _, ok := got[k]; ok {
			continue
		}
		e, err := kv.Get(ctx, k)
		switch {
		case errors.Is(err, jetstream.ErrKeyNotFound), errors.Is(err, jetstream.ErrKeyDeleted):
			continue
		case err != nil:
			return nil, fmt.Errorf("bucket %s: read %s: %w", bucket, k, err)
		}
		got[k] = e
	}
	out := make([]jetstream.KeyValueEntry, 0, len(got))
	for _, e := range got {
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b jetstream.KeyValueEntry) int { return cmp.Compare(a.Key(), b.Key()) })
	return out, nil
}

// bucketKeys returns the keys with a message in the bucket's stream: every
// key holding a value, and the deleted ones whose marker is still there.
func bucketKeys(ctx context.Context, js jetstream.JetStream, bucket string) ([]string, error) {
	st, err := js.Stream(ctx, "KV_"+bucket)
	if err != nil {
		return nil, fmt.Errorf("bucket %s: stream: %w", bucket, err)
	}
	prefix := "$KV." + bucket + "."
	info, err := st.Info(ctx, jetstream.WithSubjectFilter(prefix+">"))
	if err != nil {
		return nil, fmt.Errorf("bucket %s: list subjects: %w", bucket, err)
	}
	keys := make([]string, 0, len(info.State.Subjects))
	for subj := range info.State.Subjects {
		if k, ok := strings.CutPrefix(subj, prefix); ok {
			keys = append(keys, k)
		}
	}
	return keys, nil
}

// watchCurrent returns what a watcher delivers up to its "current values
// delivered" marker, by key.
func watchCurrent(ctx context.Context, kv jetstream.KeyValue, opts []jetstream.WatchOpt) (map[string]jetstream.KeyValueEntry, error) {
	w, err := kv.WatchAll(ctx, append([]jetstream.WatchOpt{jetstream.IgnoreDeletes()}, opts...)...)
	if err != nil {
		return nil, fmt.Errorf("watch: %w", err)
	}
	defer func() { _ = w.Stop() }()
	got := map[string]jetstream.KeyValueEntry{}
	for {
		select {
		case e, open := <-w.Updates():
			switch {
			case !open:
				return nil, errors.New("watch: closed before the current values were delivered")
			case e == nil:
				return got, nil
			}
			got[e.Key()] = e
		case <-ctx.Done():
			return nil, fmt.Errorf("watch: %w", ctx.Err())
		}
	}
}
