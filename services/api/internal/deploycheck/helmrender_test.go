package deploycheck

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"

	"github.com/barrage-dev/barrage/pkg/natsauth"
	"github.com/barrage-dev/barrage/services/api/internal/app"
)

// helmBin finds helm: the repository's .tools/bin (make tools) or the PATH.
func helmBin(tb testing.TB) string {
	tb.Helper()
	if p, err := filepath.Abs(filepath.Join(root, ".tools", "bin", "helm")); err == nil {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	if p, err := exec.LookPath("helm"); err == nil {
		return p
	}
	tb.Fatal("these tests render deploy/helm/barrage: run `make tools` (helm into .tools/bin) or put helm on the PATH")
	return ""
}

// object is one rendered Kubernetes object.
type object map[string]any

// get walks keys (map keys, or list indexes as ints) and returns what is there.
func (o object) get(path ...any) any {
	var v any = map[string]any(o)
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = m[k]
		case int:
			l, ok := v.([]any)
			if !ok || k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}

func (o object) str(path ...any) string { s, _ := o.get(path...).(string); return s }

// renderChart runs helm template on the chart with ci/test-values.yaml and
// sets, and returns the objects by "Kind/name", or helm's error output.
func renderChart(t *testing.T, sets ...string) (map[string]object, string) {
	t.Helper()
	args := []string{"template", "barrage", filepath.Join(root, "deploy", "helm", "barrage"), "--kube-version", "v1.34.2",
		"-f", filepath.Join(root, "deploy", "helm", "barrage", "ci", "test-values.yaml")}
	for _, s := range sets {
		args = append(args, "--set", s)
	}
	var out, errOut bytes.Buffer
	cmd := exec.Command(helmBin(t), args...)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return nil, errOut.String()
	}
	objs := map[string]object{}
	dec := yaml.NewDecoder(&out)
	for {
		var m map[string]any // nested maps decode as map[string]any
		err := dec.Decode(&m)
		o := object(m)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if o == nil {
			continue
		}
		objs[o.str("kind")+"/"+o.str("metadata", "name")] = o
	}
	return objs, ""
}

func mustRender(t *testing.T, sets ...string) map[string]object {
	t.Helper()
	objs, errOut := renderChart(t, sets...)
	if objs == nil {
		t.Fatalf("helm template %v: %s", sets, errOut)
	}
	return objs
}

// container finds a container (or init container, list "initContainers")
// of a pod template by name.
func container(o object, list, name string) object {
	l, _ := o.get("spec", "template", "spec", list).([]any)
	for _, c := range l {
		if m, ok := c.(map[string]any); ok && m["name"] == name {
			return m
		}
	}
	return nil
}

// names lists the "name" of each entry of a list.
func names(v any) []string {
	l, _ := v.([]any)
	var out []string
	for _, e := range l {
		if m, ok := e.(map[string]any); ok {
			if n, ok := m["name"].(string); ok {
				out = append(out, n)
			}
		}
	}
	return out
}

// envOf returns a container's env entries by name.
func envOf(c object) map[string]object {
	out := map[string]object{}
	l, _ := c.get("env").([]any)
	for _, e := range l {
		if m, ok := e.(map[string]any); ok {
			out[m["name"].(string)] = m
		}
	}
	return out
}

// TestHelmPerAgentCredentials renders the chart's default (operator mode)
// and checks the per-agent credentials layout: a pre-install/pre-upgrade
// Job runs `barrage-api nats-auth bootstrap` with one slot per agent pod
// the chart may run and may touch only its three Secrets; the agents are a
// StatefulSet whose init container alone mounts the Secret of every slot
// and copies its own out; the agent container sees only its own file and
// no password; the API alone mounts the keys. The Job's bootstrap
// arguments are then run for real, and every slot's JWT binds the pool and
// capacity the values asked for.
func TestHelmPerAgentCredentials(t *testing.T) {
	t.Parallel()
	objs := mustRender(t)
	job := objs["Job/barrage-nats-auth"]
	if job == nil {
		t.Fatal("no bootstrap Job barrage-nats-auth")
	}
	if h := job.str("metadata", "annotations", "helm.sh/hook"); h != "pre-install,pre-upgrade" {
		t.Errorf("Job hook %q, want pre-install,pre-upgrade", h)
	}
	boot := container(job, "initContainers", "bootstrap")
	var args []string
	for _, a := range boot.get("args").([]any) {
		args = append(args, a.(string))
	}
	if i := slices.Index(args, "-agents"); len(args) < 2 || args[0] != "nats-auth" || args[1] != "bootstrap" || i < 0 || args[i+1] != "10" {
		t.Errorf("bootstrap args %q: want nats-auth bootstrap with -agents 10 (the HPA's maxReplicas)", args)
	}
	secrets := []string{"barrage-nats-keys", "barrage-nats-trust", "barrage-agent-creds"}
	store := container(job, "containers", "store")
	script := store.str("command", 2)
	for _, s := range secrets {
		if !strings.Contains(script, "store "+s+" ") {
			t.Errorf("the Job does not store Secret %s:\n%s", s, script)
		}
	}
	role := objs["Role/barrage-nats-auth"]
	rules, _ := role.get("rules").([]any)
	for _, r := range rules {
		rule := object(r.(map[string]any))
		if rule.get("resourceNames") == nil {
			if verbs := rule.get("verbs").([]any); len(verbs) != 1 || verbs[0] != "create" {
				t.Errorf("Role rule without resourceNames allows %v, want create only", verbs)
			}
			continue
		}
		var got []string
		for _, n := range rule.get("resourceNames").([]any) {
			got = append(got, n.(string))
		}
		if !slices.Equal(got, secrets) {
			t.Errorf("Role resourceNames %v, want %v", got, secrets)
		}
	}

	sts := objs["StatefulSet/barrage-agent"]
	if sts == nil || objs["Deployment/barrage-agent"] != nil {
		t.Fatal("agents are not a StatefulSet")
	}
	if hpa := objs["HorizontalPodAutoscaler/barrage-agent"]; hpa.str("spec", "scaleTargetRef", "kind") != "StatefulSet" {
		t.Error("the HPA does not scale the agents' StatefulSet")
	}
	var slotsSecret string
	for _, v := range sts.get("spec", "template", "spec", "volumes").([]any) {
		if m := object(v.(map[string]any)); m.str("name") == "slots" {
			slotsSecret = m.str("secret", "secretName")
		}
	}
	if slotsSecret != "barrage-agent-creds" {
		t.Errorf("agent pods' slots volume is Secret %q, want barrage-agent-creds", slotsSecret)
	}
	initC := container(sts, "initContainers", "credentials")
	if got := strings.Join(toStrings(initC.get("args")), " "); got != "creds-slot -from /etc/barrage/slots -pod $(POD_NAME) -o /etc/barrage/creds/agent.creds" {
		t.Errorf("credentials init container args %q", got)
	}
	if !slices.Contains(names(initC.get("volumeMounts")), "slots") {
		t.Error("the init container does not mount the slots")
	}
	agent := container(sts, "containers", "agent")
	if m := names(agent.get("volumeMounts")); slices.Contains(m, "slots") || !slices.Contains(m, "creds") {
		t.Errorf("agent container mounts %v: want its own creds, never every slot", m)
	}
	env := envOf(agent)
	if env["BARRAGE_AGENT_CREDS"].str("value") != "/etc/barrage/creds/agent.creds" || env["NATS_URL"].str("value") != "nats://nats:4222" {
		t.Errorf("agent env %v: want BARRAGE_AGENT_CREDS and a NATS_URL without a password", env)
	}
	api := container(objs["Deployment/barrage-api"], "containers", "api")
	if !slices.Contains(names(api.get("volumeMounts")), "nats-keys") || envOf(api)["BARRAGE_NATS_KEYS"] == nil {
		t.Error("the API does not mount the NATS keys")
	}
	if sec := objs["Secret/barrage-credentials"]; sec.get("stringData", "NATS_AGENT_URL") != nil || sec.get("stringData", "NATS_API_URL") != nil {
		t.Error("operator mode still renders shared NATS passwords")
	}

	// deploy/helm/nats-values.yaml mounts the trust Secret the Job writes.
	nv := mustRead(t, "deploy/helm/nats-values.yaml")
	for _, want := range []string{"secretName: barrage-nats-trust", "mountPath: /etc/barrage-nats-trust", "$include: ../barrage-nats-trust/barrage-auth.conf"} {
		if !strings.Contains(nv, want) {
			t.Errorf("deploy/helm/nats-values.yaml lacks %q", want)
		}
	}

	// The Job's bootstrap, run for real: ten slots binding pool load-eu
	// and capacity 8 (ci/test-values.yaml), and the trust file.
	work := t.TempDir()
	for i, a := range args {
		args[i] = strings.Replace(a, "/work", work, 1)
	}
	for _, d := range []string{"keys", "server", "agents"} {
		if err := os.MkdirAll(filepath.Join(work, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	var out, errOut bytes.Buffer
	if code := app.Main(context.Background(), append([]string{"barrage-api"}, args...), nil, &out, &errOut); code != 0 {
		t.Fatalf("the Job's bootstrap: exit %d: %s%s", code, out.String(), errOut.String())
	}
	keys, err := natsauth.Load(filepath.Join(work, "keys", "nats-keys.json"))
	if err != nil {
		t.Fatal(err)
	}
	trust, err := keys.Trust()
	if err != nil {
		t.Fatal(err)
	}
	slots, _ := filepath.Glob(filepath.Join(work, "agents", "*.creds"))
	if len(slots) != 10 {
		t.Errorf("%d slots issued, want 10", len(slots))
	}
	for _, p := range slots {
		file, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		creds, id, err := natsauth.ParseCredentials(file)
		if err != nil {
			t.Fatal(err)
		}
		b, err := natsauth.VerifyAgentJWT(creds.JWT, trust.AccountPublic)
		if err != nil || b.ID != id || b.Pool != "load-eu" || b.Capacity != 8 {
			t.Errorf("%s binds %+v (%v), want pool load-eu, capacity 8", filepath.Base(p), b, err)
		}
	}
	if conf, err := os.ReadFile(filepath.Join(work, "server", "barrage-auth.conf")); err != nil || !strings.Contains(string(conf), "resolver_preload") {
		t.Errorf("trust file: %v", err)
	}
}

// TestHelmSharedAgentUserIsOptIn: the shared agent user is rendered only
// with nats.insecureSharedAgentUser=true (then: a Deployment, the shared
// password, no bootstrap Job); too few slots for the agent pods, or more
// than one Secret holds, fail the render.
func TestHelmSharedAgentUserIsOptIn(t *testing.T) {
	t.Parallel()
	objs := mustRender(t, "nats.insecureSharedAgentUser=true", "nats.apiPassword=a", "nats.agentPassword=b")
	if objs["Job/barrage-nats-auth"] != nil || objs["StatefulSet/barrage-agent"] != nil || objs["Deployment/barrage-agent"] == nil {
		t.Error("insecureSharedAgentUser: want a Deployment of agents and no bootstrap Job")
	}
	if objs["Secret/barrage-credentials"].str("stringData", "NATS_AGENT_URL") != "nats://agent:b@nats:4222" {
		t.Error("insecureSharedAgentUser: no shared agent URL")
	}
	if _, errOut := renderChart(t, "agent.autoscaling.enabled=false", "agent.replicas=3", "nats.auth.agentSlots=2"); !strings.Contains(errOut, "fewer than the 3 agent pods") {
		t.Errorf("2 slots for 3 agents: %q, want a refusal", errOut)
	}
	if _, errOut := renderChart(t, "agent.autoscaling.maxReplicas=600"); !strings.Contains(errOut, "more than 500 agent credential slots") {
		t.Errorf("600 slots: %q, want a refusal (one Secret holds 1 MiB)", errOut)
	}
	var v struct {
		NATS struct {
			InsecureSharedAgentUser bool `yaml:"insecureSharedAgentUser"`
		} `yaml:"nats"`
	}
	if err := yaml.Unmarshal([]byte(mustRead(t, "deploy/helm/barrage/values.yaml")), &v); err != nil || v.NATS.InsecureSharedAgentUser {
		t.Errorf("values.yaml: nats.insecureSharedAgentUser must default to false (%v)", err)
	}
}

func toStrings(v any) []string {
	l, _ := v.([]any)
	out := make([]string, 0, len(l))
	for _, e := range l {
		out = append(out, e.(string))
	}
	return out
}

// TestHelmAPIStartupOutlastsNATSSetup: the API listens only after it set up
// its NATS streams, which it retries for up to 60 s (app/bus.go,
// setupBudget) while a cluster forms. A liveness probe alone (10 s + 3 × 10
// s) restarted it first; a startup probe holds liveness off for longer.
func TestHelmAPIStartupOutlastsNATSSetup(t *testing.T) {
	t.Parallel()
	const setupBudget = 60 // seconds, app/bus.go
	api := container(mustRender(t)["Deployment/barrage-api"], "containers", "api")
	if api == nil {
		t.Fatal("no api container in Deployment/barrage-api")
	}
	num := func(path ...any) int {
		switch v := api.get(path...).(type) {
		case int:
			return v
		case uint64:
			return int(v)
		case float64:
			return int(v)
		}
		return 0
	}
	if api.str("startupProbe", "httpGet", "path") != "/healthz" {
		t.Fatalf("api startupProbe = %v, want an HTTP GET of /healthz", api.get("startupProbe"))
	}
	if budget := num("startupProbe", "periodSeconds") * num("startupProbe", "failureThreshold"); budget < setupBudget+30 {
		t.Errorf("startup probe gives the API %d s, want at least the %d s NATS setup and 30 s for migrations", budget, setupBudget)
	}
}
