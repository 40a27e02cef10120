// Package procs sizes the agent's GOMAXPROCS to the CPU its load needs.
//
// A load generator spends most of its time in write, read and epoll_wait on
// sockets and waking up for timers. With several Ps, every goroutine that a
// response or a timer makes runnable wakes an idle P's thread to run or steal
// it (futex wake-ups, context switches, migrations between CPUs), and that
// scheduling costs more CPU than the requests themselves at moderate rates.
// One P avoids it: on a 2-core VM, 5,000 qps over HTTP/1.1 cost 21 µs of CPU
// per request with GOMAXPROCS=1 against 26 µs with 2 (bench/results). So the
// Governor starts small and doubles the Ps only when the process uses most of
// them, halving again after a sustained quiet spell.
//
// It changes a process-wide setting, so only the barrage-agent binary starts
// it (load and serve), never a library or a test. An explicit GOMAXPROCS in
// the environment turns it off.
package procs

import (
	"context"
	"log/slog"
	"math"
	"os"
	"runtime"
	"time"
)

const (
	// window is how often the CPU use is sampled and the Ps reconsidered.
	window = 200 * time.Millisecond
	// growAt is the share of the current Ps in use that doubles them.
	growAt = 0.75
	// shrinkAt is the share of the current Ps in use below which a window
	// counts as quiet; shrinkAfter quiet windows in a row halve the Ps.
	shrinkAt    = 0.3
	shrinkAfter = 25
	// cpuPerRequest is the CPU one paced request costs, used only to choose
	// the starting Ps of a run whose rate is known (InitialFor).
	cpuPerRequest = 50 * time.Microsecond
)

// Governor adjusts GOMAXPROCS between 1 and Max from the process's CPU use.
type Governor struct {
	// Max is the most Ps it sets: Go's default GOMAXPROCS (CPUs or the
	// cgroup's CPU limit).
	Max int
	// Initial is the Ps it starts with (clamped to 1..Max).
	Initial int
	// CPU returns the CPU time the process has used so far.
	CPU func() (time.Duration, bool)
	// Set sets GOMAXPROCS (runtime.GOMAXPROCS).
	Set func(int) int
	// Logger gets a debug line at every change; nil discards them.
	Logger *slog.Logger
}

// Start runs a Governor for this process, starting at initial Ps, until ctx
// is done or the returned function is called; both restore the default Ps.
// It does nothing when GOMAXPROCS is set in the environment, when the
// process may use only one CPU, or when its CPU time cannot be read.
func Start(ctx context.Context, initial int, logger *slog.Logger) (stop func()) {
	maxProcs := runtime.GOMAXPROCS(0)
	if _, set := os.LookupEnv("GOMAXPROCS"); set || maxProcs <= 1 {
		return func() {}
	}
	if _, ok := ProcessCPU(); !ok {
		return func() {}
	}
	g := &Governor{Max: maxProcs, Initial: initial, CPU: ProcessCPU, Set: runtime.GOMAXPROCS, Logger: logger}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		g.Run(ctx, time.NewTicker(window).C)
	}()
	return func() {
		cancel()
		<-done
	}
}

// InitialFor is the Ps to start a run at qps with (0 = as fast as possible:
// one, grown as the load needs): enough for cpuPerRequest at that rate.
func InitialFor(qps float64) int {
	need := qps * cpuPerRequest.Seconds() / growAt
	return max(1, int(math.Ceil(need-1e-9))) // 1e-9: 15,000 qps is exactly one P, not two

}

// Run sets the initial Ps, then reconsiders them at every tick until ctx is
// done, and sets Max back before it returns.
func (g *Governor) Run(ctx context.Context, tick <-chan time.Time) {
	p := min(max(g.Initial, 1), g.Max)
	g.Set(p)
	defer g.Set(g.Max)
	last, _ := g.CPU()
	lastAt := time.Now()
	quiet := 0
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick:
			cpu, ok := g.CPU()
			wall := now.Sub(lastAt)
			if !ok || wall <= 0 {
				continue
			}
			used := float64(cpu-last) / float64(wall)
			last, lastAt = cpu, now
			next, q := Step(p, g.Max, used, quiet)
			quiet = q
			if next != p {
				g.Set(next)
				if g.Logger != nil {
					g.Logger.Debug("GOMAXPROCS changed", slog.Int("from", p), slog.Int("to", next), slog.Float64("cpus_used", used))
				}
				p = next
			}
		}
	}
}

// Step decides the Ps after a window in which the process used `used` CPUs
// with p Ps, given how many quiet windows came before it; it returns the new
// Ps and quiet count. Busy (at least growAt of p) doubles p up to maxProcs;
// shrinkAfter quiet windows in a row (below shrinkAt of p) halve it.
func Step(p, maxProcs int, used float64, quiet int) (next, quietAfter int) {
	switch {
	case used >= growAt*float64(p):
		return min(2*p, maxProcs), 0
	case p > 1 && used < shrinkAt*float64(p):
		if quiet+1 >= shrinkAfter {
			return max(1, p/2), 0
		}
		return p, quiet + 1
	default:
		return p, 0
	}
}
