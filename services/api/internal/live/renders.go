package live

import (
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// rendersKeep is how long a rendered second stays cached.
const rendersKeep = 30 * time.Second

// Renders caches seconds rendered for the live streams, as the JSON data
// of their interval events. A second's row
// only ever grows, one shard snapshot at a time, so (run, second,
// snapshots) names one content. At a second boundary every stream of a
// run reads the same second; rendering it (decoding three HDR histograms
// and reading their percentiles) was two thirds of the API's CPU with 200
// streams on one run (make soak's profile), done once per stream. With the
// cache it is done, and encoded, once per second and snapshot. It is safe
// for concurrent use.
type Renders struct {
	now func() time.Time

	mu        sync.Mutex
	m         map[renderKey]rendered
	lastSweep time.Time
}

type renderKey struct {
	run               uuid.UUID
	second, snapshots int
	// shards is set for a second's shards event rather than its interval.
	shards bool
}

type rendered struct {
	data []byte
	at   time.Time
}

// NewRenders returns an empty cache; now is its clock, time.Now when nil.
func NewRenders(now func() time.Time) *Renders {
	if now == nil {
		now = time.Now
	}
	return &Renders{now: now, m: map[renderKey]rendered{}}
}

// interval returns iv of run encoded by encode (Encoder.Interval), from
// the cache when it holds that second with as many snapshots. A nil r
// caches nothing. The bytes returned are shared: callers must not change
// them.
func (r *Renders) interval(run uuid.UUID, iv *runs.Interval, encode func(*runs.Interval) ([]byte, error)) ([]byte, error) {
	if r == nil {
		return encode(iv)
	}
	if data, ok := r.cached(run, iv.Second, iv.Snapshots); ok {
		return data, nil
	}
	data, err := encode(iv)
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
func (r *Renders) cached(run uuid.UUID, second, snapshots int) ([]byte, bool) {
	if r == nil {
		return nil, false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	c, ok := r.m[renderKey{run: run, second: second, snapshots: snapshots}]
	return c.data, ok
}

// cachedShards returns the encoded shards event of run's second with
// snapshots when the cache holds it.
func (r *Renders) cachedShards(run uuid.UUID, second, snapshots int) ([]byte, bool) {
	if r == nil {
		return nil, false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	c, ok := r.m[renderKey{run: run, second: second, snapshots: snapshots, shards: true}]
	return c.data, ok
}

// putShards caches the encoded shards event of run's second with
// snapshots. A nil r caches nothing.
func (r *Renders) putShards(run uuid.UUID, second, snapshots int, data []byte) {
	if r == nil {
		return
	}
	r.mu.Lock()
	now := r.now()
	r.m[renderKey{run: run, second: second, snapshots: snapshots, shards: true}] = rendered{data: data, at: now}
	r.sweep(now)
	r.mu.Unlock()
}

// sweep drops the entries older than rendersKeep, at most once a second;
// r.mu is held.
func (r *Renders) sweep(now time.Time) {
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
func (r *Renders) size() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.m)
}
