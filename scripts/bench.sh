#!/usr/bin/env bash
# npm run bench: the services, a fresh build, then the benchmark on a scratch database.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/services.sh
npm run build
exec node -r ts-node/register/transpile-only -r tsconfig-paths/register bench/run-bench.ts
