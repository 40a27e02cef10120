package dispatch

import (
	"github.com/barrage-dev/barrage/pkg/scenario"
	"github.com/barrage-dev/barrage/pkg/spec"
)

// split divides a run across at most agents shards and returns each
// shard's spec: the run's spec with the shard's connections, rate and
// count. That spec is the one carrier of a shard's rate and connections:
// the assignment sends it and the agent runs it as given, and the plan's
// record of each shard (runs.Shard) is copied from it.
//
// Connections and a call count are integers: each shard gets the quotient
// and the first ones one more, so they add up exactly. No shard gets zero
// connections, so a run with fewer connections than agents uses fewer
// shards. The target rate (and a ramp's ends, every stage's rate and every
// request's own rate) are split in proportion to connections, so every
// connection carries the same rate. Stages keep their lengths: every shard
// starts at the run's one start_at, so all of them change stage at the
// same instants. A scenario's split data file gives each shard its own rows
// (scenario.SplitData), so a run has no more shards than the file has rows.
func split(s spec.Spec, agents int) []spec.Spec {
	n := min(agents, s.Connections)
	if n < 1 {
		n = 1
	}
	if s.Count > 0 && int64(n) > s.Count {
		n = int(s.Count)
	}
	if s.Scenario != nil && s.Scenario.Data != nil && s.Scenario.Data.Split {
		n = max(1, min(n, scenario.DataRows(s.Scenario.Data))) // a row or more for every shard
	}
	out := make([]spec.Spec, n)
	var data []*scenario.Data
	if s.Scenario != nil {
		data = splitData(s.Scenario.Data, n)
	}
	for i := range out {
		conns := spread(int64(s.Connections), n, i)
		frac := float64(conns) / float64(s.Connections)
		sh := s.Clone()
		sh.Connections = int(conns)
		sh.QPS = s.QPS * frac
		sh.IterationsPerSecond = s.IterationsPerSecond * frac // a scenario run's rate
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
		if sh.Scenario != nil {
			sh.Scenario.Data = data[i]
		}
		sh.Agents = nil
		out[i] = sh
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

// splitData is each of n shards' part of a scenario's data file: its own
// rows when the file is split, the whole file when it is shared. The spec
// was validated at submit, so the file parses and has a row for every
// shard; a file that somehow does not is sent whole, and the agent's
// compile of it fails the shard with the file's own error.
func splitData(d *scenario.Data, n int) []*scenario.Data {
	parts, err := scenario.SplitData(d, n)
	if err != nil {
		parts = make([]*scenario.Data, n)
		for i := range parts {
			parts[i] = d
		}
	}
	return parts
}
