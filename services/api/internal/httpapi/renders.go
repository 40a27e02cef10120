package httpapi

import (
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// rendersKeep is how long a rendered second stays cached.
const rendersKeep = 30 * time.Second

// renders caches seconds rendered for the live streams, as the JSON data
// of their interval events. A second's row
// only ever grows, one shard snapshot at a time, so (run, second,
// snapshots) names one content. At a second boundary every stream of a
// run reads the same second; rendering it (decoding three HDR histograms
// and reading their percentiles) was two thirds of the API's CPU with 200
// streams on one run (make soak's profile), done once per stream. With the
// cache it is done, and encoded, once per second and snapshot.
type renders struct {
	now    func() time.Time
	render func(*runs.Interval) (Interval, error) // intervalOut

	mu        sync.Mutex
	m         map[renderKey]rendered
	lastSweep time.Time
}

type renderKey struct {
	run               uuid.UUID
	second, snapshots int
}

type rendered struct {
	data []byte
	at   time.Time
}

func newRenders(now func() time.Time) *renders {
	if now == nil {
		now = time.Now
	}
	return &renders{now: now, render: intervalOut, m: map[renderKey]rendered{}}
}

// interval returns iv of run rendered for the wire and encoded as JSON,
// from the cache when it holds that second with as many snapshots. A nil r
// caches nothing. The bytes returned are shared: callers must not change
// them.
func (r *renders) interval(run uuid.UUID, iv *runs.Interval) ([]byte, error) {
	if r == nil {
		return encodeInterval(intervalOut, iv)
	}
	if data, ok := r.cached(run, iv.Second, iv.Snapshots); ok {
		return data, nil
	}
	data, err := encodeInterval(r.render, iv)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	now := r.now()
	r.m[renderKey{run: run, second: iv.Second, snapshots: iv.Snapshots}] = rendered{data: data, at: now}
	r.sweep(now)
	r.mu.Unlock()
	return data, nil
}

// cached returns the encoded second of run with snapshots when the cache
// holds it.
func (r *renders) cached(run uuid.UUID, second, snapshots int) ([]byte, bool) {
	if r == nil {
		return nil, false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	c, ok := r.m[renderKey{run: run, second: second, snapshots: snapshots}]
	return c.data, ok
}

// encodeInterval renders iv with render and encodes it as JSON.
func encodeInterval(render func(*runs.Interval) (Interval, error), iv *runs.Interval) ([]byte, error) {
	out, err := render(iv)
	if err != nil {
		return nil, err
	}
	data, err := json.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("encode interval event: %w", err)
	}
	return data, nil
}

// sweep drops the entries older than rendersKeep, at most once a second;
// r.mu is held.
func (r *renders) sweep(now time.Time) {
	if now.Sub(r.lastSweep) < time.Second {
		return
	}
	r.lastSweep = now
	for k := range r.m {
		if now.Sub(r.m[k].at) > rendersKeep {
			delete(r.m, k)
		}
	}
}

// size is how many seconds are cached (for tests).
func (r *renders) size() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.m)
}
