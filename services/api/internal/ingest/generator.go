package ingest

import (
	"fmt"
	"math"
	"time"

	"github.com/barrage-dev/barrage/pkg/wire"
	barragev1 "github.com/barrage-dev/barrage/proto/barrage/v1"
)

// generatorLimited reports whether the interval snapshot m says its agent
// was the bottleneck of its second (docs/observability.md, "Generator
// limited"; the rule is pkg/wire GeneratorLimited, which the agent's
// /metrics counts by too). A snapshot without the figures (an agent older
// than them, a final) is not.
func generatorLimited(m *barragev1.Snapshot) bool {
	if m.GetFinal() {
		return false
	}
	return wire.GeneratorLimited(m.GetCpuUsed(), m.GetCpuCores(), m.GetLagP99Us(), m.GetSendIntervalUs())
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
