package wire

// When an agent, rather than the target, is the bottleneck of one interval
// snapshot of a shard (docs/observability.md, "Generator limited"): a
// generator short of CPU or late with its sends measures itself. The API
// flags the run's seconds by it (services/api/internal/ingest/generator.go)
// and the agent counts them on its /metrics
// (services/agent/internal/agentmetrics), so both read one rule.
const (
	// GenCPULimit is the share of the cores an agent may use above which
	// it is short of CPU (Locust warns from 90 % too).
	GenCPULimit = 0.9
	// GenLagLimit is the share of the interval between a connection's
	// sends that the send lag's p99 may reach.
	GenLagLimit = 0.1
)

// GeneratorLimited reports whether an interval snapshot's figures say its
// agent was the bottleneck: it used more than GenCPULimit of its cores
// (cpuUsed and cores in cores; no cores, no verdict on CPU), or its
// shard's lag p99 exceeded GenLagLimit of the interval between sends (both
// in microseconds; 0 for a closed loop, which has no schedule to be late
// for).
func GeneratorLimited(cpuUsed, cores float64, lagP99US, sendIntervalUS uint64) bool {
	if cores > 0 && cpuUsed > GenCPULimit*cores {
		return true
	}
	return sendIntervalUS > 0 && float64(lagP99US) > GenLagLimit*float64(sendIntervalUS)
}
