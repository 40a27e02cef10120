package dispatch

import (
	"testing"

	"github.com/barrage-dev/barrage/pkg/scenario"
	"github.com/barrage-dev/barrage/pkg/spec"
)

// TestSplitScenario: a scenario run's iterations per second split in
// proportion to connections, its iterations exactly, and every shard
// carries the whole scenario.
func TestSplitScenario(t *testing.T) {
	s := spec.Spec{
		Scenario:            &scenario.Scenario{Steps: []scenario.Step{{Name: "a", URL: "http://127.0.0.1:1/"}}},
		IterationsPerSecond: 30, Count: 41, Connections: 3,
	}
	got := split(s, 2)
	if len(got) != 2 {
		t.Fatalf("%d shards", len(got))
	}
	if got[0].IterationsPerSecond != 20 || got[1].IterationsPerSecond != 10 || got[0].Count+got[1].Count != 41 || got[0].Count != 21 {
		t.Fatalf("shards: %g/s %d, %g/s %d", got[0].IterationsPerSecond, got[0].Count, got[1].IterationsPerSecond, got[1].Count)
	}
	got[1].Scenario.Steps[0].Name = "changed"
	if s.Scenario.Steps[0].Name != "a" || got[0].Scenario.Steps[0].Name != "a" {
		t.Fatal("shards share the run's scenario")
	}
}
