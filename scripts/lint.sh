#!/usr/bin/env bash
# npm run lint: ESLint (type-aware, the import rules included), the import rules' own check, the
# type check and the OpenAPI document's tools (npm run lint:openapi). The three long ones run side
# by side, each on a core when one is free; each one's output is shown as it ends, and lint fails
# when any of them does.
set -uo pipefail
cd "$(dirname "$0")/.."

logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

step() {
  local name=$1
  shift
  ("$@" >"$logs/$name" 2>&1; echo $? >"$logs/$name.status") &
}

step eslint npx eslint . --max-warnings 0
step typecheck npm run --silent typecheck
step openapi npm run --silent lint:openapi
node scripts/check-dependencies.mjs && node --test scripts/check-dependencies.test.mjs
status=$?
wait

for name in eslint typecheck openapi; do
  cat "$logs/$name"
  code=$(cat "$logs/$name.status")
  if [ "$code" -ne 0 ]; then
    echo "lint: $name failed" >&2
    status=1
  fi
done
exit "$status"
