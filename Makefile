# Barrage build, test and tooling entry points. `make help` lists the targets.

SHELL := /usr/bin/env bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

ROOT        := $(abspath .)
TOOLS_BIN   := $(ROOT)/.tools/bin
export PATH := $(TOOLS_BIN):$(PATH)

GO_MODULES  := pkg proto migrations services/api services/agent services/echo web
GO_PKGS     := $(foreach m,$(GO_MODULES),./$(m)/...)

# Pinned tool versions (bump deliberately; `make proto` output depends on the generators).
PROTOC_GEN_GO_VERSION      := v1.36.12
PROTOC_GEN_GO_GRPC_VERSION := v1.6.2
STATICCHECK_VERSION        := v0.8.2
GOLANGCI_LINT_VERSION      := v2.15.0
FORTIO_VERSION             := v1.68.2
OAPI_CODEGEN_VERSION       := v2.8.2
# Redocly CLI (npm) that `make api-lint` runs through npx.
REDOCLY_VERSION            := 2.77.0
HELM_VERSION               := v3.19.5
KUBECONFORM_VERSION        := v0.8.0
GORELEASER_VERSION         := v2.15.1
CYCLONEDX_GOMOD_VERSION    := v1.10.0
# Docker Compose v2, built from its Go module into ~/.docker/cli-plugins (scripts/install-compose).
COMPOSE_VERSION            := v2.40.3
# Kubernetes whose OpenAPI the chart is validated against (k8s.io/kubernetes from the Go module proxy).
K8S_VERSION                := v1.34.2
K8S_SCHEMAS                := $(ROOT)/.tools/k8s-schemas/$(K8S_VERSION)

# Images (`make images`): <IMAGE_PREFIX>/barrage-{api,agent,echo,cli}:<IMAGE_TAG>.
IMAGE_PREFIX ?= barrage
VERSION      ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
IMAGE_TAG    ?= $(VERSION)

# `make fuzz` runs every fuzz target for FUZZTIME each (60 s: issue #10's bar, 31 targets
# ≈ 31 min); `make test` runs the same sweep for FUZZTIME_CI each (3 s: ≈ 1.5 min of fuzzing
# plus one instrumented build per package, within CI's budget).
FUZZTIME ?= 60s
FUZZTIME_CI ?= 3s
TEST_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable
export TEST_DATABASE_URL

.PHONY: help
help: ## List targets.
	@grep -hE '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-12s %s\n", $$1, $$2}'

.PHONY: tools
tools: ## Install pinned tool versions into ./.tools/bin (make test runs it; a second run takes 0.3 s).
	@mkdir -p $(TOOLS_BIN)
	@scripts/install-tool google.golang.org/protobuf/cmd/protoc-gen-go $(PROTOC_GEN_GO_VERSION)
	@scripts/install-tool google.golang.org/grpc/cmd/protoc-gen-go-grpc $(PROTOC_GEN_GO_GRPC_VERSION)
	@scripts/install-tool honnef.co/go/tools/cmd/staticcheck $(STATICCHECK_VERSION)
	@scripts/install-tool github.com/golangci/golangci-lint/v2/cmd/golangci-lint $(GOLANGCI_LINT_VERSION)
	@scripts/install-tool fortio.org/fortio $(FORTIO_VERSION)
	@scripts/install-tool github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen $(OAPI_CODEGEN_VERSION)
	@scripts/install-tool helm.sh/helm/v3/cmd/helm $(HELM_VERSION)
	@scripts/install-tool github.com/yannh/kubeconform/cmd/kubeconform $(KUBECONFORM_VERSION)
	@[[ -f $(K8S_SCHEMAS)/.done ]] || { scripts/k8s-schemas $(K8S_VERSION) $(K8S_SCHEMAS) && touch $(K8S_SCHEMAS)/.done; }

.PHONY: release-tools
release-tools: ## Install pinned goreleaser and cyclonedx-gomod into ./.tools/bin (release-check and release-snapshot run it first).
	@mkdir -p $(TOOLS_BIN)
	@scripts/install-tool github.com/goreleaser/goreleaser/v2 $(GORELEASER_VERSION)
	@scripts/install-tool github.com/CycloneDX/cyclonedx-gomod/cmd/cyclonedx-gomod $(CYCLONEDX_GOMOD_VERSION)

WEB_DEPS := web/node_modules/.package-lock.json

$(WEB_DEPS): web/package-lock.json
	cd web && npm ci --no-audit --no-fund

# The dashboard's build is a file target: vite empties web/dist before it writes, so a second
# build while a go build embeds web/dist (goreleaser's hook beside scripts/ci-images in
# release-and-images) would break that build. Built once, it is left alone until a source changes.
WEB_SRC := $(shell find web/src web/public -type f 2>/dev/null) web/index.html web/vite.config.ts web/tsconfig.json web/package.json

web/dist/index.html: $(WEB_DEPS) $(WEB_SRC)
	cd web && npm run build

.PHONY: web
web: web/dist/index.html ## Build the dashboard into web/dist (barrage-api embeds it) when a source is newer than the build.

.PHONY: build
# Every build of a Barrage program takes the flags of the images and the release, static and
# -trimpath (pkg/gobuild for the tests' own builds), so that make test compiles each package
# once for them all.
build: web ## Build the dashboard and every binary into ./bin (static, -trimpath, as the images and archives).
	@mkdir -p bin
	CGO_ENABLED=0 go build -trimpath -o bin/ ./services/echo/cmd/barrage-echo ./services/agent/cmd/barrage-agent ./services/api/cmd/barrage-api ./services/api/cmd/barrage

.PHONY: run
run: build ## Run Barrage locally: barrage-api -all-in-one (embedded NATS, one agent, echo) on the local Postgres.
	scripts/run-local

.PHONY: proto
proto: ## Regenerate Go code from proto/ sources.
	scripts/protogen proto

.PHONY: proto-check
proto-check: ## Fail if committed generated code differs from `make proto` output.
	scripts/protogen --check proto

.PHONY: api
api: ## Regenerate the gin strict server and the Go client from services/api/openapi.yaml.
	scripts/apigen

.PHONY: api-check
api-check: ## Fail if the generated API server or client differs from `make api` output.
	scripts/apigen --check

.PHONY: api-lint
api-lint: ## Lint services/api/openapi.yaml with Redocly CLI's recommended rules, warnings failing.
	cd services/api && REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true \
	  npx --yes @redocly/cli@$(REDOCLY_VERSION) lint --config redocly.yaml openapi.yaml

.PHONY: fmt-check
fmt-check: ## Fail if any Go file needs gofmt.
	@out=$$(find $(GO_MODULES) -name node_modules -prune -o -name '*.go' -print | xargs gofmt -l); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

# go vet compiles the packages it checks: with make build's flags (pkg/gobuild) it finds them
# in the build cache, where with cgo and full paths it compiled them all again (94 s against
# 261 s after a cold make build on a 2.1 GHz EPYC).
vet staticcheck lint: export CGO_ENABLED := 0
vet staticcheck lint: export GOFLAGS := -trimpath

.PHONY: vet
vet: ## go vet every module.
	go vet -tags accuracy,faults,soak,killcampaign,verdictsbench,lifecyclebench $(GO_PKGS)

.PHONY: staticcheck
staticcheck: ## staticcheck every module.
	staticcheck -tags accuracy,faults,soak,killcampaign,verdictsbench,lifecyclebench $(GO_PKGS)

# golangci-lint's staticcheck linter runs every check the staticcheck command does by default
# (and ST1023), so lint leaves the command out (79 s); make staticcheck still runs it alone.
.PHONY: lint
lint: fmt-check vet ## gofmt, go vet and golangci-lint (whose standard set includes staticcheck).
	for m in $(GO_MODULES); do \
	  if [ -n "$$(find $$m -name '*.go' -print -quit)" ]; then (cd $$m && golangci-lint run --build-tags accuracy,faults,soak,killcampaign,verdictsbench,lifecyclebench --config $(ROOT)/.golangci.yml ./...); fi; \
	done

.PHONY: unit
# TIMED_TESTS are the app tests that judge rates and latencies measured on this
# machine: capacity searches against the echo's saturation model, and per-second
# counts of a stepped run. make test runs them alone (unit-timed), after the lane
# that runs the unit tests beside the fault suite and the image builds: that load
# starved their load generator in two clean-clone runs on a 2.1 GHz EPYC (24 qps
# steps achieving 0 to 18.5 qps), while alone they passed in 2 min.
TIMED_TESTS := ^(TestSearchFindsTheKnee|TestSearchFindsTheKneeOverEachProtocol|TestStepsAcrossTwoAgents)$$

unit: ## go test -race over every module but TIMED_TESTS (the app package, the longest, listed first so that it starts first; about 15 min on a 2.5 GHz Xeon, over 23 on a 2.1 GHz EPYC beside the fault suite).
	go test -race -count=1 -timeout 40m -skip '$(TIMED_TESTS)' ./services/api/internal/app/ $(GO_PKGS)

.PHONY: unit-timed
unit-timed: ## The app tests of TIMED_TESTS, alone on the machine (part of make test, after unit-and-faults).
	go test -race -count=1 -timeout 10m -run '$(TIMED_TESTS)' ./services/api/internal/app/

.PHONY: accuracy
accuracy: ## Agent accuracy tests against the real barrage-echo (serial, no -race).
	go test -count=1 -p 1 -tags accuracy ./services/agent/internal/accuracy/

.PHONY: faults
faults: ## Fault-injection suite: API, agents, echo, nats-server and a Postgres cluster as separate processes (FAULTS_OUTAGE, default 30s).
	cd services/api && go test -count=1 -p 1 -timeout 30m -tags faults ./internal/faultsuite/

.PHONY: faults-cluster
faults-cluster: ## Only the fault suite's NATS cluster scenarios (three nats-servers; also in make faults), about 3 min.
	cd services/api && go test -count=1 -p 1 -timeout 10m -tags faults -run 'TestNATSCluster|TestAPIStartsBeforeNATSClusterQuorum' ./internal/faultsuite/

.PHONY: faults-kill-campaign
faults-kill-campaign: ## Not in make test: section 9's campaign of docs/reliability.md, a kill -9 of a NATS cluster node then a run, FAULTS_KILL_TRIES times (default 12, about 6 min); bench/results/kill-campaign-DATE.md.
	bench/kill-campaign

.PHONY: soak
soak: ## Soak and scale (not in make test): a long 5k qps run, 200 SSE subscribers, 50 concurrent runs, 1M stored runs; SOAK_DURATION (default 30m), SOAK_RUNS (default 1000000).
	bench/soak

.PHONY: fuzz
fuzz: ## Every fuzz target for FUZZTIME each (default 60s).
	scripts/fuzz-all $(FUZZTIME) $(GO_MODULES)

.PHONY: fuzz-short
fuzz-short: ## Every fuzz target for FUZZTIME_CI each (default 3s); not in make test, whose unit tests run every target's seed corpus.
	scripts/fuzz-all $(FUZZTIME_CI) $(GO_MODULES)

.PHONY: web-check
web-check: $(WEB_DEPS) ## Dashboard: API types fresh, tsc, eslint, Vitest.
	cd web && npx openapi-typescript ../services/api/openapi.yaml --default-non-nullable false -o /tmp/barrage-api-schema.d.ts >/dev/null && \
	  { diff -q src/lib/api-schema.d.ts /tmp/barrage-api-schema.d.ts || { echo "web/src/lib/api-schema.d.ts is stale: run npm run gen:api in web/"; exit 1; }; }
	cd web && npx tsc -b && npx eslint --max-warnings 0 . && npx vitest run

.PHONY: e2e
e2e: build ## Dashboard end-to-end in headless Chromium against all-in-one stacks (web/e2e): the main specs then the audit spec, with the specs tagged @own-stack beside them on a stack of their own.
	scripts/beside e2e-own -- $(MAKE) --no-print-directory e2e-main

.PHONY: e2e-main
e2e-main: ## The main e2e specs, then the audit spec on a fresh stack (make e2e; needs make build).
	cd web && npx playwright test --grep-invert 'filter and page the audit log|@own-stack'
	# The audit spec counts the default project's tokens and entries from empty, as the
	# other specs count its runs and tokens: it gets its own stack and database.
	cd web && E2E_DB=barrage_e2e_audit npx playwright test e2e/audit.spec.ts

.PHONY: e2e-own
e2e-own: ## The e2e specs tagged @own-stack, which fill the default project with runs, a test, a search, tokens and a user: their own stack on ports 18400-18405 and database (make e2e; needs make build).
	cd web && E2E_PORT=18400 E2E_DB=barrage_e2e_own npx playwright test --grep @own-stack --output test-results-own

HELM_CHART := deploy/helm/barrage
KUBECONFORM := kubeconform -strict -summary -schema-location '$(K8S_SCHEMAS)/{{ .ResourceKind }}{{ .KindSuffix }}.json'

.PHONY: deploy-check
deploy-check: ## Helm chart: helm lint, then helm template | kubeconform -strict on offline Kubernetes schemas.
	@[[ -f $(K8S_SCHEMAS)/.done ]] || { echo "deploy-check: no Kubernetes $(K8S_VERSION) schemas in $(K8S_SCHEMAS): run make tools"; exit 1; }
	helm lint --strict $(HELM_CHART) -f $(HELM_CHART)/ci/test-values.yaml
	helm template barrage $(HELM_CHART) --kube-version $(K8S_VERSION) -f $(HELM_CHART)/ci/test-values.yaml | $(KUBECONFORM) -
	helm template barrage $(HELM_CHART) --kube-version $(K8S_VERSION) -f $(HELM_CHART)/ci/test-values.yaml \
	  --set agent.autoscaling.enabled=false,ingress.enabled=false,echo.enabled=false,networkPolicy.enabled=false,existingSecret=barrage-credentials | $(KUBECONFORM) -
	helm template barrage $(HELM_CHART) --kube-version $(K8S_VERSION) -f $(HELM_CHART)/ci/test-values.yaml \
	  --set nats.insecureSharedAgentUser=true,nats.apiPassword=change-me-api,nats.agentPassword=change-me-agent | $(KUBECONFORM) -

.PHONY: images
images: ## Build the four container images, barrage-{api,agent,echo,cli} (needs a Docker engine with BuildKit): IMAGE_PREFIX, IMAGE_TAG, VERSION.
	for c in api agent echo cli; do \
	  DOCKER_BUILDKIT=1 docker build -f deploy/docker/$$c.Dockerfile -t $(IMAGE_PREFIX)/barrage-$$c:$(IMAGE_TAG) \
	    --build-arg VERSION=$(VERSION) --build-arg REVISION=$$(git rev-parse HEAD 2>/dev/null || echo unknown) \
	    --build-arg CREATED=$$(git log -1 --format=%cI 2>/dev/null || echo 1970-01-01T00:00:00Z) . ; \
	done

.PHONY: compose-tools
compose-tools: ## Build the Compose v2 plugin into ~/.docker/cli-plugins (from the Go module proxy; quick when present).
	@scripts/install-compose $(COMPOSE_VERSION)

.PHONY: compose-smoke
compose-smoke: compose-tools ## The Compose stack for real (part of make test; needs a Docker engine, root): images, up with 3 agents, runs through the API with an agent killed and the API restarted, down -v.
	scripts/compose-smoke

.PHONY: unit-and-faults
unit-and-faults: ## make unit with faults-and-images beside it (part of make test): the unit tests mostly wait on runs, the fault suite on outages and deadlines, and the images' builds take the CPU left idle (nice 19).
	scripts/beside faults-and-images -- $(MAKE) --no-print-directory unit

.PHONY: faults-and-images
faults-and-images: ## make faults with images-and-release-tools beside it at nice 19 (the Compose plugin, the base images and the four images that compose-smoke then finds built, then goreleaser and cyclonedx-gomod for release-check).
	scripts/beside --nice images-and-release-tools -- $(MAKE) --no-print-directory faults

# release-check's tools are built from source (about 7.5 min in a clean-clone CI, where they
# were built beside compose-smoke): the nice lane builds them while the unit tests wait on runs.
.PHONY: images-and-release-tools
images-and-release-tools: compose-images release-tools ## compose-images, then release-tools (the nice lane of faults-and-images).

.PHONY: checks
checks: lint proto-check api-check api-lint doc-check web-check deploy-check ## The static checks make test runs first: lint, generated code fresh, API lint, docs, the dashboard's tsc, eslint and Vitest, the Helm chart.

.PHONY: release-and-compose
release-and-compose: ## make compose-smoke with release-check beside it (part of make test, RELEASE_SCOPE=ci): the smoke waits on containers while goreleaser's cross builds use the CPU.
	$(MAKE) --no-print-directory web
	RELEASE_SCOPE=ci scripts/beside release-check -- $(MAKE) --no-print-directory compose-smoke

.PHONY: compose-images
compose-images: compose-tools ## The Compose plugin, the local base images and the four images as compose-smoke builds them (scripts/ci-images).
	scripts/ci-images

.PHONY: release-snapshot
release-snapshot: release-tools ## Release archives of the four binaries for six platforms, checksums and SBOMs into dist/, published nowhere (goreleaser).
	RELEASE_BUILD_ONLY=1 scripts/release-check

.PHONY: release-check
release-check: release-tools ## goreleaser check, a snapshot release, and checks of its archives, checksums, SBOMs and the CLI's version (part of make test). make test runs it with RELEASE_SCOPE=ci: the CLI for six platforms, the servers for linux amd64.
	scripts/release-check

.PHONY: doc-check
doc-check: ## Fail when a doc quotes a figure its linked bench/results file does not hold, or docs/architecture.md names a path that does not exist.
	scripts/check-doc-figures
	scripts/check-doc-paths

.PHONY: test
test: tools checks unit-and-faults unit-timed accuracy e2e release-and-compose ## Everything CI runs.

.PHONY: bench
bench: build ## Benchmarks against fortio (about 15 min on a quiet machine); figures go to bench/results/.
	bench/all

.PHONY: bench-verdicts
bench-verdicts: ## Optional: the A/A and A/B campaigns of docs/verdicts.md on the real stack (about 20 min); bench/results/verdicts-DATE.md.
	bench/verdicts
