#!/usr/bin/env bash
# npm run bench: the services, a fresh build, then the benchmarks on scratch databases.
# BENCH_SCENARIOS picks them: api, delivery, or both (the default), comma-separated.
set -euo pipefail
cd "$(dirname "$0")/.."
scenarios=",${BENCH_SCENARIOS:-api,delivery},"
bash scripts/services.sh
npm run build
# The benchmarks and the processes they compare run compiled, like the service.
rm -rf .bench/dist && npx tsc -p tsconfig.bench.json && npx tsc-alias -p tsconfig.bench.json
if [[ $scenarios == *,api,* ]]; then node .bench/dist/bench/run-bench.js; fi
if [[ $scenarios == *,delivery,* ]]; then node .bench/dist/bench/run-delivery-bench.js; fi
