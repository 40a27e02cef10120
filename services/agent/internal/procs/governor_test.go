package procs

import (
	"context"
	"runtime"
	"slices"
	"testing"
	"time"
)

func TestStep(t *testing.T) {
	cases := []struct {
		name             string
		p, maxProcs      int
		used             float64
		quiet            int
		wantP, wantQuiet int
	}{
		{"busy one P doubles", 1, 8, 0.9, 0, 2, 0},
		{"busy doubles up to max", 4, 6, 3.5, 0, 6, 0},
		{"busy at max stays", 2, 2, 2.0, 3, 2, 0},
		{"just under growAt stays", 2, 8, 1.49, 7, 2, 0},
		{"at growAt doubles", 2, 8, 1.5, 0, 4, 0},
		{"quiet counts", 4, 8, 1.0, 3, 4, 4},
		{"quiet long enough halves", 4, 8, 1.0, shrinkAfter - 1, 2, 0},
		{"quiet one P stays", 1, 8, 0.01, shrinkAfter * 2, 1, 0},
		{"middle resets quiet", 4, 8, 2.0, 10, 4, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, q := Step(c.p, c.maxProcs, c.used, c.quiet)
			if p != c.wantP || q != c.wantQuiet {
				t.Fatalf("Step(%d, %d, %v, %d) = %d, %d; want %d, %d", c.p, c.maxProcs, c.used, c.quiet, p, q, c.wantP, c.wantQuiet)
			}
		})
	}
}

// TestRunFollowsTheLoad feeds the governor CPU readings window by window and
// checks every GOMAXPROCS it sets: start, growth under load, the halving after
// a quiet spell, and Max restored at the end.
func TestRunFollowsTheLoad(t *testing.T) {
	// CPUs used in each window: the first tick measures from Run's own start
	// (a wall time slightly off a second), so it carries no CPU.
	windows := []float64{0, 0.9, 1.8, 3.5, 7.9} // busy 1 P: 2; busy 2: 4; busy 4: 8; at Max: stays
	for range shrinkAfter {
		windows = append(windows, 0.5) // quiet for 8 Ps: halved after shrinkAfter windows
	}
	windows = append(windows, 2.0) // 4 Ps, half used: stays
	readings := []time.Duration{0} // Run's baseline reading
	for _, w := range windows {
		readings = append(readings, readings[len(readings)-1]+time.Duration(w*float64(time.Second)))
	}
	readings = append(readings, readings[len(readings)-1]) // the closing tick: a quiet window
	calls := 0
	var set []int
	g := &Governor{
		Max: 8, Initial: 1,
		CPU: func() (time.Duration, bool) { calls++; return readings[calls-1], true },
		Set: func(n int) int { set = append(set, n); return 0 },
	}
	tick := make(chan time.Time)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		g.Run(ctx, tick)
	}()
	at := time.Now()
	for range windows {
		at = at.Add(time.Second)
		tick <- at
	}
	tick <- at.Add(time.Second) // taken only once the last window was handled
	cancel()
	<-done
	want := []int{1, 2, 4, 8, 4, 8}
	if !slices.Equal(set, want) {
		t.Fatalf("GOMAXPROCS set to %v, want %v", set, want)
	}
}

func TestStartRespectsExplicitGOMAXPROCS(t *testing.T) {
	t.Setenv("GOMAXPROCS", "3")
	before := runtime.GOMAXPROCS(0)
	stop := Start(t.Context(), 1, nil)
	defer stop()
	if got := runtime.GOMAXPROCS(0); got != before {
		t.Fatalf("GOMAXPROCS = %d with GOMAXPROCS set in the environment, want it left at %d", got, before)
	}
}

func TestInitialFor(t *testing.T) {
	for _, c := range []struct {
		qps  float64
		want int
	}{{0, 1}, {1000, 1}, {15000, 1}, {15001, 2}, {40000, 3}} {
		if got := InitialFor(c.qps); got != c.want {
			t.Errorf("InitialFor(%v) = %d, want %d", c.qps, got, c.want)
		}
	}
}
