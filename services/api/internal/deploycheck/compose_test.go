package deploycheck

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/compose-spec/compose-go/v2/dotenv"
	"github.com/compose-spec/compose-go/v2/loader"
	"github.com/compose-spec/compose-go/v2/types"
)

// root is the repository root, relative to this package.
const root = "../../../.."

// mustRead returns the content of a file under the repository root.
func mustRead(tb testing.TB, rel string) string {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// exampleEnv is .env.example as compose reads .env.
func exampleEnv(tb testing.TB) map[string]string {
	tb.Helper()
	env, err := dotenv.Read(filepath.Join(root, ".env.example"))
	if err != nil {
		tb.Fatal(err)
	}
	return env
}

// loadCompose loads docker-compose.yml the way `docker compose` does, with env
// as the environment (.env).
func loadCompose(tb testing.TB, env map[string]string) (*types.Project, error) {
	tb.Helper()
	dir, err := filepath.Abs(root)
	if err != nil {
		tb.Fatal(err)
	}
	return loader.LoadWithContext(context.Background(), types.ConfigDetails{
		WorkingDir:  dir,
		ConfigFiles: []types.ConfigFile{{Filename: filepath.Join(dir, "docker-compose.yml")}},
		Environment: env,
	}, func(o *loader.Options) { o.SetProjectName("barrage", true) })
}

func mustCompose(tb testing.TB) *types.Project {
	tb.Helper()
	p, err := loadCompose(tb, exampleEnv(tb))
	if err != nil {
		tb.Fatalf("docker-compose.yml with .env.example: %v", err)
	}
	return p
}

func TestComposeServices(t *testing.T) {
	t.Parallel()
	p := mustCompose(t)
	want := []string{"agent", "api", "echo", "nats", "nats-auth", "postgres"}
	if got := p.ServiceNames(); !slices.Equal(slices.Sorted(slices.Values(got)), want) {
		t.Fatalf("services %v, want %v", got, want)
	}
	for name, s := range p.Services {
		if name == "nats-auth" { // one-shot: exits when done
			continue
		}
		hc := s.HealthCheck
		if hc == nil || hc.Disable || len(hc.Test) == 0 {
			t.Errorf("service %s has no healthcheck", name)
		}
		if !strings.Contains(s.Image, ":") || strings.HasSuffix(s.Image, ":latest") {
			t.Errorf("service %s image %q: want a pinned tag, not latest", name, s.Image)
		}
	}
	api := p.Services["api"]
	for _, dep := range []string{"postgres", "nats"} {
		if d, ok := api.DependsOn[dep]; !ok || d.Condition != types.ServiceConditionHealthy {
			t.Errorf("api depends_on %s = %+v, want condition service_healthy", dep, d)
		}
	}
	if len(api.Ports) != 1 || api.Ports[0].Target != 8080 {
		t.Errorf("api ports %+v, want 8080 published", api.Ports)
	}
	if d, ok := p.Services["agent"].DependsOn["nats"]; !ok || d.Condition != types.ServiceConditionHealthy {
		t.Errorf("agent depends_on nats = %+v, want service_healthy", d)
	}
}

func TestComposeAgentScales(t *testing.T) {
	t.Parallel()
	agent := mustCompose(t).Services["agent"]
	if agent.ContainerName != "" {
		t.Errorf("agent container_name %q: a fixed name stops --scale", agent.ContainerName)
	}
	if len(agent.Ports) != 0 {
		t.Errorf("agent ports %+v: a host port stops --scale", agent.Ports)
	}
	if _, ok := agent.Environment["BARRAGE_AGENT_NAME"]; ok {
		t.Error("agent sets BARRAGE_AGENT_NAME: every replica would have the same name")
	}
	if agent.Deploy != nil && agent.Deploy.Replicas != nil {
		t.Errorf("agent deploy.replicas fixed at %d", *agent.Deploy.Replicas)
	}
}

// TestComposeCredentials: NATS runs in operator mode. The one-shot
// nats-auth service writes the keys, the server's trust file and the
// agents' credentials into three volumes; barrage-api mounts only the keys,
// nats-server only the trust file, the agents only their credentials, and
// nobody gets a password in a URL.
func TestComposeCredentials(t *testing.T) {
	t.Parallel()
	env := exampleEnv(t)
	p := mustCompose(t)
	mounts := func(svc string) map[string]string {
		out := map[string]string{}
		for _, v := range p.Services[svc].Volumes {
			if v.Type == "volume" {
				out[v.Source] = v.Target
				if v.ReadOnly {
					out[v.Source] += ":ro"
				}
			}
		}
		return out
	}
	for svc, want := range map[string]map[string]string{
		"nats-auth": {"natskeys": "/keys", "natsauth": "/nats-auth", "agentcreds": "/agents"},
		"nats":      {"natsauth": "/etc/nats/auth:ro", "natsdata": "/data"},
		"api":       {"natskeys": "/keys:ro"},
		"agent":     {"agentcreds": "/agents:ro"},
	} {
		if got := mounts(svc); !reflect.DeepEqual(got, want) {
			t.Errorf("%s mounts %v, want %v", svc, got, want)
		}
	}
	boot := p.Services["nats-auth"]
	if cmd := strings.Join(boot.Command, " "); !strings.Contains(cmd, "nats-auth bootstrap -keys-dir /keys -server-dir /nats-auth -agents-dir /agents -agents "+env["BARRAGE_AGENT_SLOTS"]) {
		t.Errorf("nats-auth command %q", cmd)
	}
	if d, ok := p.Services["nats"].DependsOn["nats-auth"]; !ok || d.Condition != types.ServiceConditionCompletedSuccessfully {
		t.Errorf("nats depends_on nats-auth = %+v, want service_completed_successfully", d)
	}
	envOf := func(svc, k string) string {
		if v := p.Services[svc].Environment[k]; v != nil {
			return *v
		}
		return ""
	}
	for svc, want := range map[string]map[string]string{
		"api":   {"NATS_URL": "nats://nats:4222", "BARRAGE_NATS_KEYS": "/keys/nats-keys.json"},
		"agent": {"NATS_URL": "nats://nats:4222", "BARRAGE_AGENT_CREDS_DIR": "/agents"},
	} {
		for k, v := range want {
			if got := envOf(svc, k); got != v {
				t.Errorf("%s %s = %q, want %q", svc, k, got, v)
			}
		}
	}
	if !strings.Contains(mustRead(t, "deploy/nats/nats-operator.conf"), "include auth/barrage-auth.conf") {
		t.Error("nats-operator.conf does not include the trust file nats-auth writes")
	}
	if !strings.Contains(env["POSTGRES_PASSWORD"], "change-me") {
		t.Errorf(".env.example POSTGRES_PASSWORD=%q: want an obvious change-me default", env["POSTGRES_PASSWORD"])
	}
	// Without the secret, compose refuses to start rather than run with an empty password.
	without := maps(env)
	delete(without, "POSTGRES_PASSWORD")
	if _, err := loadCompose(t, without); err == nil || !strings.Contains(err.Error(), "POSTGRES_PASSWORD") {
		t.Errorf("compose without POSTGRES_PASSWORD: err %v, want one naming it", err)
	}
}

func maps(m map[string]string) map[string]string {
	c := make(map[string]string, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// TestEnvExampleComplete: every ${VAR} of docker-compose.yml is set in
// .env.example, and every BARRAGE_* setting of the three binaries is named there.
func TestEnvExampleComplete(t *testing.T) {
	t.Parallel()
	env := exampleEnv(t)
	example := mustRead(t, ".env.example")
	for _, m := range regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)`).FindAllStringSubmatch(mustRead(t, "docker-compose.yml"), -1) {
		if _, ok := env[m[1]]; !ok {
			t.Errorf("docker-compose.yml uses ${%s}, which .env.example does not set", m[1])
		}
	}
	envTag := regexp.MustCompile(`env:"((?:BARRAGE_|DATABASE_|NATS_)[A-Z0-9_]*)"`)
	for _, src := range []string{
		"services/api/internal/app/config.go",
		"services/agent/internal/cli/serve.go",
		"services/echo/internal/app/config.go",
	} {
		names := envTag.FindAllStringSubmatch(mustRead(t, src), -1)
		if len(names) == 0 {
			t.Fatalf("%s: no env tags found; has the config moved?", src)
		}
		for _, m := range names {
			if !regexp.MustCompile(`\b` + m[1] + `\b`).MatchString(example) {
				t.Errorf("%s reads %s; .env.example does not mention it", src, m[1])
			}
		}
	}
	if !strings.Contains(example, "BARRAGE_LOG_FORMAT=") {
		t.Error(".env.example does not set BARRAGE_LOG_FORMAT")
	}
}

// TestComposeBuildsOurImages: api, agent and echo are built from the
// Dockerfiles in deploy/docker, from the repository root.
func TestComposeBuildsOurImages(t *testing.T) {
	t.Parallel()
	p := mustCompose(t)
	for svc, file := range map[string]string{"api": "api", "agent": "agent", "echo": "echo"} {
		b := p.Services[svc].Build
		if b == nil {
			t.Errorf("%s has no build", svc)
			continue
		}
		if want := "deploy/docker/" + file + ".Dockerfile"; b.Dockerfile != want {
			t.Errorf("%s dockerfile %q, want %q", svc, b.Dockerfile, want)
		}
		if abs, _ := filepath.Abs(root); b.Context != abs {
			t.Errorf("%s build context %q, want the repository root", svc, b.Context)
		}
	}
}
