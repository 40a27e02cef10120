package timeline

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestReservoirKeepsFirstItemsThenSamplesUniformly(t *testing.T) {
	r := NewReservoir[int](1000, 7)
	for i := range 500 {
		*r.Slot() = i
	}
	if got := len(r.Items()); got != 500 {
		t.Fatalf("%d items after 500 offered, want all 500", got)
	}
	for i, v := range r.Items() {
		if v != i {
			t.Fatalf("item %d = %d, want %d", i, v, i)
		}
	}
	for i := 500; i < 100_000; i++ {
		if p := r.Slot(); p != nil {
			*p = i
		}
	}
	items := r.Items()
	if len(items) != 1000 || r.Seen() != 100_000 {
		t.Fatalf("%d items of %d seen, want 1000 of 100000", len(items), r.Seen())
	}
	// A uniform sample of 0..99999: a tenth of it in each tenth, mean near 50000.
	var tenths [10]int
	sum := 0
	for _, v := range items {
		tenths[v/10_000]++
		sum += v
	}
	for i, n := range tenths {
		if n < 60 || n > 140 {
			t.Errorf("tenth %d holds %d of 1000 items, want ~100", i, n)
		}
	}
	if mean := float64(sum) / 1000; math.Abs(mean-50_000) > 4000 {
		t.Errorf("mean %.0f, want ~50000", mean)
	}
	r.Reset()
	if r.Seen() != 0 || len(r.Items()) != 0 {
		t.Fatalf("after Reset: %d seen, %d items", r.Seen(), len(r.Items()))
	}
}

func TestReservoirSlotDoesNotAllocate(t *testing.T) {
	r := NewReservoir[[4]int64](100, 1)
	if n := testing.AllocsPerRun(10_000, func() {
		if p := r.Slot(); p != nil {
			p[0] = 1
		}
	}); n != 0 {
		t.Fatalf("%v allocations per Slot, want 0", n)
	}
}

func TestMergeWeighsPartsBySeen(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	a := fill(0, 10_000)
	b := fill(1, 10_000)
	out, seen := Merge([]Part[int]{{Items: a, Seen: 200_000}, {Items: b, Seen: 100_000}}, 10_000, rng)
	if len(out) != 10_000 || seen != 300_000 {
		t.Fatalf("%d items of %d seen, want 10000 of 300000", len(out), seen)
	}
	var n [2]int
	for _, v := range out {
		n[v]++
	}
	if share := float64(n[0]) / 10_000; math.Abs(share-2.0/3) > 0.03 {
		t.Fatalf("part a gave %d of 10000 (%.3f), want ~2/3", n[0], share)
	}
}

func TestMergeSmallPartsGiveEverything(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	out, seen := Merge([]Part[int]{{Items: fill(0, 30), Seen: 30}, {Items: fill(1, 50), Seen: 50}, {}}, 10_000, rng)
	if len(out) != 80 || seen != 80 {
		t.Fatalf("%d items of %d seen, want 80 of 80", len(out), seen)
	}
	// A part whose sample is short of its share gives what it has.
	out, _ = Merge([]Part[int]{{Items: fill(0, 10), Seen: 1000}, {Items: fill(1, 100), Seen: 100}}, 100, rng)
	if len(out) != 100 {
		t.Fatalf("%d items, want 100", len(out))
	}
	var n [2]int
	for _, v := range out {
		n[v]++
	}
	if n[0] != 10 || n[1] != 90 {
		t.Fatalf("parts gave %v, want [10 90]", n)
	}
}

func fill(v, n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = v
	}
	return s
}
