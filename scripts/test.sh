#!/usr/bin/env bash
# The test tiers (README, "Tests"), each a Jest project with the workers that suit it:
#   bash scripts/test.sh            everything, as `npm test`: the services, lint beside the build
#                                   and the unit tier, then the api and system tiers
#   bash scripts/test.sh unit       the unit tier alone: no services, no build (npm run test:unit)
#   bash scripts/test.sh api        the build, then the api tier, whose one built API and worker
#                                   serve the suites that only speak HTTP (npm run test:api)
#   bash scripts/test.sh system     the build, then the system tier (npm run test:system)
# Arguments after the tier go to Jest (a path narrows the run to the suites it matches).
# Each step's wall time is printed as it ends and again, all together, at the end.
set -euo pipefail
cd "$(dirname "$0")/.."

# Two workers in every tier, one per core of the two-core machines this runs on: a unit spec and
# an api suite's in-process app spend their time loading modules, and a system suite's own
# processes take the cores. A third worker starved the suites that hold deadlines (DNS, query
# timeouts, start-up) on a busy machine.
unit_tier() { npx jest --selectProjects unit --maxWorkers=2 "$@"; }
api_tier() { npx jest --selectProjects api --maxWorkers=2 "$@"; }
system_tier() { npx jest --selectProjects system --maxWorkers=2 "$@"; }

failed=()
timings=()
seconds_since() { awk -v ns="$(($(date +%s%N) - $1))" 'BEGIN { printf "%.1f", ns / 1e9 }'; }
record() { timings+=("$(printf '%-7s %7s s%s' "$1" "$2" "${3:+  ($3)}")"); }

# Runs a step, prints how long it took and keeps going when it fails, so that every tier reports.
timed() {
  local name=$1 started status=0
  shift
  started=$(date +%s%N)
  "$@" || status=$?
  local seconds
  seconds=$(seconds_since "$started")
  if [ "$status" -eq 0 ]; then record "$name" "$seconds"; else record "$name" "$seconds" failed; failed+=("$name"); fi
  echo "tiers: $name took $seconds s"
}

tier=${1:-all}
[ $# -gt 0 ] && shift
case "$tier" in
  unit) unit_tier "$@" ;;
  api) npm run build && api_tier "$@" ;;
  system) npm run build && system_tier "$@" ;;
  all)
    run_started=$(date +%s%N)
    bash scripts/services.sh
    bash scripts/browser.sh
    # Lint (type-aware ESLint, the import rules, the type check, the OpenAPI tools: its long steps
    # side by side) runs beside the build and the unit tier; its output is shown once it ends.
    lint_log=$(mktemp)
    trap 'rm -f "$lint_log" "$lint_log.seconds"' EXIT
    (
      started=$(date +%s%N)
      status=0
      npm run lint >"$lint_log" 2>&1 || status=$?
      seconds_since "$started" >"$lint_log.seconds"
      exit "$status"
    ) &
    lint_pid=$!
    timed build npm run build
    [ "${#failed[@]}" -eq 0 ] || exit 1
    timed unit unit_tier
    lint_status=0
    wait "$lint_pid" || lint_status=$?
    cat "$lint_log"
    if [ "$lint_status" -eq 0 ]; then record lint "$(cat "$lint_log.seconds")"; else record lint "$(cat "$lint_log.seconds")" failed; failed+=(lint); fi
    timed api api_tier
    timed system system_tier
    record total "$(seconds_since "$run_started")"
    echo
    echo "tiers: wall time of each step (lint ran beside build and unit)"
    printf '  %s\n' "${timings[@]}"
    if [ "${#failed[@]}" -gt 0 ]; then
      echo "tiers: failed: ${failed[*]}" >&2
      exit 1
    fi
    ;;
  *)
    echo "usage: bash scripts/test.sh [unit|api|system] [jest arguments]" >&2
    exit 2
    ;;
esac
