package ratelimit

import (
	"math"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeClock is a clock that moves only when told to.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// mustAllow fails unless l allows key.
func mustAllow(tb testing.TB, l *Limiter, key string) {
	tb.Helper()
	if ok, wait := l.Allow(key); !ok {
		tb.Fatalf("Allow(%q) refused, retry after %v; want allowed", key, wait)
	}
}

// mustRefuse fails unless l refuses key with retryAfter want.
func mustRefuse(tb testing.TB, l *Limiter, key string, want time.Duration) {
	tb.Helper()
	if ok, wait := l.Allow(key); ok || wait != want {
		tb.Fatalf("Allow(%q) = %v, %v; want false, %v", key, ok, wait, want)
	}
}

func TestAllowBurstThenRefuse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		rate      float64
		burst     int
		wantBurst int
		wantRetry time.Duration
	}{
		{name: "one per second, burst 3", rate: 1, burst: 3, wantBurst: 3, wantRetry: time.Second},
		{name: "ten per second, burst 5", rate: 10, burst: 5, wantBurst: 5, wantRetry: 100 * time.Millisecond},
		{name: "one every two seconds", rate: 0.5, burst: 1, wantBurst: 1, wantRetry: 2 * time.Second},
		{name: "default burst is one second of rate", rate: 4, burst: 0, wantBurst: 4, wantRetry: 250 * time.Millisecond},
		{name: "default burst is at least one", rate: 0.1, burst: -1, wantBurst: 1, wantRetry: 10 * time.Second},
		{name: "wait saturates", rate: 1e-300, burst: 1, wantBurst: 1, wantRetry: math.MaxInt64},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			l := New(Options{Rate: tt.rate, Burst: tt.burst, Now: newFakeClock().Now})
			for range tt.wantBurst {
				mustAllow(t, l, "k")
			}
			mustRefuse(t, l, "k", tt.wantRetry)
			mustRefuse(t, l, "k", tt.wantRetry) // a refusal takes no token
		})
	}
}

func TestAllowRefillsWithTime(t *testing.T) {
	t.Parallel()
	type step struct {
		advance   time.Duration
		wantOK    bool
		wantRetry time.Duration
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{name: "partial refill shortens the wait", steps: []step{
			{advance: 0, wantOK: false, wantRetry: 500 * time.Millisecond},
			{advance: 200 * time.Millisecond, wantOK: false, wantRetry: 300 * time.Millisecond},
			{advance: 300 * time.Millisecond, wantOK: true},
			{advance: 0, wantOK: false, wantRetry: 500 * time.Millisecond},
		}},
		{name: "a long idle refills to burst, not beyond", steps: []step{
			{advance: time.Hour, wantOK: true},
			{advance: 0, wantOK: true},
			{advance: 0, wantOK: false, wantRetry: 500 * time.Millisecond},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			clock := newFakeClock()
			l := New(Options{Rate: 2, Burst: 2, Now: clock.Now})
			mustAllow(t, l, "k")
			mustAllow(t, l, "k")
			for i, s := range tt.steps {
				clock.Advance(s.advance)
				if ok, wait := l.Allow("k"); ok != s.wantOK || wait != s.wantRetry {
					t.Fatalf("step %d: Allow = %v, %v; want %v, %v", i, ok, wait, s.wantOK, s.wantRetry)
				}
			}
		})
	}
}

func TestAllowKeysAreIndependent(t *testing.T) {
	t.Parallel()
	l := New(Options{Rate: 1, Burst: 2, Now: newFakeClock().Now})
	mustAllow(t, l, "user:a")
	mustAllow(t, l, "user:a")
	mustRefuse(t, l, "user:a", time.Second)
	mustAllow(t, l, "user:b")
	mustAllow(t, l, "ip:192.0.2.1")
	mustAllow(t, l, "user:b")
	mustRefuse(t, l, "user:b", time.Second)
	if got := l.Len(); got != 3 {
		t.Errorf("Len = %d, want 3", got)
	}
}

func TestAllowUnlimited(t *testing.T) {
	t.Parallel()
	for _, r := range []float64{0, -1, math.NaN()} {
		l := New(Options{Rate: r, Burst: 1})
		for i := range 10_000 {
			if ok, wait := l.Allow("k" + strconv.Itoa(i%3)); !ok || wait != 0 {
				t.Fatalf("rate %v: Allow = %v, %v; want true, 0", r, ok, wait)
			}
		}
		if got := l.Len(); got != 0 {
			t.Errorf("rate %v: Len = %d, want 0 (nothing tracked)", r, got)
		}
	}
}

func TestMaxKeysBoundsMemory(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		maxKeys int
		keys    int
		wantLen int
	}{
		{name: "below the bound", maxKeys: 10, keys: 7, wantLen: 7},
		{name: "at the bound", maxKeys: 10, keys: 10, wantLen: 10},
		{name: "far beyond the bound", maxKeys: 10, keys: 5000, wantLen: 10},
		{name: "bound of one", maxKeys: 1, keys: 100, wantLen: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			clock := newFakeClock()
			l := New(Options{Rate: 1, Burst: 1, MaxKeys: tt.maxKeys, Now: clock.Now})
			for i := range tt.keys {
				clock.Advance(time.Millisecond)
				mustAllow(t, l, "k"+strconv.Itoa(i)) // every new key gets a full bucket
			}
			if got := l.Len(); got != tt.wantLen {
				t.Errorf("Len = %d, want %d", got, tt.wantLen)
			}
		})
	}
}

func TestEvictionPrefersLeastRecentlyUsed(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	l := New(Options{Rate: 1, Burst: 5, MaxKeys: evictSample, Now: clock.Now}) // small: the sample is every key
	for i := range evictSample {
		clock.Advance(time.Second)
		mustAllow(t, l, "k"+strconv.Itoa(i))
	}
	clock.Advance(time.Second)
	mustAllow(t, l, "k0") // k1 is now the least recently used
	mustAllow(t, l, "new")
	l.mu.Lock()
	_, k0 := l.keys["k0"]
	_, k1 := l.keys["k1"]
	l.mu.Unlock()
	if !k0 || k1 {
		t.Errorf("after eviction k0 tracked = %v, k1 tracked = %v; want true, false", k0, k1)
	}
}

func TestIdleKeysAreSwept(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	l := New(Options{Rate: 1, Burst: 1, IdleTTL: time.Minute, Now: clock.Now})
	for i := range 50 {
		mustAllow(t, l, "idle"+strconv.Itoa(i))
	}
	clock.Advance(30 * time.Second)
	mustAllow(t, l, "recent")
	clock.Advance(30 * time.Second) // the idle keys reach IdleTTL, "recent" does not
	for i := range sweepEvery {
		l.Allow("busy") // refused after the first: the sweep runs anyway
		if i == 0 && l.Len() != 52 {
			t.Fatalf("Len before the sweep = %d, want 52", l.Len())
		}
	}
	if got := l.Len(); got != 2 {
		t.Errorf("Len after the sweep = %d, want 2 (recent, busy)", got)
	}
}

func TestConcurrentAllowGrantsExactlyBurst(t *testing.T) {
	t.Parallel()
	const keys, burst, workers, rounds = 20, 5, 16, 10
	l := New(Options{Rate: 1, Burst: burst, Now: newFakeClock().Now}) // the clock never moves: no refill
	var allowed atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for range rounds {
				for k := range keys {
					if ok, _ := l.Allow("k" + strconv.Itoa(k)); ok {
						allowed.Add(1)
					}
				}
			}
		})
	}
	wg.Wait()
	if got := allowed.Load(); got != keys*burst {
		t.Errorf("allowed %d requests, want %d", got, keys*burst)
	}
}

func TestNormalize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   Options
		want Options // Now is checked separately
	}{
		{name: "zero value is unlimited with defaults", in: Options{},
			want: Options{Rate: 0, Burst: 1, IdleTTL: DefaultIdleTTL, MaxKeys: DefaultMaxKeys}},
		{name: "burst defaults to one second of rate", in: Options{Rate: 2.5},
			want: Options{Rate: 2.5, Burst: 3, IdleTTL: DefaultIdleTTL, MaxKeys: DefaultMaxKeys}},
		{name: "explicit values are kept", in: Options{Rate: 100, Burst: 7, IdleTTL: time.Hour, MaxKeys: 9},
			want: Options{Rate: 100, Burst: 7, IdleTTL: time.Hour, MaxKeys: 9}},
		{name: "idle TTL covers a full refill", in: Options{Rate: 0.01, Burst: 10, IdleTTL: time.Minute},
			want: Options{Rate: 0.01, Burst: 10, IdleTTL: 1000 * time.Second, MaxKeys: DefaultMaxKeys}},
		{name: "negatives mean defaults", in: Options{Rate: -3, Burst: -1, IdleTTL: -time.Second, MaxKeys: -5},
			want: Options{Rate: 0, Burst: 1, IdleTTL: DefaultIdleTTL, MaxKeys: DefaultMaxKeys}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := tt.in.Normalize()
			if got.Now == nil {
				t.Error("Now is nil, want time.Now")
			}
			if got.Rate != tt.want.Rate || got.Burst != tt.want.Burst || got.IdleTTL != tt.want.IdleTTL ||
				got.MaxKeys != tt.want.MaxKeys {
				t.Errorf("Normalize() = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestEmptyTakesNothing: Empty reports a spent bucket and its wait, and
// never takes a token, so a caller can ask it before every try and spend
// only on failures.
func TestEmptyTakesNothing(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	l := New(Options{Rate: 1, Burst: 2, Now: clock.Now})
	if empty, _ := l.Empty("k"); empty {
		t.Fatal("an unknown key is empty")
	}
	for range 5 {
		if empty, _ := l.Empty("k"); empty {
			t.Fatal("Empty took a token")
		}
	}
	mustAllow(t, l, "k")
	mustAllow(t, l, "k")
	if empty, wait := l.Empty("k"); !empty || wait != time.Second {
		t.Fatalf("Empty after the burst = %v, %v; want true, 1s", empty, wait)
	}
	clock.Advance(time.Second)
	if empty, _ := l.Empty("k"); empty {
		t.Fatal("still empty after refilling one token")
	}
	if empty, _ := New(Options{}).Empty("k"); empty {
		t.Fatal("an unlimited limiter is empty")
	}
}
