package live

import (
	"testing"

	"github.com/google/uuid"
)

func TestSlotsBoundCallersAndRuns(t *testing.T) {
	t.Parallel()
	s := NewSlots(Limits{PerCaller: 2, PerRun: 3})
	a, b := uuid.New(), uuid.New()
	take := func(caller string, run uuid.UUID, want bool) func() {
		t.Helper()
		release, ok := s.Take(caller, run)
		if ok != want {
			t.Fatalf("Take(%s, %s) = %v, want %v", caller, run, ok, want)
		}
		return release
	}
	r1 := take("user:1", a, true)
	take("user:1", b, true)
	take("user:1", a, false) // the caller's bound
	take("user:2", a, true)
	take("user:3", a, true)
	take("user:4", a, false) // the run's bound: 3 open
	r1()
	r1() // a release counts once
	take("user:4", a, true)
	take("user:5", a, false) // run a is full again
	take("user:1", uuid.New(), true)
	unbounded := NewSlots(Limits{PerCaller: -1, PerRun: -1})
	for range 1000 {
		if _, ok := unbounded.Take("c", a); !ok {
			t.Fatal("a negative bound refused a stream")
		}
	}
}
