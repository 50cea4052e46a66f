#!/usr/bin/env bash
# npm run bench: the services, a fresh build, then the benchmarks on scratch databases.
# BENCH_SCENARIOS picks them, comma-separated: api and delivery (the default), soak (10 minutes
# of mixed load, memory per minute), scale (10,000,000 rows beside 100,000), replicas (by id through
# HAProxy with one and two API replicas, and during a rolling restart), tracing (the API scenario's
# tracing rows alone: a read by id with tracing off, on at 100% and at 10% sampling, a second
# process with tracing off, the run's noise, and the floor recording the same spans through the SDK
# at both ratios), credentials (the API scenario's credential rows alone: a read by id without
# authentication, with each credential, with and without the rate limit, and the floor with and
# without one Redis script call per read), members (the API scenario's rows of a member of three
# organizations alone, beside the floor reading as that member), instructions (a read by id counted in
# instructions under valgrind's callgrind, which the machine's noise does not move). With BENCH_COMPARE_DIST=<another build's dist> the api
# scenario only compares this build with that one, beside an A/A row (a second process of this build)
# and the floor: a read by id, cursor page 1 of the list, a page 90,000 rows deep, a single POST and a bulk create, one table each
# (BENCH_COMPARE_ROWS=by-id,list,deep,post,bulk picks some); the delivery scenario runs that build's workers as a
# third sender beside this build's and the bare sender, and the instructions scenario counts that build too.
set -euo pipefail
cd "$(dirname "$0")/.."
scenarios=",${BENCH_SCENARIOS:-api,delivery},"
bash scripts/services.sh
npm run build
# The benchmarks and the processes they compare run compiled, like the service.
rm -rf .bench/dist && npx tsc -p tsconfig.bench.json && npx tsc-alias -p tsconfig.bench.json
if [[ $scenarios == *,api,* ]]; then node .bench/dist/bench/run-bench.js; fi
if [[ $scenarios == *,tracing,* ]]; then BENCH_TRACING_ONLY=true node .bench/dist/bench/run-bench.js; fi
if [[ $scenarios == *,credentials,* ]]; then BENCH_CREDENTIALS_ONLY=true node .bench/dist/bench/run-bench.js; fi
if [[ $scenarios == *,members,* ]]; then BENCH_MEMBERS_ONLY=true node .bench/dist/bench/run-bench.js; fi
if [[ $scenarios == *,delivery,* ]]; then node .bench/dist/bench/run-delivery-bench.js; fi
if [[ $scenarios == *,soak,* ]]; then node .bench/dist/bench/run-soak-bench.js; fi
if [[ $scenarios == *,scale,* ]]; then node .bench/dist/bench/run-scale-bench.js; fi
if [[ $scenarios == *,replicas,* ]]; then node .bench/dist/bench/run-replica-bench.js; fi
if [[ $scenarios == *,instructions,* ]]; then node .bench/dist/bench/run-instruction-bench.js; fi
