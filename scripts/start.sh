#!/usr/bin/env bash
# `npm start`: the whole service from a fresh clone (after `npm ci`). Starts local PostgreSQL and
# Redis when needed, builds, creates and migrates the database, then runs the API and the worker
# in the foreground with prefixed logs. Ctrl-C stops both.
set -euo pipefail
cd "$(dirname "$0")/.."

# The first run writes a git-ignored .env with development mode and a random JWT secret of this
# machine's own, reused afterwards; nothing secret ships with the code.
if ! grep -qs '^JWT_SECRET=..*' .env; then
  grep -qs '^NODE_ENV=' .env || echo 'NODE_ENV=development' >> .env
  echo "JWT_SECRET=$(node -e "process.stdout.write(require('node:crypto').randomBytes(32).toString('hex'))")" >> .env
  echo "start: wrote a random JWT_SECRET into .env"
fi

# Settings come from the environment; .env fills in what the shell leaves unset, so that a
# variable set in the shell wins (the CLI reads .env by the same rule).
# shellcheck source=scripts/load-env.sh
. scripts/load-env.sh
load_env_file .env

# The two processes write through pipes to the prefixing runner, so they cannot see the
# terminal themselves: ask for readable lines when this script's own output is one.
if [ -t 1 ] && [ -z "${LOG_FORMAT:-}" ]; then export LOG_FORMAT=pretty; fi

bash scripts/services.sh
npm run build
node dist/apps/api/src/cli.js db:prepare

exec node_modules/.bin/concurrently --kill-others --names api,worker --prefix-colors cyan,magenta \
  "npm run --silent start:api" \
  "npm run --silent start:worker"
