package deploycheck

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestHelmValuesSchema checks deploy/helm/barrage/values.schema.json with
// helm itself: lint --strict passes the defaults and ci/test-values.yaml,
// and fails each bad value naming where it is.
func TestHelmValuesSchema(t *testing.T) {
	t.Parallel()
	chart := filepath.Join(root, "deploy", "helm", "barrage")
	lint := func(sets ...string) (string, error) {
		args := []string{"lint", "--strict", chart, "-f", filepath.Join(chart, "ci", "test-values.yaml")}
		for _, s := range sets {
			args = append(args, "--set", s)
		}
		var out bytes.Buffer
		cmd := exec.Command(helmBin(t), args...)
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		return out.String(), err
	}
	if out, err := lint(); err != nil {
		t.Fatalf("helm lint --strict of the chart's own values: %v\n%s", err, out)
	}
	for _, tc := range []struct{ set, want string }{
		{"agent.replicas=two", "/agent/replicas"},
		{"agent.replica=2", "replica"},
		{"nats.replicas=7", "/nats/replicas"},
		{"nats.url=http://nats:4222", "/nats/url"},
		{"agent.podAntiAffinity=required", "/agent/podAntiAffinity"},
		{"image.pullPolicy=Sometimes", "/image/pullPolicy"},
		{"api.service.type=Ingress", "/api/service/type"},
		{"agent.autoscaling.targetCPUUtilizationPercentage=0", "/agent/autoscaling/targetCPUUtilizationPercentage"},
		{"natsReplicas=3", "natsReplicas"},
	} {
		out, err := lint(tc.set)
		if err == nil || !strings.Contains(out, tc.want) {
			t.Errorf("helm lint --strict --set %s: err %v, output %q; want a failure naming %s", tc.set, err, out, tc.want)
		}
	}
}
