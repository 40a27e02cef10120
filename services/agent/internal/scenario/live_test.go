package scenario_test

import (
	"sync"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/services/agent/internal/scenario"
)

// TestLiveDrainsAddUpToTheRun drains a running scenario every 50 ms: the
// intervals and what Run's result kept add up to every iteration, step
// by step.
func TestLiveDrainsAddUpToTheRun(t *testing.T) {
	echo := startEcho(t)
	live := &scenario.Live{}
	if live.Drain() != nil {
		t.Fatal("a Live drained before Run has something")
	}
	total := &scenario.Interval{}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				if iv := live.Drain(); iv != nil {
					if err := total.Add(iv); err != nil {
						t.Error(err)
					}
				}
			}
		}
	})
	res, err := scenario.Run(runCtx(t), scenario.Options{
		Plan: mustPlan(t, loginFlow, echo), IterationsPerSecond: 100, MaxIterations: 40, Concurrency: 8, Live: live,
	})
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	// The ticker may have taken the rest already; after that, nothing.
	if rest := live.Drain(); rest != nil {
		if err := total.Add(rest); err != nil {
			t.Fatal(err)
		}
	}
	if live.Drain() != nil {
		t.Fatal("a second Drain after the run has figures")
	}
	if res.Started != 0 || res.Steps[0].Count != 0 {
		t.Fatalf("Run's result with a Live kept %d iterations, %d requests", res.Started, res.Steps[0].Count)
	}
	if got := total.Started + res.Started; got != 40 {
		t.Fatalf("started %d, want 40", got)
	}
	if got := total.Failed + res.Failed; got != 40 { // the slow step's check fails every iteration
		t.Fatalf("failed %d, want 40", got)
	}
	want := []struct{ count, errors, skipped int64 }{{40, 0, 0}, {40, 0, 0}, {40, 40, 0}, {0, 0, 40}}
	for i, w := range want {
		s, r := total.Steps[i], res.Steps[i]
		if s.Count+r.Count != w.count || s.Errors+r.Errors != w.errors || s.Skipped+r.Skipped != w.skipped {
			t.Errorf("step %d: count %d errors %d skipped %d, want %+v", i, s.Count+r.Count, s.Errors+r.Errors, s.Skipped+r.Skipped, w)
		}
		if got := s.Response.Count() + r.Response.Count; got != w.count {
			t.Errorf("step %d: %d response times, want %d", i, got, w.count)
		}
	}
	if got := total.Steps[2].FailedChecks["created"]; got+res.Steps[2].FailedChecks["created"] != 40 {
		t.Errorf("failed check created: %d drained + %d", got, res.Steps[2].FailedChecks["created"])
	}
	if got := total.Iteration.Count() + res.Iteration.Count; got != 40 {
		t.Errorf("%d iteration durations, want 40", got)
	}
}
