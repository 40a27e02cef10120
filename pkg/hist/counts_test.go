package hist

import (
	"slices"
	"testing"
	"time"
)

func TestCountsAtOrBelow(t *testing.T) {
	t.Parallel()
	h := New()
	for _, us := range []int64{100, 100, 900, 1000, 1500, 2500, 40_000} {
		h.RecordMicros(us)
	}
	got := h.CountsAtOrBelow([]int64{50, 100, 1000, 2000, 5000, 50_000})
	if want := []int64{0, 2, 4, 5, 6, 7}; !slices.Equal(got, want) {
		t.Fatalf("counts %v, want %v", got, want)
	}
	// The bucket of a percentile is the first bound at or above it.
	p := h.Percentile(99).Microseconds()
	at := h.CountsAtOrBelow([]int64{p - 100, p})
	if at[0] >= 7 || at[1] != 7 || h.Percentile(99) < 39*time.Millisecond {
		t.Fatalf("p99 %d µs: counts %v around it", p, at)
	}
}
