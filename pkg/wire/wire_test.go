package wire_test

import (
	"testing"

	"github.com/barrage-dev/barrage/pkg/wire"
)

func TestParseSnapSubjectInvertsSnapSubject(t *testing.T) {
	agent, run, shard, ok := wire.ParseSnapSubject(wire.SnapSubject("a1", "r1", 7))
	if !ok || agent != "a1" || run != "r1" || shard != 7 {
		t.Fatalf("ParseSnapSubject = %q %q %d %v, want a1 r1 7 true", agent, run, shard, ok)
	}
	for _, bad := range []string{
		"barrage.v1.snap.a1.r1",            // no shard
		"barrage.v1.snap.a1.r1.x",          // shard not a number
		"barrage.v1.snap.a1.r1.2.3",        // one token too many
		"barrage.v1.snap..r1.2",            // empty agent
		"barrage.v1.snap.a1.r1.4294967296", // beyond uint32
		"barrage.v1.assign.a1",
	} {
		if _, _, _, ok := wire.ParseSnapSubject(bad); ok {
			t.Errorf("ParseSnapSubject(%q) ok, want false", bad)
		}
	}
}
