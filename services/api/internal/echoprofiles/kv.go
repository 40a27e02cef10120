package echoprofiles

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/barrage-dev/barrage/pkg/wire"
)

// KV is the Registry over the JetStream KV buckets of pkg/wire, which
// wire.Setup creates.
type KV struct {
	js jetstream.JetStream
}

// NewKV returns the Registry over js.
func NewKV(js jetstream.JetStream) *KV { return &KV{js: js} }

func (k *KV) bucket(ctx context.Context, name string) (jetstream.KeyValue, error) {
	kv, err := k.js.KeyValue(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("open bucket %s: %w", name, err)
	}
	return kv, nil
}

// Echoes returns the live registrations, skipping undecodable ones.
func (k *KV) Echoes(ctx context.Context) ([]wire.EchoRegistration, error) {
	var out []wire.EchoRegistration
	err := k.each(ctx, wire.EchoesBucket, func(_ string, v []byte) {
		var r wire.EchoRegistration
		if json.Unmarshal(v, &r) == nil && r.Name != "" {
			out = append(out, r)
		}
	})
	return out, err
}

// ActiveAll returns the active profile of every echo that has one.
func (k *KV) ActiveAll(ctx context.Context) (map[string]wire.EchoProfile, error) {
	out := map[string]wire.EchoProfile{}
	err := k.each(ctx, wire.EchoProfilesBucket, func(key string, v []byte) {
		var p wire.EchoProfile
		if json.Unmarshal(v, &p) == nil {
			out[key] = p
		}
	})
	return out, err
}

// each calls fn with every key and value of a bucket.
func (k *KV) each(ctx context.Context, bucket string, fn func(key string, v []byte)) error {
	kv, err := k.bucket(ctx, bucket)
	if err != nil {
		return err
	}
	entries, err := wire.Entries(ctx, k.js, kv)
	if err != nil {
		return fmt.Errorf("list %s: %w", bucket, err)
	}
	for _, e := range entries {
		fn(e.Key(), e.Value())
	}
	return nil
}

// Active returns the profile active on an echo.
func (k *KV) Active(ctx context.Context, echo string) (wire.EchoProfile, bool, error) {
	kv, err := k.bucket(ctx, wire.EchoProfilesBucket)
	if err != nil {
		return wire.EchoProfile{}, false, err
	}
	e, err := kv.Get(ctx, echo)
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound):
		return wire.EchoProfile{}, false, nil
	case err != nil:
		return wire.EchoProfile{}, false, fmt.Errorf("read profile of echo %s: %w", echo, err)
	}
	var p wire.EchoProfile
	if err := json.Unmarshal(e.Value(), &p); err != nil {
		return wire.EchoProfile{}, false, fmt.Errorf("decode profile of echo %s: %w", echo, err)
	}
	return p, true, nil
}

// Activate writes p as the echo's active profile.
func (k *KV) Activate(ctx context.Context, echo string, p wire.EchoProfile) error {
	kv, err := k.bucket(ctx, wire.EchoProfilesBucket)
	if err != nil {
		return err
	}
	b, err := json.Marshal(p)
	if err != nil {
		return fmt.Errorf("encode profile: %w", err)
	}
	if _, err := kv.Put(ctx, echo, b); err != nil {
		return fmt.Errorf("write profile of echo %s: %w", echo, err)
	}
	return nil
}

// Deactivate removes the echo's active profile.
func (k *KV) Deactivate(ctx context.Context, echo string) error {
	kv, err := k.bucket(ctx, wire.EchoProfilesBucket)
	if err != nil {
		return err
	}
	if err := kv.Delete(ctx, echo); err != nil && !errors.Is(err, jetstream.ErrKeyNotFound) {
		return fmt.Errorf("remove profile of echo %s: %w", echo, err)
	}
	return nil
}
