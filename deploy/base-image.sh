#!/usr/bin/env bash
# Makes a Node base image from Debian's packages and the npm registry alone, for
# machines that reach no container registry: Debian bookworm (debootstrap
# --variant=minbase), Node from the npm registry's `node` package and npm from
# its `npm` package, and an unprivileged `node` user (uid 1000) as in the
# official node images. The Dockerfile takes it as its base:
#   deploy/base-image.sh framehook-node:24
#   docker build --network host --build-arg BASE_IMAGE=framehook-node:24 -t framehook .
# Needs root, debootstrap, npm and a Docker daemon.
set -euo pipefail
image="${1:-framehook-node:24}"
node_version="${NODE_VERSION:-24}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
root="$work/rootfs"

debootstrap --variant=minbase bookworm "$root" >/dev/null

npm install --prefix "$work/npm" --no-audit --no-fund --silent "node@$node_version" npm@11
# The registry's binary carries its debug symbols (about 20 MB): the image does not need them.
install -m 0755 "$(readlink -f "$work/npm/node_modules/.bin/node")" "$root/usr/local/bin/node"
strip --strip-debug "$root/usr/local/bin/node" 2>/dev/null || true
mkdir -p "$root/usr/local/lib/node_modules"
cp -a "$work/npm/node_modules/npm" "$root/usr/local/lib/node_modules/npm"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"

chroot "$root" groupadd --gid 1000 node
chroot "$root" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
# What the image never uses: package lists and archives (a build runs apt-get update), docs, man pages, locales.
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/var/cache/apt/archives/*.deb \
  "$root"/usr/share/doc/* "$root"/usr/share/man/* "$root"/usr/share/info/* "$root"/usr/share/locale/*

# A machine that reaches the npm registry through a TLS-inspecting proxy names its CA in
# NODE_EXTRA_CA_CERTS: builds on this base (npm ci) then trust it too.
extra_ca=()
if [ -n "${NODE_EXTRA_CA_CERTS:-}" ] && [ -f "$NODE_EXTRA_CA_CERTS" ]; then
  install -D -m 0644 "$NODE_EXTRA_CA_CERTS" "$root/usr/local/share/ca-certificates/node-extra-ca.crt"
  extra_ca=(--change 'ENV NODE_EXTRA_CA_CERTS=/usr/local/share/ca-certificates/node-extra-ca.crt')
fi

tar -C "$root" -c . | docker import "${extra_ca[@]}" \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'CMD ["node"]' - "$image" >/dev/null
docker run --rm --network host "$image" node --version >/dev/null
echo "$image: $(docker run --rm --network host "$image" node --version), $(docker image inspect "$image" --format '{{.Size}}' | awk '{printf "%.0f MB", $1/1e6}')"
