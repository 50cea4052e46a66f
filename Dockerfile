# syntax=docker/dockerfile:1
# One image for both deployables. `docker run IMAGE api` (default) or `IMAGE worker` brings the
# schema up to date (db:prepare) and starts that process; `IMAGE cli <command>` runs the admin CLI.

FROM node:24-bookworm-slim AS deps
WORKDIR /app
# The SDK is a workspace package: npm ci needs its manifest.
COPY package.json package-lock.json ./
COPY libs/client/package.json ./libs/client/
RUN npm ci --no-audit --no-fund

FROM deps AS build
COPY tsconfig.json tsconfig.build.json ormconfig.ts ./
COPY apps ./apps
COPY libs ./libs
RUN npm run build

FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
COPY libs/client/package.json ./libs/client/
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
# db:prepare takes a PostgreSQL advisory lock, so replicas that start together migrate once.
COPY --chmod=755 <<'EOF' /usr/local/bin/rms
#!/bin/sh
set -e
case "$1" in
  api)
    node dist/apps/api/src/cli.js db:prepare
    # The flags of `npm run start:api` in package.json (docs/decisions.md).
    exec node --max-semi-space-size=32 --max-old-space-size=256 dist/apps/api/src/main.js ;;
  worker)
    node dist/apps/api/src/cli.js db:prepare
    exec node dist/apps/worker/src/main.js ;;
  cli)
    shift
    exec node dist/apps/api/src/cli.js "$@" ;;
  *)
    echo "usage: api | worker | cli <command> [options]" >&2
    exit 64 ;;
esac
EOF
USER node
EXPOSE 3000
ENTRYPOINT ["rms"]
CMD ["api"]
