#!/usr/bin/env bash
# `npm start`: the whole service from a fresh clone (after `npm ci`). Starts local PostgreSQL and
# Redis when needed, builds, creates and migrates the database, then runs the API and the worker
# in the foreground with prefixed logs. Ctrl-C stops both.
set -euo pipefail
cd "$(dirname "$0")/.."

# Settings come from the environment; a .env file, when present, adds to it.
if [ -f .env ]; then
  set -a
  # shellcheck disable=SC1091
  . ./.env
  set +a
fi

bash scripts/services.sh
npm run build
node dist/apps/api/src/cli.js db:prepare

exec node_modules/.bin/concurrently --kill-others --names api,worker --prefix-colors cyan,magenta \
  "node dist/apps/api/src/main.js" \
  "node dist/apps/worker/src/main.js"
