package live

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/pkg/hist"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

func TestRendersRenderASecondOncePerSnapshotCount(t *testing.T) {
	t.Parallel()
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	r := NewRenders(func() time.Time { return now })
	calls := 0
	render := func(iv *runs.Interval) ([]byte, error) {
		calls++
		return testEncoder{}.Interval(iv)
	}
	h := hist.New()
	for v := range 100 {
		h.RecordMicros(int64(100 + v))
	}
	enc, err := h.Encode()
	if err != nil {
		t.Fatal(err)
	}
	run := uuid.New()
	one := runs.Interval{Second: 3, Snapshots: 1, Count: 100, Response: enc, Service: enc}
	first, err := r.interval(run, &one, render)
	if err != nil {
		t.Fatal(err)
	}
	if out := decodeInterval(t, first); out.Count != 100 || out.Snapshots != 1 || out.Response.P50Us < 100 {
		t.Fatalf("%+v", out)
	}
	for range 199 { // every other stream of the run, told of the same snapshot
		data, err := r.interval(run, &one, render)
		if err != nil || &data[0] != &first[0] {
			t.Fatalf("a stream got its own bytes (%v): the encoded second is not shared", err)
		}
	}
	if calls != 1 {
		t.Fatalf("%d renders for 200 streams, want 1", calls)
	}
	if data, ok := r.cached(run, 3, 1); !ok || &data[0] != &first[0] {
		t.Fatal("cached does not return the encoded second")
	}
	if _, ok := r.cached(run, 3, 2); ok {
		t.Fatal("cached returns a second for a snapshot count it never rendered")
	}
	both := one
	both.Snapshots, both.Count = 2, 200 // the second shard's snapshot merged
	if data, _ := r.interval(run, &both, render); decodeInterval(t, data).Count != 200 || calls != 2 {
		t.Fatalf("after another snapshot: count %d, %d renders; want 200, 2", decodeInterval(t, data).Count, calls)
	}
	if data, _ := r.interval(uuid.New(), &one, render); decodeInterval(t, data).Count != 100 || calls != 3 {
		t.Fatalf("another run's second: %d renders, want 3", calls)
	}

	// Old seconds are dropped.
	now = now.Add(rendersKeep + 2*time.Second)
	fresh := runs.Interval{Second: 40, Snapshots: 1, Count: 1, Response: enc, Service: enc}
	if _, err := r.interval(run, &fresh, render); err != nil {
		t.Fatal(err)
	}
	if n := r.size(); n != 1 {
		t.Fatalf("%d seconds cached after %s, want only the fresh one", n, rendersKeep)
	}
	var none *Renders // a server without the cache renders every time
	if _, ok := none.cached(run, 3, 1); ok {
		t.Fatal("nil renders caches")
	}
	data, err := none.interval(run, &one, render)
	if err != nil {
		t.Fatal(err)
	}
	if out := decodeInterval(t, data); out.Count != 100 || calls != 5 {
		t.Fatalf("nil renders: %+v after %d renders, want a fifth", out, calls)
	}
}

// testInterval is what testEncoder renders of a second.
type testInterval struct {
	Second    int   `json:"second"`
	Snapshots int   `json:"snapshots"`
	Count     int64 `json:"count"`
	Response  struct {
		P50Us int64 `json:"p50_us"`
	} `json:"response"`
}

// testEncoder renders seconds with their response time's median, read
// from the histogram as the API's encoder does, and results as the count.
type testEncoder struct{}

func (testEncoder) Interval(iv *runs.Interval) ([]byte, error) {
	out := testInterval{Second: iv.Second, Snapshots: iv.Snapshots, Count: iv.Count}
	if len(iv.Response) > 0 {
		h, err := hist.Decode(iv.Response)
		if err != nil {
			return nil, err
		}
		out.Response.P50Us = h.Percentile(50).Microseconds()
	}
	return json.Marshal(out)
}

func (testEncoder) Result(r runs.Run, res runs.Result) ([]byte, error) {
	return json.Marshal(map[string]any{"run_id": r.ID, "count": res.Count})
}

func decodeInterval(t *testing.T, data []byte) testInterval {
	t.Helper()
	var out testInterval
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatalf("%s: %v", data, err)
	}
	return out
}
