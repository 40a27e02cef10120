package deploycheck

import (
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"
)

// TestHelmDefaults checks the chart's safety defaults without helm (make
// deploy-check renders and validates the templates with helm and kubeconform).
func TestHelmDefaults(t *testing.T) {
	t.Parallel()
	var v struct {
		PodSecurityContext struct {
			RunAsNonRoot bool `yaml:"runAsNonRoot"`
		} `yaml:"podSecurityContext"`
		SecurityContext struct {
			AllowPrivilegeEscalation bool `yaml:"allowPrivilegeEscalation"`
			ReadOnlyRootFilesystem   bool `yaml:"readOnlyRootFilesystem"`
		} `yaml:"securityContext"`
		API struct {
			Replicas int `yaml:"replicas"`
		} `yaml:"api"`
		Agent struct {
			PodAntiAffinity string `yaml:"podAntiAffinity"`
			Autoscaling     struct {
				TargetCPU int `yaml:"targetCPUUtilizationPercentage"`
			} `yaml:"autoscaling"`
		} `yaml:"agent"`
		NetworkPolicy struct {
			Enabled bool `yaml:"enabled"`
		} `yaml:"networkPolicy"`
		ExistingSecret string `yaml:"existingSecret"`
	}
	if err := yaml.Unmarshal([]byte(mustRead(t, "deploy/helm/barrage/values.yaml")), &v); err != nil {
		t.Fatal(err)
	}
	switch {
	case !v.PodSecurityContext.RunAsNonRoot:
		t.Error("pods may run as root")
	case v.SecurityContext.AllowPrivilegeEscalation || !v.SecurityContext.ReadOnlyRootFilesystem:
		t.Errorf("container securityContext %+v: want no privilege escalation, a read-only root", v.SecurityContext)
	case v.API.Replicas != 2:
		t.Errorf("api.replicas %d, want 2", v.API.Replicas)
	case v.Agent.PodAntiAffinity != "preferred" || v.Agent.Autoscaling.TargetCPU == 0:
		t.Errorf("agent %+v: want preferred anti-affinity and an HPA CPU target", v.Agent)
	case !v.NetworkPolicy.Enabled:
		t.Error("network policies are off by default")
	}
	api := mustRead(t, "deploy/helm/barrage/templates/api.yaml")
	for _, want := range []string{"readinessProbe:\n            httpGet: {path: /readyz", "livenessProbe:\n            httpGet: {path: /healthz"} {
		if !strings.Contains(api, want) {
			t.Errorf("templates/api.yaml lacks %q", want)
		}
	}
	if agent := mustRead(t, "deploy/helm/barrage/templates/agent.yaml"); !strings.Contains(agent, `command: ["/usr/local/bin/barrage-agent", "healthcheck"]`) {
		t.Error("templates/agent.yaml: no liveness probe with barrage-agent healthcheck")
	}
	np := mustRead(t, "deploy/helm/barrage/templates/networkpolicy.yaml")
	agentPolicy := "policyTypes: [Ingress, Egress]\n  {{- if .Values.agent.metricsPort }}\n  ingress:\n    - ports:\n" +
		"        - {port: {{ .Values.agent.metricsPort }}, protocol: TCP}\n  {{- else }}\n  ingress: []\n  {{- end }}\n  egress:\n    - {}"
	if !strings.Contains(np, agentPolicy) {
		t.Error("templates/networkpolicy.yaml: agents must accept no ingress but on their metrics port, and may egress anywhere")
	}
}
