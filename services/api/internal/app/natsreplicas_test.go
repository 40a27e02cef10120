package app

import (
	"io"
	"strings"
	"testing"
)

// TestNATSReplicasSetting: BARRAGE_NATS_REPLICAS defaults to 1, takes 3 for
// a 3-node cluster, and is refused out of range or with the embedded NATS,
// which is a single server.
func TestNATSReplicasSetting(t *testing.T) {
	t.Parallel()
	base := []string{"DATABASE_URL=postgres://x/y"}
	cfg, err := ParseConfig(nil, base, io.Discard)
	if err != nil || cfg.NATSReplicas != 1 {
		t.Fatalf("default: replicas %d (%v), want 1", cfg.NATSReplicas, err)
	}
	cluster := []string{base[0], "NATS_URL=nats://n0:4222,nats://n1:4222,nats://n2:4222"}
	cfg, err = ParseConfig(nil, []string{cluster[0], cluster[1], "BARRAGE_NATS_REPLICAS=3"}, io.Discard)
	if err != nil || cfg.NATSReplicas != 3 {
		t.Fatalf("on a cluster: replicas %d (%v), want 3", cfg.NATSReplicas, err)
	}
	for _, env := range [][]string{
		{cluster[0], cluster[1], "BARRAGE_NATS_REPLICAS=0"},
		{cluster[0], cluster[1], "BARRAGE_NATS_REPLICAS=6"},
		{base[0], "BARRAGE_NATS_REPLICAS=3"}, // embedded
	} {
		_, err := ParseConfig(nil, env, io.Discard)
		if err == nil || !strings.Contains(err.Error(), "-nats-replicas") {
			t.Errorf("%v: %v, want an error naming -nats-replicas", env[1:], err)
		}
	}
}
