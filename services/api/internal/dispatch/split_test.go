package dispatch

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/pkg/spec"
	barragev1 "github.com/barrage-dev/barrage/proto/barrage/v1"
)

func TestSplit(t *testing.T) {
	base := spec.Spec{URL: "http://127.0.0.1:1/", QPS: 300, Connections: 10, Duration: spec.Duration(5 * time.Second),
		Agents: &spec.Agents{Count: 3}}
	tests := []struct {
		name      string
		mod       func(*spec.Spec)
		agents    int
		wantConns []int
		wantCount []int64
	}{
		{name: "remainder spread over the first shards", agents: 3, wantConns: []int{4, 3, 3}},
		{name: "one agent takes all", agents: 1, wantConns: []int{10}},
		{name: "fewer connections than agents uses fewer shards", mod: func(s *spec.Spec) { s.Connections = 2 }, agents: 5, wantConns: []int{1, 1}},
		{name: "count split exactly", mod: func(s *spec.Spec) { s.Count, s.Duration = 1001, 0 }, agents: 3, wantConns: []int{4, 3, 3}, wantCount: []int64{334, 334, 333}},
		{name: "count below shards", mod: func(s *spec.Spec) { s.Count, s.Duration = 2, 0 }, agents: 3, wantConns: []int{5, 5}, wantCount: []int64{1, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := base.Clone()
			if tt.mod != nil {
				tt.mod(&s)
			}
			s.Normalize()
			got := split(s, tt.agents)
			if len(got) != len(tt.wantConns) {
				t.Fatalf("%d shards, want %d", len(got), len(tt.wantConns))
			}
			var qps float64
			for i, sh := range got {
				if sh.Connections != tt.wantConns[i] {
					t.Errorf("shard %d: %d connections, want %d", i, sh.Connections, tt.wantConns[i])
				}
				if len(tt.wantCount) > i && sh.Count != tt.wantCount[i] {
					t.Errorf("shard %d: count %d, want %d", i, sh.Count, tt.wantCount[i])
				}
				wantQPS := s.QPS * float64(sh.Connections) / float64(s.Connections)
				if math.Abs(sh.QPS-wantQPS) > 1e-9 {
					t.Errorf("shard %d: qps %v, want %v", i, sh.QPS, wantQPS)
				}
				if sh.Agents != nil {
					t.Errorf("shard %d keeps the agents block", i)
				}
				if err := sh.Validate(); err != nil {
					t.Errorf("shard %d spec invalid: %v", i, err)
				}
				qps += sh.QPS
			}
			if math.Abs(qps-s.QPS) > 1e-9 {
				t.Errorf("shard qps sum to %v, want %v", qps, s.QPS)
			}
		})
	}
	if base.Agents == nil || base.Agents.Count != 3 {
		t.Fatal("split changed the caller's spec")
	}
}

func TestSplitRamp(t *testing.T) {
	s := spec.Spec{URL: "http://127.0.0.1:1/", QPS: 100, Connections: 4, Duration: spec.Duration(5 * time.Second),
		Ramp: &spec.Ramp{From: 10, To: 100, Over: spec.Duration(2 * time.Second)}}
	got := split(s, 2)
	for i, sh := range got {
		if sh.Ramp.From != 5 || sh.Ramp.To != 50 {
			t.Errorf("shard %d ramp %v→%v, want 5→50", i, sh.Ramp.From, sh.Ramp.To)
		}
	}
	if s.Ramp.From != 10 {
		t.Error("split changed the caller's ramp")
	}
}

func hb(id, name string, capacity, running int, labels map[string]string) *barragev1.Heartbeat {
	h := &barragev1.Heartbeat{AgentId: id, Name: name, Capacity: uint32(capacity), Labels: labels}
	for i := range running {
		h.Running = append(h.Running, &barragev1.ShardRef{RunId: fmt.Sprint(i)})
	}
	return h
}

func TestPick(t *testing.T) {
	live := []*barragev1.Heartbeat{
		hb("c", "c", 4, 2, map[string]string{"zone": "a"}),
		hb("a", "a", 4, 0, map[string]string{"zone": "a", "gpu": "no"}),
		hb("b", "b", 4, 4, map[string]string{"zone": "b"}),
		hb("d", "d", 2, 0, map[string]string{"zone": "b"}),
	}
	tests := []struct {
		name    string
		want    *spec.Agents
		ids     string
		errText string
	}{
		{name: "all free agents, least busy first", ids: "a,d,c"},
		{name: "count takes the least busy", want: &spec.Agents{Count: 2}, ids: "a,d"},
		{name: "selector", want: &spec.Agents{Selector: map[string]string{"zone": "a"}}, ids: "a,c"},
		{name: "selector and count", want: &spec.Agents{Count: 1, Selector: map[string]string{"zone": "b"}}, ids: "d"},
		{name: "no match", want: &spec.Agents{Selector: map[string]string{"zone": "z"}}, errText: "no connected agent matches the selector {zone=z} (4 connected)"},
		{name: "too few", want: &spec.Agents{Count: 4}, errText: "the run needs 4 agents but 3 matching agents have a free slot"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := pick(live, tt.want)
			if tt.errText != "" {
				if err == nil || err.Error() != tt.errText {
					t.Fatalf("err = %v, want %q", err, tt.errText)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var ids string
			for i, h := range got {
				if i > 0 {
					ids += ","
				}
				ids += h.GetAgentId()
			}
			if ids != tt.ids {
				t.Errorf("picked %s, want %s", ids, tt.ids)
			}
		})
	}
	if _, err := pick(nil, nil); err == nil || err.Error() != "no agent is connected" {
		t.Errorf("no agents: err = %v", err)
	}
	busy := []*barragev1.Heartbeat{hb("b", "b", 1, 1, nil)}
	if _, err := pick(busy, nil); err == nil || err.Error() != "all 1 matching agents are busy (every shard slot is taken)" {
		t.Errorf("busy: err = %v", err)
	}
}

func TestSplitStages(t *testing.T) {
	sec := spec.Duration(time.Second)
	s := spec.Spec{URL: "http://127.0.0.1:1/", Connections: 5,
		Stages: []spec.Stage{{QPS: 100, Duration: 2 * sec}, {QPS: 0, Duration: sec}, {QPS: 250, Duration: 3 * sec}}}
	s.Normalize()
	got := split(s, 2)
	if len(got) != 2 {
		t.Fatalf("%d shards, want 2", len(got))
	}
	// 3 and 2 of 5 connections: 60 % and 40 % of every stage.
	want := [][]float64{{60, 0, 150}, {40, 0, 100}}
	for i, sh := range got {
		for k, st := range sh.Stages {
			if math.Abs(st.QPS-want[i][k]) > 1e-9 || st.Duration != s.Stages[k].Duration {
				t.Errorf("shard %d stage %d: %v qps for %v, want %v for %v", i, k, st.QPS, st.Duration.Std(),
					want[i][k], s.Stages[k].Duration.Std())
			}
		}
		if sh.QPS != 0 {
			t.Errorf("shard %d qps %v: the stages set the rate", i, sh.QPS)
		}
		if err := sh.Validate(); err != nil {
			t.Errorf("shard %d spec invalid: %v", i, err)
		}
	}
	if s.Stages[0].QPS != 100 {
		t.Error("split changed the caller's stages")
	}
}
