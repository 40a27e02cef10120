package wire_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/barrage-dev/barrage/pkg/wire"
)

// TestEntriesMissesNoKeyWhileKeysAreRewritten rewrites 8 keys as fast as
// it can while listing the bucket 500 times. A bare watcher leaves keys
// out of some of those listings (8 % of 2,000 here); Entries must never.
// A deleted key is never listed.
func TestEntriesMissesNoKeyWhileKeysAreRewritten(t *testing.T) {
	_, js := connectJS(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := wire.Setup(ctx, js); err != nil {
		t.Fatal(err)
	}
	kv, err := js.KeyValue(ctx, wire.AgentsBucket)
	if err != nil {
		t.Fatal(err)
	}
	const keys = 8
	for i := range keys {
		if _, err := kv.Put(ctx, fmt.Sprintf("agent-%d", i), []byte("beat")); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := kv.Put(ctx, "gone", []byte("beat")); err != nil {
		t.Fatal(err)
	}
	if err := kv.Delete(ctx, "gone"); err != nil {
		t.Fatal(err)
	}

	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := range keys {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				_, _ = kv.Put(ctx, fmt.Sprintf("agent-%d", i), []byte("beat"))
				time.Sleep(time.Millisecond)
			}
		})
	}
	defer func() { close(stop); wg.Wait() }()

	short := 0
	for range 500 {
		got, err := wire.Entries(ctx, js, kv, jetstream.MetaOnly())
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != keys {
			short++
			names := make([]string, len(got))
			for i, e := range got {
				names[i] = e.Key()
			}
			t.Errorf("listing holds %d keys, want %d: %v", len(got), keys, names)
			continue
		}
		for i, e := range got {
			if want := fmt.Sprintf("agent-%d", i); e.Key() != want {
				t.Fatalf("entry %d is %q, want %q (sorted, no deleted key)", i, e.Key(), want)
			}
		}
	}
	if short > 0 {
		t.Fatalf("%d of 500 listings left a key out", short)
	}
}
