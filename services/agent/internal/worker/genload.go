package worker

import (
	"time"

	"github.com/barrage-dev/barrage/pkg/spec"
	barragev1 "github.com/barrage-dev/barrage/proto/barrage/v1"
	"github.com/barrage-dev/barrage/services/agent/internal/engine"
	"github.com/barrage-dev/barrage/services/agent/internal/procs"
)

// genLoad measures how hard the agent works while one shard runs, for
// its interval snapshots: the process's CPU use since the shard's
// previous snapshot, the shard's send lag and the send interval its pacing
// asks for. From them the API tells whether the agent, rather than the
// target, was the bottleneck (docs/observability.md, "Generator limited").
// It is used by the shard's sink only.
type genLoad struct {
	// cores is what the agent may use (Config.Cores).
	cores int
	spec  spec.Spec
	// startAt is the shard's start, from which its target rate is read.
	startAt time.Time
	// at and cpu are the previous reading of the process's CPU time.
	at  time.Time
	cpu time.Duration
}

// newGenLoad starts measuring for a shard of sp that starts at startAt.
func newGenLoad(cores int, sp spec.Spec, startAt, now time.Time) *genLoad {
	g := &genLoad{cores: cores, spec: sp, startAt: startAt}
	g.cpu, _ = procs.ProcessCPU()
	g.at = now
	return g
}

// fill sets m's generator fields for the interval snapshot snap, measured
// at now. The final snapshot (the whole shard) carries none.
func (g *genLoad) fill(m *barragev1.Snapshot, snap *engine.Snapshot, now time.Time) {
	if snap.Final {
		return
	}
	m.CpuUsed, m.CpuCores = g.cpuUsed(now), float64(g.cores)
	if snap.Lag != nil && snap.Lag.Count() > 0 {
		m.LagP99Us = uint64(max(snap.Lag.Percentile(99).Microseconds(), 0))
	}
	m.SendIntervalUs = uint64(max(g.sendInterval(snap.Start, snap.End).Microseconds(), 0))
}

// cpuUsed is the process's CPU time since the previous call divided by
// the wall time, in cores; 0 where the CPU time cannot be read.
func (g *genLoad) cpuUsed(now time.Time) float64 {
	cpu, ok := procs.ProcessCPU()
	if !ok {
		return 0
	}
	prevAt, prevCPU := g.at, g.cpu
	g.at, g.cpu = now, cpu
	wall := now.Sub(prevAt)
	if wall <= 0 {
		return 0
	}
	return float64(cpu-prevCPU) / float64(wall)
}

// sendInterval is the time between two sends on one connection as the
// shard paces them in [start, end): its connections over its target rate
// at the interval's middle; 0 for a closed loop or no rate.
func (g *genLoad) sendInterval(start, end time.Time) time.Duration {
	if g.spec.Pacing == spec.PacingClosed {
		return 0
	}
	mid := start.Add(end.Sub(start) / 2)
	qps := g.spec.TargetQPSAt(mid.Sub(g.startAt))
	if qps <= 0 {
		return 0
	}
	return time.Duration(float64(max(g.spec.Connections, 1)) / qps * float64(time.Second))
}
