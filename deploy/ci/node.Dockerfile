# CI only: a Node.js base for the dashboard stage of deploy/docker/api.Dockerfile without
# node:20: Debian (barrage-ci/debian) plus this machine's node and npm (the nodejs package's
# files). scripts/ci-base-images sends this file and usr/ as the build context.
ARG DEBIAN_IMAGE=barrage-ci/debian:bookworm
FROM ${DEBIAN_IMAGE}
COPY usr /usr
RUN ln -sf ../lib/node_modules/npm/bin/npm-cli.js /usr/bin/npm && \
    ln -sf ../lib/node_modules/npm/bin/npx-cli.js /usr/bin/npx && node --version && npm --version
