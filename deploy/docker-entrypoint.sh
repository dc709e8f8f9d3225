#!/bin/sh
# The image's entry point: `migrate` runs the one-shot migration job; anything
# else is run as given (by default the standalone server, `node server.js`).
set -e
if [ "$1" = "migrate" ]; then
  shift
  exec node /app/migrate/migrate.mjs "$@"
fi
exec "$@"
