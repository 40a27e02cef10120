package deploycheck

import (
	"context"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/compose-spec/compose-go/v2/loader"
	"github.com/compose-spec/compose-go/v2/types"
)

// TestDockerfilesBuildOffline: deploy/docker/*.Dockerfile build where no
// registry serves images (CI, scripts/ci-images): no syntax line (BuildKit
// would pull its frontend image), every base image a build argument whose
// default is a public image, and the machine's module proxy and CA bundle
// reach the build stage only as a build argument and a build secret.
func TestDockerfilesBuildOffline(t *testing.T) {
	t.Parallel()
	fromArg := regexp.MustCompile(`^\$\{(\w+)\}(\s+AS\s+\w+)?$`)
	for _, file := range []string{"api", "agent", "echo", "cli"} {
		t.Run(file, func(t *testing.T) {
			t.Parallel()
			src := mustRead(t, "deploy/docker/"+file+".Dockerfile")
			for line := range strings.SplitSeq(src, "\n") {
				if l := strings.ToLower(strings.TrimSpace(line)); strings.HasPrefix(l, "#") &&
					strings.HasPrefix(strings.TrimSpace(strings.TrimPrefix(l, "#")), "syntax") {
					t.Errorf("%q: a syntax line makes BuildKit pull a frontend image", line)
				}
			}
			stageList, args := stages(parseDockerfile(src))
			stagesSoFar := stageNames(stageList)
			for _, st := range stageList {
				if strings.HasPrefix(st[0].args, "scratch ") {
					continue // pulls nothing
				}
				m := fromArg.FindStringSubmatch(st[0].args)
				if len(m) > 1 && stagesSoFar[args[m[1]]] {
					continue // an earlier stage, chosen by a build argument (BINARIES)
				}
				if m == nil {
					t.Errorf("FROM %s: want a base image given as a build argument", st[0].args)
					continue
				}
				if def := args[m[1]]; def == "" || strings.HasPrefix(def, "barrage-ci/") {
					t.Errorf("ARG %s=%q: the default must be the public image users pull", m[1], def)
				}
			}
			downloads := 0
			for _, st := range stageList {
				for _, run := range find(st, "RUN") {
					if !strings.Contains(run, "go mod download") && !strings.Contains(run, "npm ci") {
						continue
					}
					downloads++
					if !strings.Contains(run, "--mount=type=secret,id=ca") {
						t.Errorf("RUN %s: the CA bundle must come as the build secret ca", run)
					}
					want := "GOPROXY"
					if strings.Contains(run, "npm ci") {
						want = "NPM_REGISTRY"
					}
					if !slices.Contains(find(st, "ARG"), want) {
						t.Errorf("the stage of %q declares no ARG %s", run, want)
					}
				}
				for _, kind := range []string{"ENV", "ARG", "COPY"} {
					for _, v := range find(st, kind) {
						if strings.Contains(strings.ToLower(v), "ca-certificates") || strings.Contains(v, "GOPROXY=") {
							t.Errorf("%s %s: the proxy and the CA bundle must not be baked into a stage", kind, v)
						}
					}
				}
			}
			if want := map[string]int{"api": 2, "agent": 1, "echo": 1, "cli": 1}[file]; downloads != want {
				t.Errorf("%d download steps (go mod download, npm ci), want %d", downloads, want)
			}
		})
	}
}

// TestComposeCIOverride: deploy/ci/compose.ci.yml, laid over
// docker-compose.yml by scripts/compose-smoke, leaves no image to pull:
// Postgres and NATS are the images scripts/ci-base-images makes from
// Debian's packages, Barrage's own those scripts/ci-images builds.
func TestComposeCIOverride(t *testing.T) {
	t.Parallel()
	dir, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	env := exampleEnv(t)
	env["BARRAGE_VERSION"] = "ci"
	p, err := loader.LoadWithContext(context.Background(), types.ConfigDetails{
		WorkingDir: dir,
		ConfigFiles: []types.ConfigFile{
			{Filename: filepath.Join(dir, "docker-compose.yml")},
			{Filename: filepath.Join(dir, "deploy", "ci", "compose.ci.yml")},
		},
		Environment: env,
	}, func(o *loader.Options) { o.SetProjectName("barrage-smoke", true) })
	if err != nil {
		t.Fatalf("docker-compose.yml with deploy/ci/compose.ci.yml: %v", err)
	}
	p, err = p.WithProfiles([]string{"*"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"postgres": "barrage-ci/postgres:15", "nats": "barrage-ci/nats:2", "nats-2": "barrage-ci/nats:2", "nats-3": "barrage-ci/nats:2",
		"nats-auth": "barrage/barrage-api:ci", "api": "barrage/barrage-api:ci", "agent": "barrage/barrage-agent:ci", "echo": "barrage/barrage-echo:ci",
	}
	if got := slices.Sorted(slices.Values(p.ServiceNames())); len(got) != len(want) {
		t.Errorf("services %v, want the %d of docker-compose.yml with every profile", got, len(want))
	}
	for name, s := range p.Services {
		if s.Image != want[name] {
			t.Errorf("service %s image %q, want %q", name, s.Image, want[name])
		}
		if s.PullPolicy != types.PullPolicyNever {
			t.Errorf("service %s pull_policy %q, want never", name, s.PullPolicy)
		}
	}
}

// TestCIBaseDockerfiles: the images of deploy/ci start from the Debian image
// scripts/ci-base-images imports, never from a registry.
func TestCIBaseDockerfiles(t *testing.T) {
	t.Parallel()
	for _, file := range []string{"postgres", "nats", "golang", "node"} {
		stageList, args := stages(parseDockerfile(mustRead(t, "deploy/ci/"+file+".Dockerfile")))
		if len(stageList) != 1 || stageList[0][0].args != "${DEBIAN_IMAGE}" || args["DEBIAN_IMAGE"] != "barrage-ci/debian:bookworm" {
			t.Errorf("deploy/ci/%s.Dockerfile: want one stage FROM ${DEBIAN_IMAGE}, default barrage-ci/debian:bookworm", file)
		}
	}
}
