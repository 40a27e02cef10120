package dispatch

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/barrage-dev/barrage/pkg/spec"
	barragev1 "github.com/barrage-dev/barrage/proto/barrage/v1"
)

// pick chooses the agents a run is split across: those whose labels match
// the selector and that have a free shard slot, least busy first (then by
// name and id, so the choice is stable), at most want.Count of them (0 =
// all). The error says why none could be chosen.
func pick(live []*barragev1.Heartbeat, want *spec.Agents) ([]*barragev1.Heartbeat, error) {
	var selector map[string]string
	count := 0
	if want != nil {
		selector, count = want.Selector, want.Count
	}
	var matching, free []*barragev1.Heartbeat
	for _, hb := range live {
		if !labelsMatch(hb.GetLabels(), selector) {
			continue
		}
		matching = append(matching, hb)
		if len(hb.GetRunning()) < int(hb.GetCapacity()) {
			free = append(free, hb)
		}
	}
	switch {
	case len(live) == 0:
		return nil, fmt.Errorf("no agent is connected")
	case len(matching) == 0:
		return nil, fmt.Errorf("no connected agent matches the selector %s (%d connected)", describe(selector), len(live))
	case len(free) == 0:
		return nil, fmt.Errorf("all %d matching agents are busy (every shard slot is taken)", len(matching))
	case count > len(free):
		return nil, fmt.Errorf("the run needs %d agents but %d matching agents have a free slot", count, len(free))
	}
	slices.SortFunc(free, func(a, b *barragev1.Heartbeat) int {
		return cmp.Or(
			cmp.Compare(load(a), load(b)),
			cmp.Compare(a.GetName(), b.GetName()),
			cmp.Compare(a.GetAgentId(), b.GetAgentId()),
		)
	})
	if count > 0 {
		free = free[:count]
	}
	return free, nil
}

// load is the share of an agent's slots in use.
func load(hb *barragev1.Heartbeat) float64 {
	if hb.GetCapacity() == 0 {
		return 1
	}
	return float64(len(hb.GetRunning())) / float64(hb.GetCapacity())
}

func labelsMatch(labels, selector map[string]string) bool {
	for k, v := range selector {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	return true
}

func describe(selector map[string]string) string {
	parts := make([]string, 0, len(selector))
	for _, k := range slices.Sorted(maps.Keys(selector)) {
		parts = append(parts, k+"="+selector[k])
	}
	return "{" + strings.Join(parts, ",") + "}"
}
