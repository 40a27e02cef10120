# CI only: nats-server from Debian's nats-server package (and wget for the Compose file's
# healthcheck), for the compose smoke (scripts/ci-base-images builds it;
# deploy/ci/compose.ci.yml puts it in place of nats:2.10-alpine).
ARG DEBIAN_IMAGE=barrage-ci/debian:bookworm
FROM ${DEBIAN_IMAGE}
RUN ln -s /usr/sbin/nats-server /usr/local/bin/nats-server && mkdir -p /data /etc/nats
EXPOSE 4222 8222
CMD ["nats-server", "-c", "/etc/nats/nats.conf"]
