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

// TestSplitScenarioData: a split data file gives each shard rows of its
// own, rows i, i+n, …, and no more shards than rows; a shared one goes
// whole to every shard.
func TestSplitScenarioData(t *testing.T) {
	run := func(content string, splitRows bool, agents int) []spec.Spec {
		return split(spec.Spec{
			Scenario: &scenario.Scenario{Steps: []scenario.Step{{Name: "a", URL: "http://127.0.0.1:1/"}},
				Data: &scenario.Data{Content: content, Split: splitRows}},
			IterationsPerSecond: 30, Duration: spec.Duration(1e9), Connections: 6,
		}, agents)
	}
	const five = "user\nann\nbob\ncat\ndan\neve\n"
	got := run(five, true, 3)
	want := []string{"user\nann\ndan\n", "user\nbob\neve\n", "user\ncat\n"}
	if len(got) != 3 {
		t.Fatalf("%d shards", len(got))
	}
	for i, sh := range got {
		if sh.Scenario.Data.Content != want[i] || !sh.Scenario.Data.Split {
			t.Fatalf("shard %d data %q, want %q", i, sh.Scenario.Data.Content, want[i])
		}
	}
	if got := run("user\nann\nbob\n", true, 3); len(got) != 2 || got[0].Connections+got[1].Connections != 6 {
		t.Fatalf("2 rows over 3 agents: %d shards", len(got))
	}
	for i, sh := range run(five, false, 3) {
		if sh.Scenario.Data.Content != five {
			t.Fatalf("shared: shard %d data %q", i, sh.Scenario.Data.Content)
		}
	}
}
