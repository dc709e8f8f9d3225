#!/usr/bin/env bash
# CI's image phase: builds the production image on a base made from Debian's
# and npm's packages (no registry is reachable here), then runs tests/image
# against it: the migration job, two instances behind nginx on PostgreSQL
# with an S3 bucket, everything a person does through the proxy, and one
# instance stopped under a callback storm (topology.test.ts); then
# compose.yaml itself, `docker-compose --profile demo up`, on the simulators
# image and local stand-ins for the registry images it names
# (deploy/local-images/, deploy/compose.local-images.yaml; compose.test.ts).
# See docs/operations.md, "Deploy".
# Installs what a fresh machine lacks (Debian's docker.io, docker-compose,
# debootstrap, nginx) and starts a Docker daemon without a bridge (host
# networking) if none runs.
# Needs root. Prints each step's duration and the image's size.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS=0
step() { echo "--- image: $1: $((SECONDS - started)) s (load average $(cut -d' ' -f1 /proc/loadavg))"; }

missing=()
command -v dockerd >/dev/null || missing+=(docker.io)
command -v docker-compose >/dev/null || missing+=(docker-compose)
command -v debootstrap >/dev/null || missing+=(debootstrap)
command -v nginx >/dev/null || missing+=(nginx)
if [ ${#missing[@]} -gt 0 ]; then
  echo "--- installing ${missing[*]} from Debian's packages"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  # Debian starts nginx on :80 when it installs it: only the tests' own runs.
  service nginx stop >/dev/null 2>&1 || true
fi
# Debian's client beside its daemon (another docker client on PATH may not speak its API).
DOCKER=/usr/bin/docker
[ -x "$DOCKER" ] || DOCKER="$(command -v docker)"
export DOCKER DOCKER_BUILDKIT=1

if ! "$DOCKER" info >/dev/null 2>&1; then
  echo "--- starting dockerd (no bridge, no iptables: containers use the host's network)"
  dockerd --bridge=none --iptables=false --ip-masq=false >"${TMPDIR:-/tmp}/framehook-dockerd.log" 2>&1 &
  for _ in $(seq 1 60); do "$DOCKER" info >/dev/null 2>&1 && break; sleep 1; done
  "$DOCKER" info >/dev/null || { tail -20 "${TMPDIR:-/tmp}/framehook-dockerd.log"; exit 1; }
fi

started=$SECONDS
base="framehook-node:$(node --version | cut -d. -f1 | tr -d v)"
if ! "$DOCKER" image inspect "$base" >/dev/null 2>&1; then
  PATH="$(dirname "$(command -v node)"):$PATH" bash deploy/base-image.sh "$base"
fi
step "base image $base"

started=$SECONDS
# One key for every build on this machine and its instances, as a deploy keeps one (docs/operations.md,
# "The image"): a secret does not change the build's cache key, so a cached build keeps the key it was built with.
key_file="${TMPDIR:-/tmp}/framehook-ci-server-actions-key"
[ -s "$key_file" ] || (umask 077 && openssl rand -base64 32 | tr -d '\n' >"$key_file")
NEXT_SERVER_ACTIONS_ENCRYPTION_KEY="$(cat "$key_file")"
export NEXT_SERVER_ACTIONS_ENCRYPTION_KEY
build_log="$(mktemp)"
trap 'rm -f "$build_log"' EXIT
if ! "$DOCKER" build --progress plain --network host --build-arg BASE_IMAGE="$base" \
  --secret id=server_actions_key,src="$key_file" -t framehook:ci . >"$build_log" 2>&1; then
  tail -60 "$build_log"
  exit 1
fi
size=$("$DOCKER" image inspect framehook:ci --format '{{.Size}}')
base_size=$("$DOCKER" image inspect "$base" --format '{{.Size}}')
step "build framehook:ci ($((size / 1000000)) MB, $(((size - base_size) / 1000000)) MB over its base)"

# compose.yaml's images, built here: the demo's simulators (the deps stage is the build's, cached),
# and stand-ins for the registry's postgres, nginx, SeaweedFS and Mailpit images (deploy/local-images/).
started=$SECONDS
if ! "$DOCKER" build --progress plain --network host --build-arg BASE_IMAGE="$base" \
  --target simulators -t framehook-simulators:ci . >"$build_log" 2>&1; then
  tail -60 "$build_log"
  exit 1
fi
size=$("$DOCKER" image inspect framehook-simulators:ci --format '{{.Size}}')
step "build framehook-simulators:ci ($((size / 1000000)) MB)"
for standin in postgres nginx standins; do
  started=$SECONDS
  if ! "$DOCKER" build --progress plain --network host --build-arg BASE_IMAGE="$base" \
    --build-arg S3RVER_VERSION="$(node -p 'require("./node_modules/s3rver/package.json").version')" \
    --build-arg SMTP_SERVER_VERSION="$(node -p 'require("./node_modules/smtp-server/package.json").version')" \
    -f "deploy/local-images/$standin.Dockerfile" -t "framehook-$standin:ci" deploy/local-images >"$build_log" 2>&1; then
    tail -60 "$build_log"
    exit 1
  fi
  size=$("$DOCKER" image inspect "framehook-$standin:ci" --format '{{.Size}}')
  step "build stand-in framehook-$standin:ci ($((size / 1000000)) MB, $(((size - base_size) / 1000000)) MB over its base)"
done

started=$SECONDS
export FRAMEHOOK_IMAGE=framehook:ci FRAMEHOOK_SIMULATORS_IMAGE=framehook-simulators:ci \
  POSTGRES_IMAGE=framehook-postgres:ci PROXY_IMAGE=framehook-nginx:ci \
  S3_IMAGE=framehook-standins:ci MAIL_IMAGE=framehook-standins:ci
npm run --silent test:image
step "image tests (topology, compose.yaml)"
