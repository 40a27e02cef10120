# CI only: a Go build base, Debian (barrage-ci/debian) plus the machine's own Go tree, for
# building deploy/docker/*.Dockerfile from source without golang:1.26. scripts/ci-base-images
# sends this file and the Go tree (as go/) as the build context.
ARG DEBIAN_IMAGE=barrage-ci/debian:bookworm
FROM ${DEBIAN_IMAGE}
COPY go /usr/local/go
ENV PATH=/usr/local/go/bin:/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    GOPATH=/go GOTOOLCHAIN=local
WORKDIR /go
