#!/bin/sh
# The postgres stand-in's entry point (postgres.Dockerfile): as the official
# image's, it makes the cluster on the first start (an empty data directory),
# with POSTGRES_USER (default postgres) as its superuser, POSTGRES_PASSWORD as
# its password and POSTGRES_DB (default: the user's name) as a database, then
# runs the server as `postgres`, listening on every address with passwords
# required over TCP.
set -eu
PGDATA="${PGDATA:-/var/lib/postgresql/data}"
if [ "$(id -u)" = 0 ]; then
  mkdir -p "$PGDATA" /var/run/postgresql
  chown -R postgres:postgres "$PGDATA" /var/run/postgresql
  chmod 700 "$PGDATA"
  exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  : "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD must be set}"
  user="${POSTGRES_USER:-postgres}"
  database="${POSTGRES_DB:-$user}"
  password_file="$(mktemp)"
  printf '%s' "$POSTGRES_PASSWORD" >"$password_file"
  initdb -D "$PGDATA" --username="$user" --pwfile="$password_file" -E UTF8 --locale=C.UTF-8 \
    --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f "$password_file"
  echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
  if [ "$database" != postgres ]; then
    # A server on the socket alone, for this step only.
    pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
    psql -v ON_ERROR_STOP=1 --username="$user" --dbname=postgres -q -c "CREATE DATABASE \"$database\""
    pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
  fi
  echo "postgres-entrypoint: made the cluster (user $user, database $database)"
fi
if [ "${1:-}" = postgres ]; then
  shift
  exec postgres -D "$PGDATA" -c listen_addresses='*' "$@"
fi
exec "$@"
