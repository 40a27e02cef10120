package store

import (
	"testing"
	"time"

	"github.com/google/uuid"
)

func TestListAgents(t *testing.T) {
	t.Parallel()
	f := mustFixture(t)
	ctx := ctxT(t)
	if got, err := f.s.ListAgents(ctx); err != nil || len(got) != 0 {
		t.Fatalf("ListAgents on no agents = %v, %v", got, err)
	}
	base := time.Date(2030, 3, 4, 5, 6, 7, 0, time.UTC)
	a, b := uuid.New(), uuid.New()
	err := f.s.conn(ctx).Exec(`INSERT INTO agents (id, name, labels, version, capacity, running_shards, rss_bytes, cpu_percent, first_seen_at, last_seen_at)
		VALUES (?, 'agent-a', '{"zone":"eu"}', 'v1.2.3', 8, 2, 1048576, 12.5, ?, ?), (?, 'agent-b', '{}', 'v1.2.4', 4, 0, 0, 0, ?, ?)`,
		a, base, base.Add(time.Minute), b, base, base.Add(2*time.Minute)).Error
	if err != nil {
		t.Fatal(err)
	}
	got, err := f.s.ListAgents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].ID != b || got[1].ID != a {
		t.Fatalf("ListAgents = %+v, want b then a", got)
	}
	g := got[1]
	if g.Name != "agent-a" || g.Labels["zone"] != "eu" || len(g.Labels) != 1 || g.Version != "v1.2.3" || g.Capacity != 8 || g.RunningShards != 2 ||
		g.RSSBytes != 1048576 || g.CPUPercent != 12.5 || !g.FirstSeenAt.Equal(base) || !g.LastSeenAt.Equal(base.Add(time.Minute)) {
		t.Errorf("agent a = %+v", g)
	}
	if got[0].Labels == nil || len(got[0].Labels) != 0 {
		t.Errorf("agent b labels = %#v, want empty", got[0].Labels)
	}
}
