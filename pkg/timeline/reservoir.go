// Package timeline keeps bounded uniform samples of a run's requests: a
// reservoir that a recorder fills one request at a time without allocating
// (Vitter's algorithm R, one random draw per request), and the merge of
// several such samples into one, each weighted by the number of requests it
// was drawn from.
package timeline

import (
	"math/bits"
	"math/rand/v2"
)

// DefaultSize is the number of requests a timeline keeps, per shard and per run.
const DefaultSize = 10_000

// Reservoir is a uniform sample of at most its size of the items offered to
// it. Its storage is allocated once; it is not safe for concurrent use.
type Reservoir[T any] struct {
	items []T
	seen  uint64
	rng   rand.PCG
}

// NewReservoir returns an empty reservoir of size items (at least 1) whose
// draws are seeded with seed.
func NewReservoir[T any](size int, seed uint64) *Reservoir[T] {
	r := &Reservoir[T]{items: make([]T, max(size, 1))}
	r.rng.Seed(seed, seed^0x9e3779b97f4a7c15)
	return r
}

// Slot counts one more item and returns where it is to be stored, or nil
// when the sample does not keep it: the first size items are all kept,
// item n > size replaces a random kept one with probability size/n.
func (r *Reservoir[T]) Slot() *T {
	r.seen++
	if r.seen <= uint64(len(r.items)) {
		return &r.items[r.seen-1]
	}
	// Lemire's multiply-shift: a draw in [0, seen) from one 64-bit number
	// (its bias, below seen/2^64, is negligible here).
	j, _ := bits.Mul64(r.rng.Uint64(), r.seen)
	if j < uint64(len(r.items)) {
		return &r.items[j]
	}
	return nil
}

// Items returns the sample, in no particular order; it is valid until the
// next Slot or Reset.
func (r *Reservoir[T]) Items() []T {
	return r.items[:min(r.seen, uint64(len(r.items)))]
}

// Seen is the number of items offered since the last Reset.
func (r *Reservoir[T]) Seen() uint64 { return r.seen }

// Reset empties the reservoir, keeping its storage.
func (r *Reservoir[T]) Reset() { r.seen = 0 }
