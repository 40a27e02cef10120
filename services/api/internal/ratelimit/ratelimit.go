// Package ratelimit keeps one token bucket per key (a user, a client address)
// so barrage-api can refuse callers that send requests too fast.
//
// A Limiter only answers "may this key proceed now, and if not, when": it
// writes no HTTP responses (the HTTP layer turns a refusal into a 429 problem
// with Retry-After) and shares no state between server replicas. Its memory is
// bounded: idle keys are dropped by a lazy sweep, and at most MaxKeys keys are
// tracked. It runs no goroutines.
package ratelimit

import (
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

const (
	// DefaultIdleTTL is Options.IdleTTL when it is zero.
	DefaultIdleTTL = 10 * time.Minute
	// DefaultMaxKeys is Options.MaxKeys when it is zero.
	DefaultMaxKeys = 100_000
	// sweepEvery is how many Allow calls pass between sweeps of idle keys,
	// so a sweep costs O(1) per call amortized at the default MaxKeys.
	sweepEvery = 1024
	// evictSample is how many keys are inspected to pick one to evict when
	// the limiter is full: an approximation of least recently used that does
	// not cost O(MaxKeys) per new key.
	evictSample = 8
)

// Options configure a Limiter. The zero value is an unlimited Limiter.
type Options struct {
	// Rate is the sustained number of requests per second allowed per key.
	// Zero or less means unlimited: Allow always returns true.
	Rate float64
	// Burst is how many requests a key may make at once after idling: the
	// size of its bucket. Zero or less means max(1, ceil(Rate)).
	Burst int
	// IdleTTL is how long a key may go unused before it is forgotten. Zero or
	// less means DefaultIdleTTL. It is raised to the time an empty bucket
	// takes to refill, so forgetting a key never lets it burst early.
	IdleTTL time.Duration
	// MaxKeys bounds the number of keys tracked. When it is reached a new key
	// displaces the least recently used of a small sample of keys. Zero or
	// less means DefaultMaxKeys.
	MaxKeys int
	// Now is the clock; nil means time.Now. Tests inject a fake one.
	Now func() time.Time
}

// Normalize returns o with the defaults filled in.
func (o Options) Normalize() Options {
	if o.Rate <= 0 || math.IsNaN(o.Rate) {
		o.Rate = 0
	}
	if o.Burst <= 0 {
		o.Burst = max(1, int(math.Min(math.Ceil(o.Rate), math.MaxInt32)))
	}
	if o.IdleTTL <= 0 {
		o.IdleTTL = DefaultIdleTTL
	}
	if o.Rate > 0 {
		o.IdleTTL = max(o.IdleTTL, seconds(float64(o.Burst)/o.Rate))
	}
	if o.MaxKeys <= 0 {
		o.MaxKeys = DefaultMaxKeys
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// Limiter holds a token bucket per key. It is safe for concurrent use.
type Limiter struct {
	opts Options

	mu    sync.Mutex
	keys  map[string]*bucket
	calls uint64 // Allow calls since the last sweep
}

// bucket is one key's tokens and when the key was last seen.
type bucket struct {
	tokens *rate.Limiter
	last   time.Time
}

// New returns a Limiter configured by o (see Options.Normalize).
func New(o Options) *Limiter {
	return &Limiter{opts: o.Normalize(), keys: make(map[string]*bucket)}
}

// Allow takes a token from key's bucket. If there is none it returns false
// and how long until there will be one; a refusal takes no token.
func (l *Limiter) Allow(key string) (ok bool, retryAfter time.Duration) {
	if l.opts.Rate <= 0 {
		return true, 0
	}
	now := l.opts.Now()
	l.mu.Lock()
	defer l.mu.Unlock()

	l.calls++
	if l.calls >= sweepEvery {
		l.calls = 0
		l.sweep(now)
	}
	b, found := l.keys[key]
	if !found {
		if len(l.keys) >= l.opts.MaxKeys {
			l.evictOne()
		}
		b = &bucket{tokens: rate.NewLimiter(rate.Limit(l.opts.Rate), l.opts.Burst)}
		l.keys[key] = b
	}
	b.last = now
	if b.tokens.AllowN(now, 1) {
		return true, 0
	}
	missing := 1 - b.tokens.TokensAt(now)
	return false, max(seconds(missing/l.opts.Rate), time.Nanosecond)
}

// Empty reports whether key's bucket has no token now, and how long until
// it will have one, without taking any: a caller that spends tokens only
// on failures (Allow after the fact) asks it before trying.
func (l *Limiter) Empty(key string) (empty bool, retryAfter time.Duration) {
	if l.opts.Rate <= 0 {
		return false, 0
	}
	now := l.opts.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	b, found := l.keys[key]
	if !found {
		return false, 0
	}
	tokens := b.tokens.TokensAt(now)
	if tokens >= 1 {
		return false, 0
	}
	return true, max(seconds((1-tokens)/l.opts.Rate), time.Nanosecond)
}

// Len returns the number of keys tracked.
func (l *Limiter) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.keys)
}

// sweep forgets the keys idle for IdleTTL or longer. l.mu must be held.
func (l *Limiter) sweep(now time.Time) {
	for k, b := range l.keys {
		if now.Sub(b.last) >= l.opts.IdleTTL {
			delete(l.keys, k)
		}
	}
}

// evictOne forgets the least recently used of up to evictSample keys, taken
// from the map's randomized iteration order. l.mu must be held.
func (l *Limiter) evictOne() {
	var (
		victim string
		oldest time.Time
		seen   int
	)
	for k, b := range l.keys {
		if seen == 0 || b.last.Before(oldest) {
			victim, oldest = k, b.last
		}
		seen++
		if seen == evictSample {
			break
		}
	}
	delete(l.keys, victim)
}

// seconds converts s seconds to a Duration, saturating instead of
// overflowing.
func seconds(s float64) time.Duration {
	d := s * float64(time.Second)
	if d >= math.MaxInt64 {
		return math.MaxInt64
	}
	return time.Duration(math.Ceil(d))
}
