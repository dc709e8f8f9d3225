# The production image: Next's standalone server on Node 24, run as the base
# image's unprivileged `node` user, built for PostgreSQL (the Prisma client is
# compiled into the build for one engine). Stages, named for what they hold:
#   deps     the locked packages (npm ci)
#   build    the app (`npm run build` → .next/standalone)
#   migrate  the migration job as one bundled file (scripts/migrate-job.ts)
#   simulators  (demo only) the gateway and payments simulators
#   runtime  the server, its traced files and the job: what ships
# Build (BuildKit; the key must be the one every instance runs with, and the
# same across deploys, or open tabs' server actions break):
#   NEXT_SERVER_ACTIONS_ENCRYPTION_KEY=$(openssl rand -base64 32) \
#   DOCKER_BUILDKIT=1 docker build --secret id=server_actions_key,env=NEXT_SERVER_ACTIONS_ENCRYPTION_KEY -t framehook .
# Where no registry is reachable, make a base from Debian's and npm's packages
# (deploy/base-image.sh framehook-node:24) and add --build-arg BASE_IMAGE=framehook-node:24 --network host.
# Run: `docker run IMAGE migrate` once per release, then `docker run IMAGE` per instance (docs/operations.md, "Deploy").
ARG BASE_IMAGE=node:24-slim

FROM ${BASE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# No install scripts: the one the app needs (prisma generate) runs in `build`, beside the sources.
RUN npm ci --no-audit --no-fund --ignore-scripts

FROM deps AS build
COPY . .
ENV NEXT_TELEMETRY_DISABLED=1 \
    DATABASE_URL=postgresql://build@localhost/build \
    NEXT_SKIP_TYPECHECK=1
# The key reaches the build as a secret, not a build argument, so that `docker history` never shows it.
# Next writes it into the server's manifest: treat the image as private, and rebuild to rotate it.
# Next also copies the project's .env files into the standalone folder: none ships.
RUN --mount=type=secret,id=server_actions_key \
    test -s /run/secrets/server_actions_key || { echo "build with --secret id=server_actions_key (NEXT_SERVER_ACTIONS_ENCRYPTION_KEY)" >&2; exit 1; }; \
    NEXT_SERVER_ACTIONS_ENCRYPTION_KEY="$(cat /run/secrets/server_actions_key)" npm run build \
 && rm -f .next/standalone/.env .next/standalone/.env.*

FROM deps AS migrate
COPY lib ./lib
COPY scripts ./scripts
COPY tsconfig.json ./
RUN npx esbuild scripts/migrate-job.ts --bundle --platform=node --format=esm --target=node22 \
      --external:pg-native --outfile=/app/migrate/migrate.mjs --log-level=warning \
      --banner:js="import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);"

# Demo only (compose.yaml's `demo` profile): the gateway and payments simulators, run from their sources.
#   docker build --target simulators -t framehook-simulators .
FROM deps AS simulators
COPY tsconfig.json ./
COPY simulator ./simulator
ENV SIMULATOR_HOST=127.0.0.1
USER node
CMD ["node", "--import", "tsx", "simulator/main.ts"]

FROM ${BASE_IMAGE} AS runtime
# Stills of stored videos need FFmpeg; without it the kit shows placeholders (docs/media-toolchain.md).
ARG WITH_FFMPEG=false
RUN if [ "$WITH_FFMPEG" = "true" ]; then \
      apt-get update && apt-get install -y --no-install-recommends ffmpeg && rm -rf /var/lib/apt/lists/*; \
    fi
WORKDIR /app
ENV NODE_ENV=production NEXT_TELEMETRY_DISABLED=1 PORT=3000 HOSTNAME=0.0.0.0 \
    MEDIA_LOCAL_DIR=/app/data/media
COPY --from=build /app/.next/standalone ./
COPY --from=build /app/.next/static ./.next/static
COPY --from=build /app/public ./public
# sharp's native libvips is not in Next's trace (the first upload would fail with ERR_DLOPEN_FAILED).
COPY --from=build /app/node_modules/@img ./node_modules/@img
# /api/ready compares the database's migrations with these.
COPY --from=build /app/prisma/postgres/migrations ./prisma/postgres/migrations
COPY --from=migrate /app/migrate ./migrate
COPY deploy/docker-entrypoint.sh /usr/local/bin/framehook-entrypoint
# The code stays root's and read-only; only data/ (local media, when MEDIA_STORAGE=local) is the app's.
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 3000
# Liveness: /api/health (the database answers). Orchestrators route by /api/ready.
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/api/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"
ENTRYPOINT ["framehook-entrypoint"]
CMD ["node", "server.js"]
