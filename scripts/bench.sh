#!/usr/bin/env bash
# npm run bench: the services, a fresh build, then the benchmarks on scratch databases.
# BENCH_SCENARIOS picks them: api, delivery, or both (the default), comma-separated.
set -euo pipefail
cd "$(dirname "$0")/.."
scenarios=",${BENCH_SCENARIOS:-api,delivery},"
bash scripts/services.sh
npm run build
run_ts() { node -r ts-node/register/transpile-only -r tsconfig-paths/register "$@"; }
if [[ $scenarios == *,api,* ]]; then run_ts bench/run-bench.ts; fi
if [[ $scenarios == *,delivery,* ]]; then run_ts bench/run-delivery-bench.ts; fi
