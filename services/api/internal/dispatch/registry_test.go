package dispatch

import (
	"math"
	"testing"

	"github.com/google/uuid"

	barragev1 "github.com/barrage-dev/barrage/proto/barrage/v1"
)

// TestAgentOfClampsRSS: a heartbeat's RSS beyond int64 (a lying agent's)
// is stored as the largest int64, never as a negative size.
func TestAgentOfClampsRSS(t *testing.T) {
	t.Parallel()
	for _, rss := range []uint64{0, 1 << 30, math.MaxInt64, math.MaxInt64 + 1, math.MaxUint64} {
		a, ok := agentOf(&barragev1.Heartbeat{AgentId: uuid.NewString(), RssBytes: rss})
		if !ok {
			t.Fatalf("rss %d: heartbeat refused", rss)
		}
		want := int64(min(rss, math.MaxInt64))
		if a.RSSBytes != want || a.RSSBytes < 0 {
			t.Errorf("rss %d: RSSBytes = %d, want %d", rss, a.RSSBytes, want)
		}
	}
}
