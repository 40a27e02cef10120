# barrage-api: the control plane with the dashboard embedded.
# Build from the repository root: docker build -f deploy/docker/api.Dockerfile -t barrage-api .
# `make images` builds all four images: api, agent, echo and cli. Needs BuildKit
# (DOCKER_BUILDKIT=1 or buildx); no frontend image is pulled (no syntax line). The base images
# are build arguments whose defaults are the public images; CI passes local ones made from
# Debian's packages (scripts/ci-images).

ARG GO_IMAGE=golang:1.26
ARG NODE_IMAGE=node:20
ARG RUNTIME_IMAGE=gcr.io/distroless/static-debian12:nonroot
# Where the binaries come from: "build" (the Go stage below, what users get) or "prebuilt"
# (static binaries built on the host into build/docker/, which CI does: scripts/ci-images).
# Either way they go into the same runtime stage.
ARG BINARIES=build

# --- dashboard: web/dist ---------------------------------------------------
FROM ${NODE_IMAGE} AS web
WORKDIR /src/web
COPY web/package.json web/package-lock.json ./
# CI passes the machine's npm registry (NPM_REGISTRY) and CA bundle (secret "ca"); neither
# stays in an image. Empty NPM_REGISTRY: npm's default.
ARG NPM_REGISTRY
RUN --mount=type=secret,id=ca --mount=type=cache,target=/root/.npm \
    if [ -f /run/secrets/ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/ca; fi; \
    if [ -n "$NPM_REGISTRY" ]; then export npm_config_registry="$NPM_REGISTRY"; fi; \
    npm ci --no-audit --no-fund
COPY web/ ./
RUN npm run build

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
COPY --from=web /src/web/dist/ web/dist/
ARG VERSION=devel
ARG REVISION=unknown
ARG CREATED=1970-01-01T00:00:00Z
RUN --mount=type=cache,target=/root/.cache/go-build \
    go build -trimpath -buildvcs=false \
      -ldflags "-s -w -X github.com/barrage-dev/barrage/pkg/version.stamp=${VERSION} -X github.com/barrage-dev/barrage/pkg/version.commit=${REVISION} -X github.com/barrage-dev/barrage/pkg/version.date=${CREATED}" \
      -o /out/barrage-api ./services/api/cmd/barrage-api && \
    go build -trimpath -buildvcs=false \
      -ldflags "-s -w -X github.com/barrage-dev/barrage/pkg/version.stamp=${VERSION} -X github.com/barrage-dev/barrage/pkg/version.commit=${REVISION} -X github.com/barrage-dev/barrage/pkg/version.date=${CREATED}" \
      -o /out/barrage ./services/api/cmd/barrage

# --- binaries built on the host (BINARIES=prebuilt) --------------------------
FROM scratch AS prebuilt
COPY build/docker/barrage-api build/docker/barrage /out/

FROM ${BINARIES} AS binaries

# --- runtime ----------------------------------------------------------------
FROM ${RUNTIME_IMAGE}
ARG VERSION=devel
ARG REVISION=unknown
ARG CREATED=1970-01-01T00:00:00Z
LABEL org.opencontainers.image.title="barrage-api" \
      org.opencontainers.image.description="Barrage control plane: REST API, SSE, dashboard, scheduler and ingest" \
      org.opencontainers.image.source="https://github.com/barrage-dev/barrage" \
      org.opencontainers.image.url="https://github.com/barrage-dev/barrage" \
      org.opencontainers.image.documentation="https://github.com/barrage-dev/barrage#full-stack-with-docker-compose" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.created="${CREATED}"
COPY --from=binaries /out/barrage-api /out/barrage /usr/local/bin/
USER nonroot:nonroot
WORKDIR /home/nonroot
EXPOSE 8080
ENV BARRAGE_LISTEN=:8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["/usr/local/bin/barrage-api", "healthcheck"]
ENTRYPOINT ["/usr/local/bin/barrage-api"]
CMD ["serve"]
