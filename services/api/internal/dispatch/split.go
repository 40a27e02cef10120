package dispatch

import (
	"github.com/barrage-dev/barrage/pkg/spec"
)

// share is one shard's part of a run.
type share struct {
	// Spec is the run's spec with this shard's connections, rate and count.
	Spec        spec.Spec
	QPS         float64
	Connections int
}

// split divides a run across at most agents shards. Connections and a call
// count are integers: each shard gets the quotient and the first ones one
// more, so they add up exactly. No shard gets zero connections, so a run
// with fewer connections than agents uses fewer shards. The target rate
// (and a ramp's ends, and every stage's rate) are split in proportion to
// connections, so every connection carries the same rate. Stages keep their
// lengths: every shard starts at the run's one start_at, so all of them
// change stage at the same instants.
func split(s spec.Spec, agents int) []share {
	n := min(agents, s.Connections)
	if n < 1 {
		n = 1
	}
	if s.Count > 0 && int64(n) > s.Count {
		n = int(s.Count)
	}
	out := make([]share, n)
	for i := range out {
		conns := spread(int64(s.Connections), n, i)
		frac := float64(conns) / float64(s.Connections)
		sh := s.Clone()
		sh.Connections = int(conns)
		sh.QPS = s.QPS * frac
		for j := range sh.Requests {
			sh.Requests[j].QPS *= frac // own rates split like the run's
		}
		if s.Ramp != nil {
			sh.Ramp.From = s.Ramp.From * frac
			sh.Ramp.To = s.Ramp.To * frac
		}
		for k := range sh.Stages {
			sh.Stages[k].QPS = s.Stages[k].QPS * frac
		}
		if s.Count > 0 {
			sh.Count = spread(s.Count, n, i)
		}
		sh.Agents = nil
		out[i] = share{Spec: sh, QPS: sh.QPS, Connections: sh.Connections}
	}
	return out
}

// spread is part i of total divided into n parts that differ by at most one.
func spread(total int64, n, i int) int64 {
	q, r := total/int64(n), total%int64(n)
	if int64(i) < r {
		return q + 1
	}
	return q
}
