package ingest

import (
	"testing"
	"time"

	barragev1 "github.com/barrage-dev/barrage/proto/barrage/v1"
)

// TestGeneratorLimited checks the rule of a generator-limited second: above
// 90 % of the agent's cores, or a lag p99 above 10 % of the interval
// between sends of a paced shard.
func TestGeneratorLimited(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		snap *barragev1.Snapshot
		want bool
	}{
		{"idle", &barragev1.Snapshot{CpuUsed: 0.2, CpuCores: 2, LagP99Us: 80, SendIntervalUs: 5000}, false},
		{"cpu at 90 %", &barragev1.Snapshot{CpuUsed: 1.8, CpuCores: 2}, false},
		{"cpu above 90 %", &barragev1.Snapshot{CpuUsed: 1.85, CpuCores: 2}, true},
		{"one core of one", &barragev1.Snapshot{CpuUsed: 0.95, CpuCores: 1}, true},
		{"lag at 10 %", &barragev1.Snapshot{LagP99Us: 500, SendIntervalUs: 5000}, false},
		{"lag above 10 %", &barragev1.Snapshot{LagP99Us: 501, SendIntervalUs: 5000}, true},
		{"lag of a closed loop", &barragev1.Snapshot{LagP99Us: 90_000}, false},
		{"no figures (an older agent)", &barragev1.Snapshot{}, false},
		{"final", &barragev1.Snapshot{Final: true, CpuUsed: 2, CpuCores: 2, LagP99Us: 9000, SendIntervalUs: 5000}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := generatorLimited(tt.snap); got != tt.want {
				t.Errorf("generatorLimited = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestLimitedNote checks the verdict's note: none without a limited
// second, and the seconds of the run's length otherwise.
func TestLimitedNote(t *testing.T) {
	t.Parallel()
	if n := limitedNote(0, 30*time.Second); n != "" {
		t.Errorf("note without a limited second: %q", n)
	}
	want := "generator_limited: the load generator was the bottleneck for 12 of 30 s: figures measure the agent, not the target"
	if n := limitedNote(12, 30*time.Second+200*time.Millisecond); n != want {
		t.Errorf("note %q, want %q", n, want)
	}
	if n := limitedNote(4, 3*time.Second); n != "generator_limited: the load generator was the bottleneck for 4 of 4 s: figures measure the agent, not the target" {
		t.Errorf("note of a tail second beyond the length: %q", n)
	}
}
