package deploycheck

import (
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"
)

// TestHelmNATSCluster: the NATS chart's values run three servers as one
// JetStream cluster, and the Barrage chart's API asks for 3 replicas of
// every stream and bucket by default (nats.replicas); 1 is there for a
// single server, and a value out of 1..5 fails the render.
func TestHelmNATSCluster(t *testing.T) {
	t.Parallel()
	for _, file := range []string{"deploy/helm/nats-values.yaml", "deploy/helm/nats-values-insecure-shared-agent.yaml"} {
		var v struct {
			Config struct {
				Cluster struct {
					Enabled  bool `yaml:"enabled"`
					Replicas int  `yaml:"replicas"`
				} `yaml:"cluster"`
				Jetstream struct {
					Enabled bool `yaml:"enabled"`
				} `yaml:"jetstream"`
			} `yaml:"config"`
		}
		if err := yaml.Unmarshal([]byte(mustRead(t, file)), &v); err != nil {
			t.Fatal(err)
		}
		if c := v.Config.Cluster; !c.Enabled || c.Replicas != 3 || !v.Config.Jetstream.Enabled {
			t.Errorf("%s: cluster %+v, JetStream %v; want a JetStream cluster of 3", file, c, v.Config.Jetstream.Enabled)
		}
	}
	replicas := func(sets ...string) string {
		api := container(mustRender(t, sets...)["Deployment/barrage-api"], "containers", "api")
		return envOf(api)["BARRAGE_NATS_REPLICAS"].str("value")
	}
	if got := replicas(); got != "3" {
		t.Errorf("default BARRAGE_NATS_REPLICAS %q, want 3", got)
	}
	if got := replicas("nats.replicas=1"); got != "1" {
		t.Errorf("nats.replicas=1: BARRAGE_NATS_REPLICAS %q, want 1", got)
	}
	for _, bad := range []string{"nats.replicas=0", "nats.replicas=6"} {
		// values.schema.json refuses it first; the template's own check
		// (_helpers.tpl) stays for a chart rendered without the schema.
		if objs, errOut := renderChart(t, bad); objs != nil || !strings.Contains(errOut, "/nats/replicas") {
			t.Errorf("%s rendered (%s), want a failure naming /nats/replicas", bad, errOut)
		}
	}
}
