package deploycheck

import (
	"regexp"
	"strings"
	"testing"
)

// instruction is one Dockerfile instruction with its continuation lines joined.
type instruction struct {
	cmd  string // upper case: FROM, RUN, ...
	args string
}

// parseDockerfile splits a Dockerfile into instructions (enough of the
// grammar for our files: comments, backslash continuations).
func parseDockerfile(src string) []instruction {
	var out []instruction
	var cur strings.Builder
	flush := func() {
		line := strings.TrimSpace(cur.String())
		cur.Reset()
		if line == "" {
			return
		}
		cmd, args, _ := strings.Cut(line, " ")
		out = append(out, instruction{cmd: strings.ToUpper(cmd), args: strings.TrimSpace(args)})
	}
	for line := range strings.SplitSeq(src, "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "#") {
			continue
		}
		if strings.HasSuffix(trimmed, "\\") {
			cur.WriteString(strings.TrimSuffix(trimmed, "\\") + " ")
			continue
		}
		cur.WriteString(trimmed)
		flush()
	}
	flush()
	return out
}

// stages returns the instructions of each build stage; args holds the
// defaults of the ARGs declared before the first FROM.
func stages(ins []instruction) (stageList [][]instruction, args map[string]string) {
	args = map[string]string{}
	for _, in := range ins {
		switch {
		case in.cmd == "FROM":
			stageList = append(stageList, []instruction{in})
		case len(stageList) == 0 && in.cmd == "ARG":
			if k, v, ok := strings.Cut(in.args, "="); ok {
				args[k] = v
			}
		case len(stageList) > 0:
			stageList[len(stageList)-1] = append(stageList[len(stageList)-1], in)
		}
	}
	return stageList, args
}

func find(stage []instruction, cmd string) []string {
	var out []string
	for _, in := range stage {
		if in.cmd == cmd {
			out = append(out, in.args)
		}
	}
	return out
}

func TestDockerfiles(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file, binary string
		web          bool // builds the dashboard in a node stage first
		command      bool // a command, not a service: no HEALTHCHECK
	}{
		{file: "api", binary: "barrage-api", web: true},
		{file: "agent", binary: "barrage-agent"},
		{file: "echo", binary: "barrage-echo"},
		{file: "cli", binary: "barrage", command: true},
	}
	argRef := regexp.MustCompile(`\$\{(\w+)\}`)
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			stageList, args := stages(parseDockerfile(mustRead(t, "deploy/docker/"+tt.file+".Dockerfile")))
			if len(stageList) < 2 {
				t.Fatalf("%d stages, want a multi-stage build", len(stageList))
			}
			// Every base image has a pinned tag, never latest.
			// scratch and earlier stages (FROM ${BINARIES} AS binaries) pull nothing.
			var images []string
			named := stageNames(stageList)
			named["scratch"] = true
			for _, st := range stageList {
				ref, _, _ := strings.Cut(st[0].args, " ")
				ref = argRef.ReplaceAllStringFunc(ref, func(m string) string { return args[argRef.FindStringSubmatch(m)[1]] })
				if named[ref] {
					continue
				}
				images = append(images, ref)
				name := ref[strings.LastIndex(ref, "/")+1:]
				if _, tag, ok := strings.Cut(name, ":"); !ok || tag == "" || tag == "latest" {
					t.Errorf("FROM %s: want a pinned tag, not latest", ref)
				}
			}
			if final := images[len(images)-1]; final != "gcr.io/distroless/static-debian12:nonroot" {
				t.Errorf("runtime image %s, want gcr.io/distroless/static-debian12:nonroot", final)
			}
			final := stageList[len(stageList)-1]
			if users := find(final, "USER"); len(users) != 1 || !strings.HasPrefix(users[0], "nonroot") {
				t.Errorf("runtime USER %v, want nonroot", users)
			}
			hc := find(final, "HEALTHCHECK")
			if tt.command {
				if len(hc) != 0 {
					t.Errorf("HEALTHCHECK %v on a command's image", hc)
				}
			} else if len(hc) != 1 || !strings.Contains(hc[0], `CMD ["/usr/local/bin/`+tt.binary+`", "healthcheck"]`) {
				t.Errorf("HEALTHCHECK %v, want the exec form of %s healthcheck (no shell in distroless)", hc, tt.binary)
			}
			if ep := find(final, "ENTRYPOINT"); len(ep) != 1 || !strings.HasPrefix(ep[0], `["/usr/local/bin/`+tt.binary+`"`) {
				t.Errorf("ENTRYPOINT %v, want the exec form of %s", ep, tt.binary)
			}
			labels := strings.Join(find(final, "LABEL"), " ")
			for _, k := range []string{"title", "description", "source", "version", "revision", "created"} {
				if !strings.Contains(labels, "org.opencontainers.image."+k+"=") {
					t.Errorf("no org.opencontainers.image.%s label", k)
				}
			}
			checkGoStage(t, stageList, tt.binary)
			if tt.web {
				checkWebStage(t, stageList, images)
			}
		})
	}
}

// checkGoStage: the Go stage builds a static, reproducible, version-stamped binary.
func checkGoStage(t *testing.T, stageList [][]instruction, binary string) {
	t.Helper()
	for _, st := range stageList {
		for _, run := range find(st, "RUN") {
			if !strings.Contains(run, "go build") || !strings.Contains(run, "/"+binary+" ") {
				continue
			}
			for _, want := range []string{"-trimpath", "-buildvcs=false", "-X github.com/barrage-dev/barrage/pkg/version.stamp=${VERSION}"} {
				if !strings.Contains(run, want) {
					t.Errorf("go build of %s lacks %s", binary, want)
				}
			}
			if env := strings.Join(find(st, "ENV"), " "); !strings.Contains(env, "CGO_ENABLED=0") {
				t.Errorf("the Go stage does not set CGO_ENABLED=0 (ENV %q)", env)
			}
			return
		}
	}
	t.Errorf("no stage runs go build for %s", binary)
}

// checkWebStage: the dashboard is built with npm ci in a node stage and
// copied into web/dist before go build embeds it.
func checkWebStage(t *testing.T, stageList [][]instruction, images []string) {
	t.Helper()
	runs := strings.Join(find(stageList[0], "RUN"), "\n")
	if !strings.HasPrefix(images[0], "node:") || !strings.Contains(runs, "npm ci") || !strings.Contains(runs, "npm run build") {
		t.Errorf("first stage %s runs %q, want node with npm ci and npm run build", images[0], runs)
	}
	copied := false
	for _, c := range find(stageList[1], "COPY") {
		copied = copied || (strings.HasPrefix(c, "--from=web") && strings.HasSuffix(c, "web/dist/"))
	}
	if !copied {
		t.Error("the Go stage does not COPY --from=web the built dashboard into web/dist/")
	}
}

func TestDockerignore(t *testing.T) {
	t.Parallel()
	ignored := map[string]bool{}
	for line := range strings.SplitSeq(mustRead(t, ".dockerignore"), "\n") {
		ignored[strings.TrimSpace(line)] = true
	}
	for _, p := range []string{".git", ".env", ".tools", "bin", "web/node_modules", "web/dist"} {
		if !ignored[p] {
			t.Errorf(".dockerignore does not exclude %s", p)
		}
	}
}

// stageNames returns the names (FROM ... AS name) of a Dockerfile's stages.
func stageNames(stageList [][]instruction) map[string]bool {
	names := map[string]bool{}
	for _, st := range stageList {
		if f := strings.Fields(st[0].args); len(f) == 3 && strings.EqualFold(f[1], "AS") {
			names[f[2]] = true
		}
	}
	return names
}
