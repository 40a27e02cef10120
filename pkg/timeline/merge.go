package timeline

import "math/rand/v2"

// Part is one uniform sample to merge: Items drawn from Seen items.
type Part[T any] struct {
	Items []T
	Seen  uint64
}

// Merge draws one uniform sample of at most size items from the union of
// the populations parts were drawn from: how many items each part gives is
// drawn as size items from all the populations without replacement
// (multivariate hypergeometric), so a part drawn from twice the items gives
// twice as many on average; those items are then a random subset of the
// part's. It returns the sample, in no particular order, and the total seen.
// A part with fewer items than its share gives them all.
func Merge[T any](parts []Part[T], size int, rng *rand.Rand) ([]T, uint64) {
	take, seen := shares(parts, size, rng)
	total := 0
	for _, n := range take {
		total += n
	}
	out := make([]T, 0, total)
	for i, p := range parts {
		out = appendSubset(out, p.Items, take[i], rng)
	}
	return out, seen
}

// shares draws how many items each part gives, and returns the total seen.
func shares[T any](parts []Part[T], size int, rng *rand.Rand) ([]int, uint64) {
	left := make([]uint64, len(parts))
	var seen, rest uint64
	for i, p := range parts {
		left[i] = p.Seen
		seen += p.Seen
	}
	rest = seen
	take := make([]int, len(parts))
	for range size {
		if rest == 0 {
			break
		}
		j := rng.Uint64N(rest)
		for i := range left {
			if j < left[i] {
				take[i]++
				left[i]--
				rest--
				if take[i] >= len(parts[i].Items) { // the part has no more to give
					rest -= left[i]
					left[i] = 0
				}
				break
			}
			j -= left[i]
		}
	}
	return take, seen
}

// appendSubset appends n random items of items (all when n ≥ len(items)).
func appendSubset[T any](out, items []T, n int, rng *rand.Rand) []T {
	if n >= len(items) {
		return append(out, items...)
	}
	idx := make([]int, len(items))
	for i := range idx {
		idx[i] = i
	}
	for i := range n { // partial Fisher-Yates
		j := i + rng.IntN(len(idx)-i)
		idx[i], idx[j] = idx[j], idx[i]
		out = append(out, items[idx[i]])
	}
	return out
}
