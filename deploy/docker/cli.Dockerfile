# barrage-cli: the `barrage` CLI alone, for CI jobs that run a container rather than fetch the
# release archive (docs/ci.md): static, no shell, non-root.
# Build from the repository root: docker build -f deploy/docker/cli.Dockerfile -t barrage-cli .
# `make images` builds all four images: api, agent, echo and cli. Needs BuildKit
# (DOCKER_BUILDKIT=1 or buildx); no frontend image is pulled (no syntax line). The base images
# are build arguments whose defaults are the public images; CI passes local ones made from
# Debian's packages (scripts/ci-images).

ARG GO_IMAGE=golang:1.26
ARG RUNTIME_IMAGE=gcr.io/distroless/static-debian12:nonroot
# Where the binaries come from: "build" (the Go stage below, what users get) or "prebuilt"
# (static binaries built on the host into build/docker/, which CI does: scripts/ci-images).
# Either way they go into the same runtime stage.
ARG BINARIES=build

# --- Go: static, reproducible binary ---------------------------------------
FROM ${GO_IMAGE} AS build
WORKDIR /src
ENV CGO_ENABLED=0 GOFLAGS=-buildvcs=false
COPY go.work go.work.sum ./
COPY pkg/go.mod pkg/go.sum pkg/
COPY proto/go.mod proto/go.sum proto/
COPY migrations/go.mod migrations/
COPY services/api/go.mod services/api/go.sum services/api/
COPY services/agent/go.mod services/agent/go.sum services/agent/
COPY services/echo/go.mod services/echo/go.sum services/echo/
COPY web/go.mod web/
# CI passes the machine's module proxy (GOPROXY) and CA bundle (secret "ca"); neither stays
# in an image. Empty GOPROXY: Go's default.
ARG GOPROXY
RUN --mount=type=secret,id=ca \
    if [ -f /run/secrets/ca ]; then export SSL_CERT_FILE=/run/secrets/ca; fi; go mod download
COPY . .
ARG VERSION=devel
ARG REVISION=unknown
ARG CREATED=1970-01-01T00:00:00Z
RUN --mount=type=cache,target=/root/.cache/go-build \
    go build -trimpath -buildvcs=false \
      -ldflags "-s -w -X github.com/barrage-dev/barrage/pkg/version.stamp=${VERSION} -X github.com/barrage-dev/barrage/pkg/version.commit=${REVISION} -X github.com/barrage-dev/barrage/pkg/version.date=${CREATED}" \
      -o /out/barrage ./services/api/cmd/barrage

# --- binaries built on the host (BINARIES=prebuilt) --------------------------
FROM scratch AS prebuilt
COPY build/docker/barrage /out/

FROM ${BINARIES} AS binaries

# --- runtime ----------------------------------------------------------------
FROM ${RUNTIME_IMAGE}
ARG VERSION=devel
ARG REVISION=unknown
ARG CREATED=1970-01-01T00:00:00Z
LABEL org.opencontainers.image.title="barrage-cli" \
      org.opencontainers.image.description="Barrage CLI: start a load test, follow it and exit with its verdict" \
      org.opencontainers.image.source="https://github.com/barrage-dev/barrage" \
      org.opencontainers.image.url="https://github.com/barrage-dev/barrage" \
      org.opencontainers.image.documentation="https://github.com/barrage-dev/barrage/blob/main/docs/ci.md" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.created="${CREATED}"
COPY --from=binaries /out/barrage /usr/local/bin/barrage
USER nonroot:nonroot
WORKDIR /home/nonroot
ENTRYPOINT ["/usr/local/bin/barrage"]
