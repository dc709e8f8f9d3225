# A stand-in for the official postgres image, made from Debian's `postgresql`
# package for machines that reach no container registry (CI: scripts/image-check.sh
# runs compose.yaml on it). It keeps the official image's interface that
# compose.yaml relies on: POSTGRES_USER, POSTGRES_PASSWORD and POSTGRES_DB make
# the role and database on the first start, the data lives in
# /var/lib/postgresql/data (a volume), the server runs as `postgres`, and
# pg_isready is on PATH for the health check.
#   docker build -f deploy/local-images/postgres.Dockerfile --build-arg BASE_IMAGE=framehook-node:24 \
#     --network host -t framehook-postgres deploy/local-images
ARG BASE_IMAGE=debian:bookworm-slim
FROM ${BASE_IMAGE}
# No cluster made by the package (the entry point makes one in the volume), and no service started
# at install: the build runs on the host's network.
RUN printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d \
 && mkdir -p /etc/postgresql-common && echo 'create_main_cluster = false' > /etc/postgresql-common/createcluster.conf \
 && apt-get update -qq \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql >/dev/null \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin \
 && ln -s /usr/lib/postgresql/*/bin /usr/lib/postgresql/bin \
 && mkdir -p /var/lib/postgresql/data /var/run/postgresql \
 && chown -R postgres:postgres /var/lib/postgresql /var/run/postgresql
ENV PATH=/usr/lib/postgresql/bin:$PATH PGDATA=/var/lib/postgresql/data
COPY postgres-entrypoint.sh /usr/local/bin/postgres-entrypoint
# PostgreSQL's fast shutdown, as the official image.
STOPSIGNAL SIGINT
ENTRYPOINT ["postgres-entrypoint"]
CMD ["postgres"]
