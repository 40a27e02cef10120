# CI only: Postgres 15 from Debian's postgresql-15, for the compose smoke (scripts/ci-base-images
# builds it; deploy/ci/compose.ci.yml puts it in place of postgres:15). Takes the official
# image's POSTGRES_USER, POSTGRES_PASSWORD and POSTGRES_DB and its data directory.
ARG DEBIAN_IMAGE=barrage-ci/debian:bookworm
FROM ${DEBIAN_IMAGE}
ENV PGDATA=/var/lib/postgresql/data
# The data directory belongs to postgres in the image, so that a new volume mounted there
# does too (Docker copies the image's directory into an empty named volume).
RUN mkdir -p "$PGDATA" && chown postgres:postgres "$PGDATA" && chmod 700 "$PGDATA"
COPY deploy/ci/postgres-entrypoint /usr/local/bin/postgres-entrypoint
USER postgres
EXPOSE 5432
STOPSIGNAL SIGINT
ENTRYPOINT ["/usr/local/bin/postgres-entrypoint"]
