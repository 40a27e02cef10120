package ingest

import (
	"fmt"
	"math"
	"time"

	barragev1 "github.com/barrage-dev/barrage/proto/barrage/v1"
)

// When an agent, rather than the target, is the bottleneck of a second
// (docs/observability.md, "Generator limited"): a generator short of CPU
// or late with its sends measures itself.
const (
	// cpuLimit is the share of the cores an agent may use above which it
	// is short of CPU (Locust warns from 90 % too).
	cpuLimit = 0.9
	// lagLimit is the share of the interval between a connection's sends
	// that the send lag's p99 may reach.
	lagLimit = 0.1
)

// generatorLimited reports whether the interval snapshot m says its agent
// was the bottleneck: above cpuLimit of its cores, or its shard's lag p99
// above lagLimit of the interval between sends (a paced shard only). A
// snapshot without the figures (an agent older than them, a final) is not.
func generatorLimited(m *barragev1.Snapshot) bool {
	if m.GetFinal() {
		return false
	}
	if cores := m.GetCpuCores(); cores > 0 && m.GetCpuUsed() > cpuLimit*cores {
		return true
	}
	interval := m.GetSendIntervalUs()
	return interval > 0 && float64(m.GetLagP99Us()) > lagLimit*float64(interval)
}

// limitedNote is the note on the verdict of a run whose agents were the
// bottleneck for limited of its seconds; "" when none. The run lasted
// duration.
func limitedNote(limited int, duration time.Duration) string {
	if limited <= 0 {
		return ""
	}
	of := max(limited, int(math.Round(duration.Seconds())))
	return fmt.Sprintf("generator_limited: the load generator was the bottleneck for %d of %d s: figures measure the agent, not the target", limited, of)
}
